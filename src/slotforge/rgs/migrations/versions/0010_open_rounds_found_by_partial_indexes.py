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

AWAITING = sa.text("status = 'awaiting'")
PENDING = sa.text("status = 'pending'")


def upgrade() -> None:
    op.create_index('ix_rounds_awaiting', 'rounds', ['player_id', 'game'], postgresql_where=AWAITING,
                    sqlite_where=AWAITING)
    op.create_index('ix_rounds_pending', 'rounds', ['player_id'], postgresql_where=PENDING, sqlite_where=PENDING)


def downgrade() -> None:
    op.drop_index('ix_rounds_pending', table_name='rounds')
    op.drop_index('ix_rounds_awaiting', table_name='rounds')
