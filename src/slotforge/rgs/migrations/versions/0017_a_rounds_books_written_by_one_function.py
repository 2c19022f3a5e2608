"""a round's ledger entries and key written by one function, which both round functions call

``slotforge_play_round`` (the straight round) and ``slotforge_settle_at_wallet`` (a round at a
seamless wallet) each wrote the round's ledger entries and its request's key with the same
statements. ``slotforge_book_round`` (``rgs/sql/book_round.sql``) now writes them, and both call
it. This migration installs the three functions' text of today (``slotforge/rgs/sql``). A
downgrade keeps them: the files alone hold the functions (a downgrade serves to migrate again,
with this version's code), and the two round functions of today call the new one.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

from alembic import op

from slotforge.rgs import sql

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    sql.install(op.get_bind(), "book_round", "play_round", "settle_at_wallet")


def downgrade() -> None:
    pass
