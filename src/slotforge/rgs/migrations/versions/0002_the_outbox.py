"""the outbox: messages owed to other systems (wallet credits and rollbacks, jackpot calls)

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade() -> None:
    op.create_table('outbox',
    sa.Column('id', Id, autoincrement=True, nullable=False),
    sa.Column('target', sa.String(length=20), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('round_id', Id, nullable=True),
    sa.Column('payload', sa.Text(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('due_at', sa.BigInteger(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('delivered_at', sa.BigInteger(), nullable=True),
    sa.Column('answer', sa.Text(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_outbox')),
    sa.UniqueConstraint('target', 'key', name=op.f('uq_outbox_target'))
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.create_index('ix_outbox_due', ['delivered_at', 'due_at'], unique=False)
        batch_op.create_index('ix_outbox_round', ['round_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_round')
        batch_op.drop_index('ix_outbox_due')
    op.drop_table('outbox')
