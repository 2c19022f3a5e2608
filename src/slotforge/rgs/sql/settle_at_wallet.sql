CREATE OR REPLACE FUNCTION slotforge_settle_at_wallet(
    p_player bigint, p_round bigint, p_wallet_tx text, p_reported bigint, p_stake bigint,
    p_win bigint, p_now bigint, p_latest bigint, p_record text, p_credit_key text, p_credit_payload text,
    p_credit_due_at bigint, p_key text, p_request_hash text, p_status_code integer,
    OUT new_balance bigint, OUT credit_id bigint)
LANGUAGE plpgsql VOLATILE AS $$
-- The second transaction of a round at a seamless wallet whose debit was taken and whose round
-- completed, called as a statement of its own (in autocommit): the held rollback taken, the
-- player's balance the wallet's answer (p_reported) and the wins on their way to it, this
-- round's too, the round finished, its ledger entries, the credit owed to the wallet, the key
-- stored with a pointer to the round.
--
-- Returns the player's balance after it and the credit's outbox id; NULL, having changed
-- nothing, when the placeholder no longer holds the rollback (given up to the outbox).
-- Raises SQLSTATE SF001 when the round is refused after the rollback was cancelled (too
-- soon; a round of the game awaits a decision, when the rounds table's trigger refuses the
-- placeholder's finish; the key is stored already), which undoes all.
DECLARE
    settled_balance bigint;
BEGIN
    PERFORM FROM players WHERE id = p_player FOR UPDATE;

    -- Locked: the outbox's worker cannot give the rollback up meanwhile.
    PERFORM FROM rounds WHERE id = p_round AND status = 'pending' AND wallet_status = 'debit_pending'
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    -- The wins owed are those of the player's rounds whose credit is not acknowledged yet; this
    -- round is not among them until it is finished below, so its win is added here.
    UPDATE players
    SET balance = p_reported + (SELECT coalesce(sum(rounds.win), 0) FROM rounds
                                WHERE rounds.player_id = p_player AND rounds.wallet_status = 'credit_pending')
                  + p_win,
        last_round_at = p_now
    WHERE id = p_player AND (last_round_at IS NULL OR last_round_at <= p_latest)
    RETURNING balance INTO settled_balance;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'round refused: player % played too lately', p_player USING ERRCODE = 'SF001';
    END IF;

    -- The placeholder, locked above while pending: finished, unless the rounds table's trigger
    -- refuses it (a round of the game awaits a decision), its look-up a snapshot taken now.
    UPDATE rounds
    SET status = 'complete', win = p_win, balance_before = settled_balance - p_win + p_stake,
        balance_after = settled_balance, record = p_record, started_at = p_now, finished_at = p_now,
        wallet_status = 'credit_pending'
    WHERE id = p_round;

    -- Due at p_credit_due_at: the round's request sends it itself first (see at_wallet.py).
    INSERT INTO outbox (target, kind, key, round_id, payload, created_at, due_at, attempts)
    VALUES ('wallet', 'credit', p_credit_key, p_round, p_credit_payload, p_now, p_credit_due_at, 0)
    RETURNING id INTO credit_id;

    PERFORM slotforge_book_round(p_player, p_round, p_stake, p_win, p_now, p_key, p_request_hash, p_status_code);

    new_balance := settled_balance;
END
$$;
