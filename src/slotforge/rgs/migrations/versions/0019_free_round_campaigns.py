"""free rounds: the operators' campaigns, their grants to players, and each free round's grant

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'free_campaigns',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('operator_id', ID, nullable=False),
        sa.Column('reference', sa.String(100), nullable=False),
        sa.Column('name', sa.String(200), nullable=False),
        sa.Column('games', sa.Text, nullable=False),
        sa.Column('bets', sa.Text, nullable=False),
        sa.Column('rounds', sa.Integer, nullable=False),
        sa.Column('valid_from', sa.BigInteger, nullable=False),
        sa.Column('valid_until', sa.BigInteger, nullable=False),
        sa.Column('player_cap', sa.Integer, nullable=True),
        sa.Column('allow_gamble', sa.Boolean, nullable=False),
        sa.Column('jackpot_eligible', sa.Boolean, nullable=False, server_default='0'),
        sa.Column('request_hash', sa.String(64), nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.Column('cancelled_at', sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_free_campaigns'),
        sa.ForeignKeyConstraint(['operator_id'], ['operators.id'], name='fk_free_campaigns_operator_id'),
        sa.UniqueConstraint('operator_id', 'reference', name='uq_free_campaigns_operator_id'),
    )
    op.create_table(
        'free_grants',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('campaign_id', ID, nullable=False),
        sa.Column('player_id', ID, nullable=False),
        sa.Column('rounds_granted', sa.Integer, nullable=False),
        sa.Column('rounds_played', sa.Integer, nullable=False, server_default='0'),
        sa.Column('state', sa.String(12), nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.Column('updated_at', sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_free_grants'),
        sa.ForeignKeyConstraint(['campaign_id'], ['free_campaigns.id'], name='fk_free_grants_campaign_id'),
        sa.ForeignKeyConstraint(['player_id'], ['players.id'], name='fk_free_grants_player_id'),
        sa.UniqueConstraint('campaign_id', 'player_id', name='uq_free_grants_campaign_id'),
    )
    op.create_index('ix_free_grants_player', 'free_grants', ['player_id'])
    # Nullable and without a constraint: SQLite adds it in place, no table copy.
    op.add_column('rounds', sa.Column('free_grant_id', ID, nullable=True))
    op.add_column('rounds', sa.Column('free_campaign', sa.String(100), nullable=True))


def downgrade() -> None:
    op.drop_column('rounds', 'free_campaign')
    op.drop_column('rounds', 'free_grant_id')
    op.drop_index('ix_free_grants_player', 'free_grants')
    op.drop_table('free_grants')
    op.drop_table('free_campaigns')
