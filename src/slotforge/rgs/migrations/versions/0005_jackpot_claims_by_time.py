"""the jackpot entries indexed by kind and time: the live stream reads the latest claims

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_jackpot_entries_kind_time', 'jackpot_entries', ['kind', 'created_at'])


def downgrade() -> None:
    op.drop_index('ix_jackpot_entries_kind_time', table_name='jackpot_entries')
