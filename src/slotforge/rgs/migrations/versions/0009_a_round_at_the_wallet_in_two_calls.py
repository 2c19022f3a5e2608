"""PostgreSQL: a plain round at a seamless wallet is two calls of functions, one round trip each

``slotforge_hold_debit`` does in one statement what the round's first transaction did in five
round trips (``BEGIN``, the player's row locked, the placeholder, the held rollback, ``COMMIT``),
and ``slotforge_settle_at_wallet`` what its second did in nine (``BEGIN``, the lock, the
rollback cancelled, the player settled, the round finished, the ledger, the credit, the key,
``COMMIT``): see ``slotforge/rgs/rounds/at_wallet.py``, whose statements for SQLite these
functions hold with the same conditions. SQLite has no such functions, and needs none (its
statements are calls inside the process): there this migration does nothing.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

# As in 0008: the SQLSTATE raised when a conditional step after a change refuses the round, so
# that the failed statement leaves nothing it did. ``straight.REFUSED`` is the same code.
REFUSED = 'SF001'

# Both functions lock the player's row first, as statements of their own: each later statement of
# a volatile function takes a fresh snapshot (READ COMMITTED), so the conditions after the lock see
# whatever a request of the player's that held it committed (its round left awaiting a decision,
# its placeholder under the same key, its key stored, the wins it made owed).

HOLD_DEBIT = """
CREATE FUNCTION slotforge_hold_debit(
    p_player bigint, p_session bigint, p_game text, p_currency text, p_jurisdiction text, p_stake bigint,
    p_now bigint, p_latest bigint, p_wallet_tx text, p_request_key text, p_payload text, p_due_at bigint,
    OUT new_round bigint)
LANGUAGE plpgsql VOLATILE AS $$
-- The first transaction of a round at a seamless wallet, called as a statement of its own (in
-- autocommit): the round's placeholder (status pending, its balances the player's) and the held
-- rollback of its debit, due at p_due_at unless the round's second call cancels it.
--
-- Returns the placeholder's id; NULL, having changed nothing, when the player played too
-- lately, a round of the game awaits a decision, or the request's key is answered already or
-- has a debit out (a pending round under the same key).
BEGIN
    PERFORM FROM players WHERE id = p_player FOR UPDATE;

    INSERT INTO rounds (player_id, session_id, game, status, fun, currency, jurisdiction, stake, win, jackpot_win,
                        balance_before, balance_after, record, started_at, wallet_tx, wallet_status, request_key)
    SELECT players.id, p_session, p_game, 'pending', false, p_currency, p_jurisdiction, p_stake, 0, 0,
           players.balance, players.balance, '{}', p_now, p_wallet_tx, 'debit_pending', p_request_key
    FROM players
    WHERE players.id = p_player
      AND (players.last_round_at IS NULL OR players.last_round_at <= p_latest)
      AND NOT EXISTS (SELECT FROM rounds AS other
                      WHERE other.player_id = players.id AND other.game = p_game AND other.status = 'awaiting')
      AND NOT EXISTS (SELECT FROM rounds AS other
                      WHERE other.player_id = players.id AND other.status = 'pending'
                        AND other.request_key = p_request_key)
      AND NOT EXISTS (SELECT FROM idempotency
                      WHERE idempotency.player_id = players.id AND idempotency.key = p_request_key)
    RETURNING id INTO new_round;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    -- The payload is the message as the server builds it but for the round's id, which only this
    -- call knows: null there, set here (stored as jsonb renders it, the same JSON).
    INSERT INTO outbox (target, kind, key, round_id, payload, created_at, due_at, attempts)
    VALUES ('wallet', 'rollback', p_wallet_tx, new_round,
            jsonb_set(p_payload::jsonb, '{body,round_id}', to_jsonb(new_round))::text, p_now, p_due_at, 0);
END
$$
"""

SETTLE_AT_WALLET = f"""
CREATE FUNCTION slotforge_settle_at_wallet(
    p_player bigint, p_round bigint, p_game text, p_wallet_tx text, p_reported bigint, p_stake bigint,
    p_win bigint, p_now bigint, p_latest bigint, p_record text, p_credit_key text, p_credit_payload text,
    p_credit_due_at bigint, p_key text, p_request_hash text, p_status_code integer,
    OUT new_balance bigint, OUT credit_id bigint)
LANGUAGE plpgsql VOLATILE AS $$
-- The second transaction of a round at a seamless wallet whose debit was taken and whose round
-- completed, called as a statement of its own (in autocommit): the held rollback cancelled, the
-- player's balance the wallet's answer (p_reported) and the wins on their way to it, this
-- round's too, the round finished, its ledger entries, the credit owed to the wallet, the key
-- stored with a pointer to the round.
--
-- Returns the player's balance after it and the credit's outbox id; NULL, having changed
-- nothing, when the held rollback is no longer held (delivered, or made due and delivered).
-- Raises SQLSTATE {REFUSED} when the round is refused after the rollback was cancelled (too
-- soon, a round of the game awaits a decision, the key is stored already), which undoes the
-- cancelling and all else.
DECLARE
    settled_balance bigint;
BEGIN
    PERFORM FROM players WHERE id = p_player FOR UPDATE;

    DELETE FROM outbox WHERE target = 'wallet' AND key = p_wallet_tx AND delivered_at IS NULL;
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
        RAISE EXCEPTION 'round refused: player % played too lately', p_player USING ERRCODE = '{REFUSED}';
    END IF;

    UPDATE rounds
    SET status = 'complete', win = p_win, balance_before = settled_balance - p_win + p_stake,
        balance_after = settled_balance, record = p_record, started_at = p_now, finished_at = p_now,
        wallet_status = 'credit_pending'
    WHERE id = p_round AND status = 'pending'
      AND NOT EXISTS (SELECT FROM rounds AS other
                      WHERE other.player_id = p_player AND other.game = p_game AND other.status = 'awaiting');
    IF NOT FOUND THEN
        RAISE EXCEPTION 'round refused: player % has a round of % awaiting a decision', p_player, p_game
            USING ERRCODE = '{REFUSED}';
    END IF;

    -- As the server's ledger_entries: the stake and the win, a zero no entry.
    INSERT INTO ledger (player_id, kind, amount, round_id, created_at)
    SELECT p_player, entry.kind, entry.amount, p_round, p_now
    FROM (VALUES ('stake', p_stake), ('win', p_win)) AS entry (kind, amount)
    WHERE entry.amount <> 0;

    -- Due at p_credit_due_at: the round's request sends it itself first (see at_wallet.py).
    INSERT INTO outbox (target, kind, key, round_id, payload, created_at, due_at, attempts)
    VALUES ('wallet', 'credit', p_credit_key, p_round, p_credit_payload, p_now, p_credit_due_at, 0)
    RETURNING id INTO credit_id;

    -- The answer is the round as committed: the key points to it.
    INSERT INTO idempotency (player_id, key, request_hash, status_code, round_id, created_at)
    VALUES (p_player, p_key, p_request_hash, p_status_code, p_round, p_now)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'round refused: player % has answered key % already', p_player, p_key
            USING ERRCODE = '{REFUSED}';
    END IF;

    new_balance := settled_balance;
END
$$
"""

DROP = ["DROP FUNCTION slotforge_settle_at_wallet", "DROP FUNCTION slotforge_hold_debit"]


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(HOLD_DEBIT)
        op.execute(SETTLE_AT_WALLET)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for statement in DROP:
            op.execute(statement)
