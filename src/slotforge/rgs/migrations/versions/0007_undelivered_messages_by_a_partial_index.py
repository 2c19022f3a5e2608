"""the outbox's undelivered messages found by a partial index, whatever the number delivered

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

UNDELIVERED = sa.text("delivered_at IS NULL")


def upgrade() -> None:
    op.create_index('ix_outbox_undelivered', 'outbox', ['target', 'id'], postgresql_where=UNDELIVERED,
                    sqlite_where=UNDELIVERED)
    op.drop_index('ix_outbox_due', table_name='outbox')


def downgrade() -> None:
    op.create_index('ix_outbox_due', 'outbox', ['delivered_at', 'due_at'])
    op.drop_index('ix_outbox_undelivered', table_name='outbox')
