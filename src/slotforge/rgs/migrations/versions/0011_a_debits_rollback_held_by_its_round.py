"""a seamless debit's rollback held by its placeholder round, not by an outbox message

A round at a seamless wallet wrote its debit's rollback to the outbox before the debit, held, and
deleted it again in its own transaction: two writes of a message that is almost never sent. The
placeholder round (status ``pending``, ``wallet_status`` ``debit_pending``) now holds it: the
round's transaction takes it (on the condition that it is still held), and the outbox's worker
writes the rollback as a message once the hold falls due (``slotforge.rgs.wallets.seamless``).

On PostgreSQL the two functions of 0009 change accordingly: ``slotforge_hold_debit`` writes the
placeholder alone (and loses the message's two parameters), ``slotforge_settle_at_wallet`` locks
the placeholder and finds it still holding the rollback where it deleted the message. This
migration installs their text of today (``slotforge/rgs/sql``) in place of any older one. Rounds
placed before this migration keep their held messages: those rounds are marked as given up to
them (``rollback_pending``), so that the message alone settles each. A downgrade is refused while
a round holds a rollback, which the code before this migration would never send; it keeps the
functions of today, which the files alone hold (a downgrade serves to migrate again, with this
version's code).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

from slotforge.rgs import sql

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

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
    sql.install(op.get_bind(), "hold_debit", "settle_at_wallet")


def downgrade() -> None:
    held = op.get_bind().execute(HELD_BY_ROUNDS).scalar_one()
    if held:
        raise RuntimeError(f"{held} rounds hold their debit's rollback, which the code before migration 0011 would "
                           "never send: start this version's server until nothing is owed to the wallets, then "
                           "downgrade")
