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

import asyncio
import fcntl
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, RootTransaction, create_engine, event
from sqlalchemy.engine import make_url

Result = TypeVar("Result")
WRITE = "slotforge_write"
# Connections kept open: at least the rounds in flight of a busy operator's lane (32) and the
# requests of the shared thread pool beside them, so a request seldom opens a new one.
POOL_SIZE = 40
POOL_OVERFLOW = 20
# Threads that run PostgreSQL's write jobs from the event loop (:meth:`Writer.run`). A job is a
# short transaction, mostly waiting on the database with the interpreter released; more threads
# only contend for the interpreter: straight rounds on 8 threads did 1,083 rounds/s at 0.90 ms of
# server CPU a round where 32 did 852 at 1.13 (in the same minutes on a 2-core machine). With the
# round one round trip (one call of a function), 16 threads measured no better than 8 and 4 worse.
WRITE_THREADS = 8


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


class ProcessesTurn:
    """The turn of one process at a SQLite database's write lock, among every server process
    writing to the file: an exclusive ``flock`` on a file beside the database
    (``FILE.writers-lock``), taken before ``BEGIN IMMEDIATE`` and given back after the commit.

    SQLite's own wait for its write lock is a busy handler that sleeps and tries again (1, 2, 5,
    10 ms, up to 100 ms between tries): while one process commits batch after batch, another
    one's writers sleep through the gaps, and its answers wait for hundreds of milliseconds. A
    process blocked on ``flock`` is woken as soon as the lock is given back. (The lock file is
    not the database: closing a descriptor of the database would drop SQLite's own locks.)
    Writers that do not take this turn (a command-line tool) still meet SQLite's busy handler.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: int | None = None

    def take(self) -> None:
        if self._file is None:
            self._file = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._file, fcntl.LOCK_EX)

    def give_back(self) -> None:
        fcntl.flock(self._file, fcntl.LOCK_UN)


def beside_database(engine: Engine, suffix: str) -> str | None:
    """The path of a file beside a SQLite database file (its name and ``suffix``), where the
    server processes sharing the file meet; None for PostgreSQL or a database in memory."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return None
    return f"{database}{suffix}"


def processes_turn(engine: Engine) -> ProcessesTurn | None:
    """The cross-process turn at the write lock of a SQLite database file (None in memory)."""
    path = beside_database(engine, ".writers-lock")
    return ProcessesTurn(path) if path else None


class Batch:
    """One shared write transaction: its writers, and the outcome of its commit."""

    def __init__(self, engine: Engine, turn: ProcessesTurn | None = None) -> None:
        self.turn = turn
        if turn is not None:
            turn.take()
        try:
            self.connection = write_connection(engine)
            self.transaction: RootTransaction = self.connection.begin()
        except BaseException:
            if turn is not None:
                turn.give_back()
            raise
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
            if self.turn is not None:
                self.turn.give_back()
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
        self._processes_turn = processes_turn(engine)

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A savepoint in the shared transaction; returns (or raises) once the batch is committed."""
        batch = self._begin_turn()
        failure: BaseException | None = None
        try:
            with savepoint(batch.connection):
                yield batch.connection
        except BaseException as error:
            failure = error
        finally:
            self._end_turn(batch, 1)
        batch.committed.wait()
        if failure is not None:
            raise failure
        if batch.error is not None:
            raise batch.error

    def run_all(self, jobs: list[Callable[[Connection], Any]]) -> list[tuple[Any, Exception | None]]:
        """Run ``jobs`` one after another in one turn, each in a savepoint of its own (a job that
        raises is rolled back alone); once the batch is committed, each job's ``(result, error)``."""
        batch = self._begin_turn()
        outcomes: list[tuple[Any, Exception | None]] = []
        try:
            for job in jobs:
                try:
                    with savepoint(batch.connection):
                        outcomes.append((job(batch.connection), None))
                except Exception as error:
                    outcomes.append((None, error))
        finally:
            self._end_turn(batch, len(jobs))
        batch.committed.wait()
        if batch.error is not None:  # nothing of the batch is on disk
            error = batch.error if isinstance(batch.error, Exception) else RuntimeError(repr(batch.error))
            return [(None, error)] * len(jobs)
        return outcomes

    def _begin_turn(self) -> Batch:
        """Wait for the turn (writers queued are counted: the last of a turn commits); the open batch."""
        with self._count:
            self._queued += 1
        self._turn.acquire()
        with self._count:
            self._queued -= 1
        try:
            batch = self._batch = self._batch or Batch(self.engine, self._processes_turn)
        except BaseException:
            self._turn.release()
            raise
        return batch

    def _end_turn(self, batch: Batch, writers: int) -> None:
        """Count the turn's writers into the batch; commit it if nobody waits or it is full."""
        try:
            batch.writers += writers
            if batch.writers >= self.largest or not self._queued:
                self._batch = None
                batch.commit()
        finally:
            self._turn.release()


class Batches:
    """Write jobs handed over by the event loop, run by one thread of their own in turns of
    :class:`GroupCommit`: each turn takes every job queued while the last one committed, so a
    burst of rounds shares one commit without a thread (or a thread hop) per round."""

    def __init__(self, group: GroupCommit) -> None:
        self.group = group
        self._jobs: queue.SimpleQueue[tuple[Callable[[Connection], Any], asyncio.AbstractEventLoop, asyncio.Future]] \
            = queue.SimpleQueue()
        self._starting = threading.Lock()
        self._thread: threading.Thread | None = None

    async def run(self, job: Callable[[Connection], Result]) -> Result:
        """``job(conn)`` in the next turn's savepoint; its result (or error) once committed."""
        self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        self._jobs.put((job, loop, future))
        return await future

    def _start(self) -> None:
        if self._thread is None:
            with self._starting:
                if self._thread is None:  # a daemon: an unacknowledged write must not hold up an exit
                    self._thread = threading.Thread(target=self._serve, name="batched-writes", daemon=True)
                    self._thread.start()

    def _serve(self) -> None:
        while True:
            taken = [self._jobs.get()]
            while len(taken) < self.group.largest:
                try:
                    taken.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            outcomes = self.group.run_all([job for job, _loop, _future in taken])
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future, Any, Exception | None]]] = {}
            for (_job, loop, future), outcome in zip(taken, outcomes, strict=True):
                by_loop.setdefault(loop, []).append((future, *outcome))
            for loop, settled in by_loop.items():  # one wake-up of each loop for the batch
                try:
                    loop.call_soon_threadsafe(settle, settled)
                except RuntimeError:  # that loop is closed: nobody waits there any more
                    pass


def settle(settled: list[tuple[asyncio.Future, Any, Exception | None]]) -> None:
    """Hand each job's outcome to its waiter (gone if its request was cancelled meanwhile)."""
    for future, result, error in settled:
        if future.cancelled():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


@contextmanager
def savepoint(connection: Connection) -> Iterator[None]:
    """A savepoint of one writer in a shared transaction: released when the block ends, rolled
    back alone if it raises. Written as plain SQL: SQLAlchemy's ``begin_nested`` names each
    savepoint anew and so compiles a statement for every writer."""
    driver = connection.connection.driver_connection  # past SQLAlchemy's execution layer: see slotforge.db.driver
    driver.execute("SAVEPOINT writer")
    try:
        yield
    except BaseException:
        given = ids_given(driver)
        driver.execute("ROLLBACK TO SAVEPOINT writer")
        keep_ids_given(driver, given)
        driver.execute("RELEASE SAVEPOINT writer")
        raise
    driver.execute("RELEASE SAVEPOINT writer")


def ids_given(driver: Any) -> list[tuple[str, int]]:
    """The highest id each ``AUTOINCREMENT`` table of a SQLite database has given (none without
    such a table)."""
    try:
        return driver.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
    except sqlite3.OperationalError:  # no such table
        return []


def keep_ids_given(driver: Any, given: list[tuple[str, int]]) -> None:
    """After a rollback, the ids given before it stay given: SQLite rolls ``sqlite_sequence`` back
    with the rows, and would give a rolled-back row's id again, to a row a claim or message made
    for the first one would then name."""
    if given:  # (a database without an AUTOINCREMENT table has no sqlite_sequence to update)
        driver.executemany("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?",
                           [(seq, name) for name, seq in given])


class Writer:
    """Opens a process's write transactions on ``engine``: on SQLite through one
    :class:`GroupCommit` (its one writer at a time queues on a fair, prompt lock, where SQLite's
    busy handler sleeps and retries, and shares commits), on PostgreSQL one transaction each.
    On SQLite, :attr:`batches` takes write jobs from the event loop into the same commits."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._group = GroupCommit(engine) if engine.dialect.name == "sqlite" else None
        self.batches = Batches(self._group) if self._group is not None else None
        self._threads = None if self._group is not None else ThreadPoolExecutor(WRITE_THREADS, "writes")
        # Told of each statement sent straight to the driver in its transactions (see slotforge.db.driver).
        self.listeners: list[Callable[[str], None]] = []

    async def run(self, job: Callable[[Connection], Result]) -> Result:
        """``job(conn)`` in a write transaction, handed over by the event loop; its result once
        committed. On SQLite in the next shared commit of the batched writes; on PostgreSQL in a
        transaction of its own on one of a few threads kept for writes."""
        if self.batches is not None:
            return await self.batches.run(job)
        return await asyncio.get_running_loop().run_in_executor(self._threads, self._in_transaction, job)

    def _in_transaction(self, job: Callable[[Connection], Result]) -> Result:
        with self() as conn:
            return job(conn)

    async def run_autocommit(self, job: Callable[[Any], Result]) -> Result:
        """PostgreSQL only: ``job(driver_connection)`` on one of the write threads, the driver's
        connection (psycopg's) in autocommit, so that each statement the job sends is a
        transaction of its own: no ``BEGIN`` and no ``COMMIT``, each a round trip. For a job
        whose one statement is its whole transaction (a call of a database function)."""
        if self._threads is None:
            raise RuntimeError("autocommit write jobs are for PostgreSQL (SQLite batches its writes)")
        return await asyncio.get_running_loop().run_in_executor(self._threads, self._autocommitted, job)

    def _autocommitted(self, job: Callable[[Any], Result]) -> Result:
        with autocommit(self.engine) as driver:
            return job(driver)

    @contextmanager
    def __call__(self) -> Iterator[Connection]:
        """A write transaction: committed when the block ends, rolled back if it raises."""
        if self._group is None:
            with write_transaction(self.engine) as conn:
                yield conn
            return
        with self._group.transaction() as conn:
            yield conn


@contextmanager
def autocommit(engine: Engine) -> Iterator[Any]:
    """A pooled PostgreSQL connection's driver connection in autocommit, back in the pool as the
    others are (autocommit off) afterwards. Setting psycopg's ``autocommit`` sends nothing to
    the database, and neither does the pool's rollback on return, as no transaction is open."""
    pooled = engine.raw_connection()
    driver = pooled.driver_connection
    driver.autocommit = True
    try:
        yield driver
    finally:
        try:
            driver.autocommit = False
        except Exception:  # the connection broke (psycopg refuses the change then): not for the pool
            pooled.invalidate()
        pooled.close()


def write_connection(engine: Engine) -> Connection:
    """A connection whose transactions take the write lock at their start."""
    return engine.connect().execution_options(**{WRITE: True})

