CREATE OR REPLACE FUNCTION slotforge_book_round(
    p_player bigint, p_round bigint, p_stake bigint, p_win bigint, p_now bigint, p_key text,
    p_request_hash text, p_status_code integer)
RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
-- What every settled round writes last, in its caller's transaction (slotforge_play_round,
-- slotforge_settle_at_wallet): its ledger entries and its request's key.
--
-- Raises SQLSTATE SF001 when the key is stored already (a twin answered first), which undoes
-- the whole call of the caller.
BEGIN
    -- As the server's ledger_entries: the stake and the win, a zero no entry.
    INSERT INTO ledger (player_id, kind, amount, round_id, created_at)
    SELECT p_player, entry.kind, entry.amount, p_round, p_now
    FROM (VALUES ('stake', p_stake), ('win', p_win)) AS entry (kind, amount)
    WHERE entry.amount <> 0;

    -- The answer is the round as committed: the key points to it.
    INSERT INTO idempotency (player_id, key, request_hash, status_code, round_id, created_at)
    VALUES (p_player, p_key, p_request_hash, p_status_code, p_round, p_now)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'round refused: player % has answered key % already', p_player, p_key
            USING ERRCODE = 'SF001';
    END IF;
END
$$;
