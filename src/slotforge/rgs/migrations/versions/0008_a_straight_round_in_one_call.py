"""PostgreSQL: a straight round of the internal wallet is one call of a function, one round trip

``slotforge_play_round`` does in one statement what a straight round's transaction did in four
round trips (``BEGIN``, two statements, ``COMMIT``): see ``slotforge/rgs/rounds/straight.py``.
Its text is ``slotforge/rgs/sql/play_round.sql``, as the code of today calls it. SQLite has no
such functions, and needs none (its statements are calls inside the process): there this
migration does nothing.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from alembic import op

from slotforge.rgs import sql

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    sql.install(op.get_bind(), "play_round")


def downgrade() -> None:
    sql.drop(op.get_bind(), "play_round")
