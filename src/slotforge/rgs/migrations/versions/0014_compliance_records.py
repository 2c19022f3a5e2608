"""compliance records: the change log (a hash chain) and the server's own secrets

Revision ID: 0014
Revises: 0012
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')

revision = '0014'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'change_log',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.Column('actor', sa.String(200), nullable=False),
        sa.Column('kind', sa.String(40), nullable=False),
        sa.Column('subject', sa.String(200), nullable=False),
        sa.Column('before', sa.Text, nullable=True),
        sa.Column('after', sa.Text, nullable=True),
        sa.Column('previous_hash', sa.String(64), nullable=False),
        sa.Column('hash', sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_change_log'),
        sa.UniqueConstraint('hash', name='uq_change_log_hash'),
        sqlite_autoincrement=True,
    )
    op.create_table(
        'server_secrets',
        sa.Column('name', sa.String(40), nullable=False),
        sa.Column('value', sa.String(200), nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint('name', name='pk_server_secrets'),
    )


def downgrade() -> None:
    op.drop_table('server_secrets')
    op.drop_table('change_log')
