"""Connecting to the database and bringing its schema up to date.

SQLite runs in WAL mode with ``synchronous=FULL`` (a commit is on disk before the reply); a
write transaction takes the write lock at its start (``BEGIN IMMEDIATE``), so that two requests
never both read a balance and then both write it, while readers read a snapshot unblocked.
PostgreSQL locks the player's row (``SELECT ... FOR UPDATE``) for the same end.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url

log = logging.getLogger("slotforge.rgs")

WRITE = "slotforge_write"
MIGRATIONS = Path(__file__).with_name("migrations")
# Any fixed number: the PostgreSQL advisory lock that lets one server at a time migrate.
MIGRATION_LOCK = 0x51077F0A6E


def connect(url: str) -> Engine:
    """An engine for ``url`` (``sqlite:///FILE`` or ``postgresql+psycopg://...``)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite(url)
    if parsed.get_backend_name() != "postgresql":
        raise ValueError(f"database: expected a sqlite:/// or postgresql+psycopg:// URL, got {url!r}")
    return create_engine(url, pool_size=20, max_overflow=40, pool_pre_ping=True)


def _sqlite(url: str) -> Engine:
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 60}, pool_size=20,
                           max_overflow=40)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        # Writers take the write lock up front; readers read a snapshot and never block.
        immediate = connection.get_execution_options().get(WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A transaction that will write: on SQLite it holds the write lock from its first statement,
    so that what it reads (a balance) cannot change before it writes."""
    with engine.connect() as connection:
        connection = connection.execution_options(**{WRITE: True})
        with connection.begin():
            yield connection


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration (one process at a time)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    log.info("database schema is up to date (%s)", engine.url.render_as_string(hide_password=True))
