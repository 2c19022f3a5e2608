"""a request's stored answer may be a pointer to its round instead of a second copy of it

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('idempotency', schema=None) as batch_op:
        batch_op.add_column(sa.Column('round_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'),
                                      nullable=True))
        batch_op.alter_column('body', existing_type=sa.Text(), nullable=True)


def downgrade() -> None:
    with op.batch_alter_table('idempotency', schema=None) as batch_op:
        batch_op.alter_column('body', existing_type=sa.Text(), nullable=False)
        batch_op.drop_column('round_id')
