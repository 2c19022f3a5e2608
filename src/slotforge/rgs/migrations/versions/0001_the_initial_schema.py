"""the initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('jackpot_pools',
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('current', sa.String(length=80), nullable=False),
    sa.Column('reserve', sa.String(length=80), nullable=False),
    sa.Column('contributed', sa.String(length=80), nullable=False),
    sa.Column('seeded', sa.String(length=80), nullable=False),
    sa.Column('paid', sa.String(length=80), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('name', name=op.f('pk_jackpot_pools'))
    )
    op.create_table('operators',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_operators')),
    sa.UniqueConstraint('key_hash', name=op.f('uq_operators_key_hash')),
    sa.UniqueConstraint('name', name=op.f('uq_operators_name'))
    )
    op.create_table('jackpot_entries',
    sa.Column('pool', sa.String(length=80), nullable=False),
    sa.Column('round_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('kind', sa.String(length=12), nullable=False),
    sa.Column('amount', sa.String(length=80), nullable=False),
    sa.Column('detail', sa.Text(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['pool'], ['jackpot_pools.name'], name=op.f('fk_jackpot_entries_pool')),
    sa.PrimaryKeyConstraint('pool', 'round_id', 'kind', name=op.f('pk_jackpot_entries'))
    )
    op.create_table('players',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('operator_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=True),
    sa.Column('external_id', sa.String(length=100), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('fun', sa.Boolean(), nullable=False),
    sa.Column('balance', sa.BigInteger(), nullable=False),
    sa.Column('last_round_at', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['operator_id'], ['operators.id'], name=op.f('fk_players_operator_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('operator_id', 'external_id', name=op.f('uq_players_operator_id'))
    )
    op.create_table('carried_state',
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('game', sa.String(length=40), nullable=False),
    sa.Column('state', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_carried_state_player_id')),
    sa.PrimaryKeyConstraint('player_id', 'game', name=op.f('pk_carried_state'))
    )
    op.create_table('idempotency',
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('request_hash', sa.String(length=64), nullable=False),
    sa.Column('status_code', sa.Integer(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_idempotency_player_id')),
    sa.PrimaryKeyConstraint('player_id', 'key', name=op.f('pk_idempotency'))
    )
    op.create_table('ledger',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('kind', sa.String(length=12), nullable=False),
    sa.Column('amount', sa.BigInteger(), nullable=False),
    sa.Column('round_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=True),
    sa.Column('reference', sa.String(length=100), nullable=True),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_ledger_player_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ledger')),
    sa.UniqueConstraint('player_id', 'reference', name=op.f('uq_ledger_player_id'))
    )
    with op.batch_alter_table('ledger', schema=None) as batch_op:
        batch_op.create_index('ix_ledger_round', ['round_id'], unique=False)

    op.create_table('sessions',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('jurisdiction', sa.String(length=40), nullable=False),
    sa.Column('language', sa.String(length=20), nullable=True),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('last_seen', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_sessions_player_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sessions')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_sessions_token_hash'))
    )
    op.create_table('autoplays',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('session_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('plan', sa.Text(), nullable=False),
    sa.Column('played', sa.Integer(), nullable=False),
    sa.Column('net', sa.BigInteger(), nullable=False),
    sa.Column('stopped', sa.String(length=40), nullable=True),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], name=op.f('fk_autoplays_session_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_autoplays'))
    )
    op.create_table('rounds',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('player_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('session_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('game', sa.String(length=40), nullable=False),
    sa.Column('status', sa.String(length=10), nullable=False),
    sa.Column('fun', sa.Boolean(), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('jurisdiction', sa.String(length=40), nullable=False),
    sa.Column('stake', sa.BigInteger(), nullable=False),
    sa.Column('win', sa.BigInteger(), nullable=False),
    sa.Column('jackpot_win', sa.BigInteger(), nullable=False),
    sa.Column('balance_before', sa.BigInteger(), nullable=False),
    sa.Column('balance_after', sa.BigInteger(), nullable=False),
    sa.Column('autoplay_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=True),
    sa.Column('record', sa.Text(), nullable=False),
    sa.Column('void_reason', sa.Text(), nullable=True),
    sa.Column('started_at', sa.BigInteger(), nullable=False),
    sa.Column('finished_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_rounds_player_id')),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], name=op.f('fk_rounds_session_id')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounds'))
    )
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.create_index('ix_rounds_player_id', ['player_id', 'id'], unique=False)
        batch_op.create_index('ix_rounds_status', ['status', 'started_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_index('ix_rounds_status')
        batch_op.drop_index('ix_rounds_player_id')

    op.drop_table('rounds')
    op.drop_table('autoplays')
    op.drop_table('sessions')
    with op.batch_alter_table('ledger', schema=None) as batch_op:
        batch_op.drop_index('ix_ledger_round')

    op.drop_table('ledger')
    op.drop_table('idempotency')
    op.drop_table('carried_state')
    op.drop_table('players')
    op.drop_table('jackpot_entries')
    op.drop_table('operators')
    op.drop_table('jackpot_pools')
