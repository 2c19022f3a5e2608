"""a player's open rounds found by partial indexes: the rounds awaiting a decision, and those
pending at a seamless wallet

Every round first looks for the player's open rounds. Read through the indexes of all rounds
(by player, by status) the look cost more as the player's history grew, and a seamless round's
first statement spent most of its time there.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

# Each partial index of rounds: its columns and the rows it holds.
INDEXES = {
    'ix_rounds_awaiting': (['player_id', 'game'], sa.text("status = 'awaiting'")),
    'ix_rounds_pending': (['player_id'], sa.text("status = 'pending'")),
}


def upgrade() -> None:
    for name, (columns, where) in INDEXES.items():
        op.create_index(name, 'rounds', columns, postgresql_where=where, sqlite_where=where)


def downgrade() -> None:
    for name in reversed(INDEXES):
        op.drop_index(name, table_name='rounds')
