"""PostgreSQL: a plain round at a seamless wallet is two calls of functions, one round trip each

``slotforge_hold_debit`` does in one statement what the round's first transaction did in five
round trips (``BEGIN``, the player's row locked, the placeholder, the held rollback, ``COMMIT``),
and ``slotforge_settle_at_wallet`` what its second did in nine (``BEGIN``, the lock, the
rollback taken, the player settled, the round finished, the ledger, the credit, the key,
``COMMIT``): see ``slotforge/rgs/rounds/at_wallet.py``, whose statements for SQLite these
functions hold with the same conditions. Their text is ``slotforge/rgs/sql/hold_debit.sql`` and
``settle_at_wallet.sql``, as the code of today calls them. SQLite has no such functions, and
needs none (its statements are calls inside the process): there this migration does nothing.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from alembic import op

from slotforge.rgs import sql

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

FUNCTIONS = ("hold_debit", "settle_at_wallet")


def upgrade() -> None:
    sql.install(op.get_bind(), *FUNCTIONS)


def downgrade() -> None:
    sql.drop(op.get_bind(), *FUNCTIONS)
