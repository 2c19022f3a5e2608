CREATE OR REPLACE FUNCTION slotforge_hold_debit(
    p_player bigint, p_session bigint, p_game text, p_currency text, p_jurisdiction text, p_stake bigint,
    p_now bigint, p_latest bigint, p_wallet_tx text, p_request_key text, OUT new_round bigint)
LANGUAGE plpgsql VOLATILE AS $$
-- The first transaction of a round at a seamless wallet, called as a statement of its own (in
-- autocommit): the round's placeholder (status pending, its balances the player's), which holds
-- the rollback of its debit (wallet_status debit_pending) until the round's second call takes it.
--
-- Returns the placeholder's id; NULL, having changed nothing, when the player played too
-- lately, or the request's key is answered already or has a debit out (a pending round under
-- the same key). Raises SQLSTATE SF001, changing nothing either, when a round of the game awaits
-- a decision: the rounds table's trigger (slotforge_none_awaiting) refuses the placeholder.
BEGIN
    -- Locked first: the insert and its trigger see what a request of the player's that held
    -- the lock committed.
    PERFORM FROM players WHERE id = p_player FOR UPDATE;

    INSERT INTO rounds (player_id, session_id, game, status, fun, currency, jurisdiction, stake, win, jackpot_win,
                        balance_before, balance_after, record, started_at, wallet_tx, wallet_status, request_key)
    SELECT players.id, p_session, p_game, 'pending', false, p_currency, p_jurisdiction, p_stake, 0, 0,
           players.balance, players.balance, '{}', p_now, p_wallet_tx, 'debit_pending', p_request_key
    FROM players
    WHERE players.id = p_player
      AND (players.last_round_at IS NULL OR players.last_round_at <= p_latest)
      AND NOT EXISTS (SELECT FROM rounds AS other
                      WHERE other.player_id = players.id AND other.status = 'pending'
                        AND other.request_key = p_request_key)
      AND NOT EXISTS (SELECT FROM idempotency
                      WHERE idempotency.player_id = players.id AND idempotency.key = p_request_key)
    RETURNING id INTO new_round;
END
$$;
