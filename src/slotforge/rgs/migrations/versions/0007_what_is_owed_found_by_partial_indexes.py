"""what is still owed found by partial indexes, whatever the history: the outbox's undelivered
messages, and a seamless player's wins not yet credited

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
CREDIT_PENDING = sa.text("wallet_status = 'credit_pending'")


def upgrade() -> None:
    op.create_index('ix_outbox_undelivered', 'outbox', ['target', 'id'], postgresql_where=UNDELIVERED,
                    sqlite_where=UNDELIVERED)
    op.drop_index('ix_outbox_due', table_name='outbox')
    op.create_index('ix_rounds_credit_pending', 'rounds', ['player_id'], postgresql_where=CREDIT_PENDING,
                    sqlite_where=CREDIT_PENDING)


def downgrade() -> None:
    op.drop_index('ix_rounds_credit_pending', table_name='rounds')
    op.create_index('ix_outbox_due', 'outbox', ['delivered_at', 'due_at'])
    op.drop_index('ix_outbox_undelivered', table_name='outbox')
