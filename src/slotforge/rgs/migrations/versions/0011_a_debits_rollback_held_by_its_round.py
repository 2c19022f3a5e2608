"""a seamless debit's rollback held by its placeholder round, not by an outbox message

A round at a seamless wallet wrote its debit's rollback to the outbox before the debit, held, and
deleted it again in its own transaction: two writes of a message that is almost never sent. The
placeholder round (status ``pending``, ``wallet_status`` ``debit_pending``) now holds it: the
round's transaction takes it (on the condition that it is still held), and the outbox's worker
writes the rollback as a message once the hold falls due (``slotforge.rgs.wallets.seamless``).

On PostgreSQL the two functions of 0009 change accordingly: ``slotforge_hold_debit`` writes the
placeholder alone (and loses the message's two parameters), ``slotforge_settle_at_wallet`` locks
the placeholder and finds it still holding the rollback where it deleted the message. Rounds
placed before this migration keep their held messages: those rounds are marked as given up to
them (``rollback_pending``), so that the message alone settles each. A downgrade is refused while
a round holds a rollback, which the code before this migration would never send.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def functions_of_0009():
    """Migration 0009's module, whose functions these are, changed."""
    path = next(Path(__file__).parent.glob("0009_*.py"))
    spec = importlib.util.spec_from_file_location("slotforge_migration_0009", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def changed(text: str, *replacements: tuple[str, str]) -> str:
    """``text`` with each piece replaced: every piece must be there once (a function changed
    only where this migration says)."""
    for old, new in replacements:
        if text.count(old) != 1:
            raise RuntimeError(f"migration 0011: expected once in 0009's function: {old!r}")
        text = text.replace(old, new)
    return text


PREVIOUS = functions_of_0009()
HOLD_DEBIT = changed(
    PREVIOUS.HOLD_DEBIT,
    ("p_wallet_tx text, p_request_key text, p_payload text, p_due_at bigint,\n    OUT new_round bigint)",
     "p_wallet_tx text, p_request_key text, OUT new_round bigint)"),
    ("-- autocommit): the round's placeholder (status pending, its balances the player's) and the held\n"
     "-- rollback of its debit, due at p_due_at unless the round's second call cancels it.",
     "-- autocommit): the round's placeholder (status pending, its balances the player's), which holds\n"
     "-- the rollback of its debit (wallet_status debit_pending) until the round's second call takes it."),
    ("""    RETURNING id INTO new_round;
    IF NOT FOUND THEN
        RETURN;
    END IF;

    -- The payload is the message as the server builds it but for the round's id, which only this
    -- call knows: null there, set here (stored as jsonb renders it, the same JSON).
    INSERT INTO outbox (target, kind, key, round_id, payload, created_at, due_at, attempts)
    VALUES ('wallet', 'rollback', p_wallet_tx, new_round,
            jsonb_set(p_payload::jsonb, '{body,round_id}', to_jsonb(new_round))::text, p_now, p_due_at, 0);
""", "    RETURNING id INTO new_round;\n"),
)
SETTLE_AT_WALLET = changed(
    PREVIOUS.SETTLE_AT_WALLET,
    ("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"),
    ("-- completed, called as a statement of its own (in autocommit): the held rollback cancelled, the",
     "-- completed, called as a statement of its own (in autocommit): the held rollback taken, the"),
    ("-- nothing, when the held rollback is no longer held (delivered, or made due and delivered).",
     "-- nothing, when the placeholder no longer holds the rollback (given up to the outbox)."),
    ("-- soon, a round of the game awaits a decision, the key is stored already), which undoes the\n"
     "-- cancelling and all else.",
     "-- soon, a round of the game awaits a decision, the key is stored already), which undoes all."),
    ("    DELETE FROM outbox WHERE target = 'wallet' AND key = p_wallet_tx AND delivered_at IS NULL;",
     "    -- Locked: the outbox's worker cannot give the rollback up meanwhile.\n"
     "    PERFORM FROM rounds WHERE id = p_round AND status = 'pending' AND wallet_status = 'debit_pending'\n"
     "    FOR UPDATE;"),
)
NEW_HOLD_DEBIT = "slotforge_hold_debit(bigint, bigint, text, text, text, bigint, bigint, bigint, text, text)"
OLD_HOLD_DEBIT = ("slotforge_hold_debit(bigint, bigint, text, text, text, bigint, bigint, bigint, text, text, text, "
                  "bigint)")

# A placeholder placed before this migration has its rollback held in the outbox: given up to it.
GIVEN_UP_TO_THE_OUTBOX = sa.text("""
UPDATE rounds SET wallet_status = 'rollback_pending'
WHERE status = 'pending' AND wallet_status = 'debit_pending'
  AND EXISTS (SELECT 1 FROM outbox WHERE outbox.target = 'wallet' AND outbox.key = rounds.wallet_tx
                                     AND outbox.delivered_at IS NULL)
""")
HELD_BY_ROUNDS = sa.text("SELECT count(*) FROM rounds WHERE status = 'pending' AND wallet_status = 'debit_pending'")


def upgrade() -> None:
    op.execute(GIVEN_UP_TO_THE_OUTBOX)
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(f"DROP FUNCTION {OLD_HOLD_DEBIT}")
        op.execute(HOLD_DEBIT)
        op.execute(SETTLE_AT_WALLET)


def downgrade() -> None:
    held = op.get_bind().execute(HELD_BY_ROUNDS).scalar_one()
    if held:
        raise RuntimeError(f"{held} rounds hold their debit's rollback, which the code before migration 0011 would "
                           "never send: start this version's server until nothing is owed to the wallets, then "
                           "downgrade")
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(f"DROP FUNCTION {NEW_HOLD_DEBIT}")
        op.execute(PREVIOUS.HOLD_DEBIT)
        op.execute(changed(PREVIOUS.SETTLE_AT_WALLET, ("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")))
