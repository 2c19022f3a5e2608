"""operator keys and back-office users: several named, scoped keys per operator (the existing key
moved in as a full-scope key named "default"), people with roles and their sessions

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'operator_keys',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('operator_id', ID, nullable=False),
        sa.Column('name', sa.String(60), nullable=False),
        sa.Column('key_hash', sa.String(64), nullable=False),
        sa.Column('scopes', sa.String(40), nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.Column('last_used_at', sa.BigInteger, nullable=True),
        sa.Column('revoked_at', sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_operator_keys'),
        sa.ForeignKeyConstraint(['operator_id'], ['operators.id'], name='fk_operator_keys_operator_id'),
        sa.UniqueConstraint('key_hash', name='uq_operator_keys_key_hash'),
    )
    op.create_index('ix_operator_keys_operator_id', 'operator_keys', ['operator_id'])
    # Every operator's one key until now keeps working: a key of every scope, named "default".
    op.execute("INSERT INTO operator_keys (operator_id, name, key_hash, scopes, created_at) "
               "SELECT id, 'default', key_hash, 'rounds read write', created_at FROM operators")
    op.create_table(
        'office_users',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('operator_id', ID, nullable=False),
        sa.Column('name', sa.String(100), nullable=False),
        sa.Column('password_hash', sa.String(200), nullable=False),
        sa.Column('role', sa.String(12), nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.Column('failed_logins', sa.Integer, nullable=False, server_default='0'),
        sa.Column('locked_until', sa.BigInteger, nullable=True),
        sa.Column('disabled_at', sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_office_users'),
        sa.ForeignKeyConstraint(['operator_id'], ['operators.id'], name='fk_office_users_operator_id'),
        sa.UniqueConstraint('name', name='uq_office_users_name'),
    )
    op.create_table(
        'office_sessions',
        sa.Column('id', ID, autoincrement=True, nullable=False),
        sa.Column('user_id', ID, nullable=False),
        sa.Column('token_hash', sa.String(64), nullable=False),
        sa.Column('csrf_hash', sa.String(64), nullable=False),
        sa.Column('created_at', sa.BigInteger, nullable=False),
        sa.Column('last_seen', sa.BigInteger, nullable=False),
        sa.Column('ended_at', sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_office_sessions'),
        sa.ForeignKeyConstraint(['user_id'], ['office_users.id'], name='fk_office_sessions_user_id'),
        sa.UniqueConstraint('token_hash', name='uq_office_sessions_token_hash'),
    )
    # The round page asks the log who voided a round.
    op.create_index('ix_change_log_subject', 'change_log', ['subject'])


def downgrade() -> None:
    op.drop_index('ix_change_log_subject', 'change_log')
    op.drop_table('office_sessions')
    op.drop_table('office_users')
    op.drop_index('ix_operator_keys_operator_id', 'operator_keys')
    op.drop_table('operator_keys')
