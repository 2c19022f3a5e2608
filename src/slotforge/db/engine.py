"""Connecting to the database and committing writes durably.

SQLite runs in WAL mode with ``synchronous=FULL`` (a commit is on disk before the reply); a
write transaction takes the write lock at its start (``BEGIN IMMEDIATE``), so that two requests
never both read a balance and then both write it, while readers read a snapshot unblocked.
The writers of one process share transactions (:class:`GroupCommit`): one commit, one disk
flush, for every request that queued meanwhile. On PostgreSQL a writer locks the row it will
change (``SELECT ... FOR UPDATE``: the game server a player's, the jackpot service a pool's) for
the same end, and PostgreSQL groups concurrent commits itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, RootTransaction, create_engine, event
from sqlalchemy.engine import make_url

WRITE = "slotforge_write"
# Connections kept open: at least the rounds in flight of a busy operator's lane (32) and the
# requests of the shared thread pool beside them, so a request seldom opens a new one.
POOL_SIZE = 40
POOL_OVERFLOW = 20


def connect(url: str) -> Engine:
    """An engine for ``url`` (``sqlite:///FILE`` or ``postgresql+psycopg://...``)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite(url)
    if parsed.get_backend_name() != "postgresql":
        raise ValueError(f"database: expected a sqlite:/// or postgresql+psycopg:// URL, got {url!r}")
    # No pre-ping: a round trip per checkout is a fifth of a round's; a connection the database
    # dropped fails its request once and the pool is renewed.
    return create_engine(url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)


def _sqlite(url: str) -> Engine:
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 60}, pool_size=POOL_SIZE,
                           max_overflow=POOL_OVERFLOW)

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
    with write_connection(engine) as connection, connection.begin():
        yield connection


class Batch:
    """One shared write transaction: its writers, and the outcome of its commit."""

    def __init__(self, engine: Engine) -> None:
        self.connection = write_connection(engine)
        self.transaction: RootTransaction = self.connection.begin()
        self.writers = 0
        self.committed = threading.Event()
        self.error: BaseException | None = None

    def commit(self) -> None:
        """Commit (one disk flush for every writer); on failure every writer is told."""
        try:
            self.transaction.commit()
        except BaseException as error:
            self.error = error
            self.transaction.rollback()
        finally:
            self.connection.close()
            self.committed.set()


class GroupCommit:
    """Group commit for SQLite: the writers of this process take turns on one open transaction,
    each inside its own savepoint (rolled back alone if it fails), and the last writer of a turn
    with nobody queued behind it (or the ``largest``-th) commits for all of them. No writer
    answers before that commit: what is acknowledged is on disk, as with a commit per request,
    but a disk flush (milliseconds) is paid once per batch instead of once per request.
    """

    def __init__(self, engine: Engine, largest: int = 32) -> None:
        self.engine = engine
        self.largest = largest
        self._turn = threading.Lock()  # one writer at a time (SQLite has one writer anyway)
        self._count = threading.Lock()
        self._queued = 0
        self._batch: Batch | None = None

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A savepoint in the shared transaction; returns (or raises) once the batch is committed."""
        with self._count:
            self._queued += 1
        self._turn.acquire()
        with self._count:
            self._queued -= 1
        try:
            batch = self._batch = self._batch or Batch(self.engine)
        except BaseException:
            self._turn.release()
            raise
        failure: BaseException | None = None
        try:
            with savepoint(batch.connection):
                yield batch.connection
        except BaseException as error:
            failure = error
        finally:
            batch.writers += 1
            if batch.writers >= self.largest or not self._queued:
                self._batch = None
                batch.commit()
            self._turn.release()
        batch.committed.wait()
        if failure is not None:
            raise failure
        if batch.error is not None:
            raise batch.error


@contextmanager
def savepoint(connection: Connection) -> Iterator[None]:
    """A savepoint of one writer in a shared transaction: released when the block ends, rolled
    back alone if it raises. Written as plain SQL: SQLAlchemy's ``begin_nested`` names each
    savepoint anew and so compiles a statement for every writer."""
    connection.exec_driver_sql("SAVEPOINT writer")
    try:
        yield
    except BaseException:
        connection.exec_driver_sql("ROLLBACK TO SAVEPOINT writer")
        connection.exec_driver_sql("RELEASE SAVEPOINT writer")
        raise
    connection.exec_driver_sql("RELEASE SAVEPOINT writer")


class Writer:
    """Opens a process's write transactions on ``engine``: on SQLite through one
    :class:`GroupCommit` (its one writer at a time queues on a fair, prompt lock, where SQLite's
    busy handler sleeps and retries, and shares commits), on PostgreSQL one transaction each."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._group = GroupCommit(engine) if engine.dialect.name == "sqlite" else None

    @contextmanager
    def __call__(self) -> Iterator[Connection]:
        """A write transaction: committed when the block ends, rolled back if it raises."""
        if self._group is None:
            with write_transaction(self.engine) as conn:
                yield conn
            return
        with self._group.transaction() as conn:
            yield conn


def write_connection(engine: Engine) -> Connection:
    """A connection whose transactions take the write lock at their start."""
    return engine.connect().execution_options(**{WRITE: True})

