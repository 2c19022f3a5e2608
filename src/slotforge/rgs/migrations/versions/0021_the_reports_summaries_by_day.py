"""the back office's summaries of finished rounds, one UTC day at a time

A report of a month read every round of the month (673 ms for a month of a million rounds). Each
ended day is now summed once: per quarter hour, operator, game, currency, model and kind of round
(paid or free); per player the first and last quarter hour they played, and how many players
played from or up to each quarter hour. A report adds up those few rows (see
rgs/backoffice/summary.py). Days are summarised when a report first needs them, so this
migration writes no rows.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'summarised_days',
        sa.Column('day', sa.BigInteger, nullable=False),
        sa.Column('summarised_at', sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint('day', name='pk_summarised_days'),
    )
    op.create_table(
        'quarter_totals',
        sa.Column('operator_id', ID, nullable=False),
        sa.Column('day', sa.BigInteger, nullable=False),
        sa.Column('quarter', sa.Integer, nullable=False),
        sa.Column('game', sa.String(40), nullable=False),
        sa.Column('currency', sa.String(3), nullable=False),
        sa.Column('model', sa.Text, nullable=False),
        sa.Column('free', sa.Boolean, nullable=False),
        sa.Column('rounds', sa.BigInteger, nullable=False),
        sa.Column('stakes', sa.BigInteger, nullable=False),
        sa.Column('wins', sa.BigInteger, nullable=False),
        sa.Column('hits', sa.BigInteger, nullable=False),
        sa.Column('jackpot_wins', sa.BigInteger, nullable=False),
        sa.Column('stake_squares', sa.Float, nullable=False),
        sa.Column('contributions', sa.String(80), nullable=False),
        sa.PrimaryKeyConstraint('operator_id', 'day', 'quarter', 'game', 'currency', 'model', 'free',
                                name='pk_quarter_totals'),
    )
    op.create_table(
        'player_days',
        sa.Column('operator_id', ID, nullable=False),
        sa.Column('day', sa.BigInteger, nullable=False),
        sa.Column('game', sa.String(40), nullable=False),
        sa.Column('currency', sa.String(3), nullable=False),
        sa.Column('player_id', ID, nullable=False),
        sa.Column('first_quarter', sa.Integer, nullable=False),
        sa.Column('last_quarter', sa.Integer, nullable=False),
        sa.Column('last_quarter_before', sa.Integer, nullable=True),
        sa.PrimaryKeyConstraint('operator_id', 'day', 'game', 'currency', 'player_id', name='pk_player_days'),
    )
    op.create_table(
        'player_counts',
        sa.Column('operator_id', ID, nullable=False),
        sa.Column('day', sa.BigInteger, nullable=False),
        sa.Column('game', sa.String(40), nullable=False),
        sa.Column('currency', sa.String(3), nullable=False),
        sa.Column('late', sa.Text, nullable=False),
        sa.Column('early', sa.Text, nullable=False),
        sa.Column('both', sa.Text, nullable=False),
        sa.PrimaryKeyConstraint('operator_id', 'day', 'game', 'currency', name='pk_player_counts'),
    )


def downgrade() -> None:
    for table in ('player_counts', 'player_days', 'quarter_totals', 'summarised_days'):
        op.drop_table(table)
