"""ids never reused on SQLite; rounds found by the time they finished

On SQLite a table without ``AUTOINCREMENT`` gives a new row the highest id in it plus one: the id
of a round whose transaction rolled back (or of fun rounds deleted) is given again. A jackpot
claim or a wallet call made for the round that never committed, and still about, then names an
unrelated round. The rounds, the ledger and the outbox are rebuilt with ``AUTOINCREMENT`` (alembic's
batch mode: a copy of the table, its rows and indexes), which keeps in ``sqlite_sequence`` the
highest id ever given, here the highest id in the table. PostgreSQL's sequences never give an id
twice already, whatever rolls back.

The back office's reports read the completed rounds finished in a range of time: an index of the
rounds by status and finish time, so that a report reads its range rather than the operator's
every round. At a SQLite server's start ``slotforge.rgs.schema.migrate`` also moves the ids on past
those a transaction cut short by a crash may have given.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

NEVER_REUSED = ("rounds", "ledger", "outbox")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for table in NEVER_REUSED:
            rebuild(table, autoincrement=True)
    op.create_index('ix_rounds_finished', 'rounds', ['status', 'finished_at'])


def downgrade() -> None:
    op.drop_index('ix_rounds_finished', table_name='rounds')
    if op.get_bind().dialect.name == "sqlite":
        for table in NEVER_REUSED:
            rebuild(table, autoincrement=False)


def rebuild(table: str, autoincrement: bool) -> None:
    """Copy the SQLite table ``table`` into one declared with or without ``AUTOINCREMENT``."""
    with op.batch_alter_table(table, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}):
        pass
