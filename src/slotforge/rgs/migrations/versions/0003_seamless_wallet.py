"""the seamless wallet: a player's wallet, a round's debit transaction and its settlement

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('wallet', sa.String(length=12), nullable=False, server_default='internal'))
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.add_column(sa.Column('wallet_tx', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('wallet_status', sa.String(length=20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_column('wallet_status')
        batch_op.drop_column('wallet_tx')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('wallet')
