"""the partial indexes of a player's pending rounds and of the wins owed to their wallet, fitted
to their look-ups

Every seamless round looks for a twin of its request among the player's pending rounds (by the
player and the request's key), and sums the wins still owed to the player's wallet. With the
player alone in ``ix_rounds_pending`` and ``ix_rounds_credit_pending``, SQLite's planner, which
keeps no statistics here, weighed each against the index of all the player's rounds
(``ix_rounds_player_id``) as a tie, and the rounds' wider rows since migration 0019 tipped it to
the latter: look-ups that read the player's whole history. Now the pending rounds' index holds
the request's key, which the look-up names too, and the owed wins' index holds the win, which
the sum reads from it alone: each is the cheapest a planner can choose.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None

# Each index: its condition, its columns before and after.
INDEXES = {
    'ix_rounds_pending': (sa.text("status = 'pending'"), ['player_id'], ['player_id', 'request_key']),
    'ix_rounds_credit_pending': (sa.text("wallet_status = 'credit_pending'"), ['player_id'], ['player_id', 'win']),
}


def upgrade() -> None:
    for name, (where, _before, after) in INDEXES.items():
        op.drop_index(name, table_name='rounds')
        op.create_index(name, 'rounds', after, postgresql_where=where, sqlite_where=where)


def downgrade() -> None:
    for name, (where, before, _after) in INDEXES.items():
        op.drop_index(name, table_name='rounds')
        op.create_index(name, 'rounds', before, postgresql_where=where, sqlite_where=where)
