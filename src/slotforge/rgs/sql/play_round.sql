CREATE OR REPLACE FUNCTION slotforge_play_round(
    p_claim bigint, p_player bigint, p_stake bigint, p_win bigint, p_now bigint, p_latest bigint,
    p_session bigint, p_game text, p_status text, p_fun boolean, p_currency text, p_jurisdiction text,
    p_record text, p_finished_at bigint, p_key text, p_request_hash text, p_status_code integer,
    OUT claim_held boolean, OUT new_round bigint, OUT new_balance bigint)
LANGUAGE plpgsql VOLATILE AS $$
-- A straight round's whole transaction, called as a statement of its own (in autocommit): it
-- commits when the call returns and leaves nothing behind when it raises.
--
-- Returns: claim_held false when another transaction holds the request's claim (nothing done);
-- new_round NULL when the player's row was not settled (too little money, too soon: nothing
-- changed); else the round's id and the player's balance after it. Raises SQLSTATE SF001 when
-- the round is refused after the player's row was settled (a round of the game awaits a
-- decision, the rounds table's trigger; the key answered already), which undoes the settling.
DECLARE
    settled_balance bigint;
BEGIN
    claim_held := pg_try_advisory_xact_lock(p_claim);
    IF NOT claim_held THEN
        RETURN;
    END IF;

    UPDATE players SET balance = balance - p_stake + p_win, last_round_at = p_now
    WHERE id = p_player AND balance >= p_stake AND (last_round_at IS NULL OR last_round_at <= p_latest)
    RETURNING balance INTO settled_balance;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    -- After the update, which holds the player's row lock: the rounds table's trigger
    -- (slotforge_none_awaiting) refuses the round with SF001 if one of the game awaits a
    -- decision, its look-up a snapshot taken now, so it sees a round left awaiting by a request
    -- of the player's that committed while the update waited for that lock.
    INSERT INTO rounds (player_id, session_id, game, status, fun, currency, jurisdiction, stake, win, jackpot_win,
                        balance_before, balance_after, record, started_at, finished_at)
    VALUES (p_player, p_session, p_game, p_status, p_fun, p_currency, p_jurisdiction, p_stake, p_win, 0,
            settled_balance + p_stake - p_win, settled_balance, p_record, p_now, p_finished_at)
    RETURNING id INTO new_round;

    PERFORM slotforge_book_round(p_player, new_round, p_stake, p_win, p_now, p_key, p_request_hash, p_status_code);

    new_balance := settled_balance;
END
$$;
