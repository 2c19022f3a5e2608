"""players' own limits: loss and session time limits with their pending loosening, and time-outs

``player_limits`` holds each limit a player set (a net loss limit per rolling day, week and
month, a session time limit) and a loosening that waits out the jurisdiction's cooling-off;
``player_time_outs`` each time-out a player took. The rounds gain an index by player and start
time, which a player's loss over a period reads.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'player_limits',
        sa.Column('player_id', ID, nullable=False),
        sa.Column('kind', sa.String(20), nullable=False),
        sa.Column('value', sa.BigInteger, nullable=True),
        sa.Column('pending_value', sa.BigInteger, nullable=True),
        sa.Column('pending_at', sa.BigInteger, nullable=True),
        sa.Column('updated_at', sa.BigInteger, nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['players.id'], name='fk_player_limits_player_id'),
        sa.PrimaryKeyConstraint('player_id', 'kind', name='pk_player_limits'),
    )
    op.create_table(
        'player_time_outs',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('player_id', ID, nullable=False),
        sa.Column('hours', sa.Integer, nullable=False),
        sa.Column('started_at', sa.BigInteger, nullable=False),
        sa.Column('until', sa.BigInteger, nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['players.id'], name='fk_player_time_outs_player_id'),
        sa.PrimaryKeyConstraint('id', name='pk_player_time_outs'),
        sqlite_autoincrement=True,
    )
    op.create_index('ix_player_time_outs_player', 'player_time_outs', ['player_id', 'until'])
    # Partial: only a query that says "real money" reads it (each database's spelling of it).
    op.create_index('ix_rounds_player_started', 'rounds', ['player_id', 'started_at'],
                    postgresql_where=sa.text('fun IS false'), sqlite_where=sa.text('fun IS 0'))


def downgrade() -> None:
    op.drop_index('ix_rounds_player_started', table_name='rounds')
    op.drop_index('ix_player_time_outs_player', table_name='player_time_outs')
    op.drop_table('player_time_outs')
    op.drop_table('player_limits')
