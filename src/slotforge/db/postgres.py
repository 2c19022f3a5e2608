"""PostgreSQL reached from the event loop, for the statements on a request's hottest path.

A transaction run through SQLAlchemy's (synchronous) engine needs a thread, a hop to it and back,
and SQLAlchemy's execution layer around every statement: together more server time than the
round itself. :class:`LoopDatabase` runs a transaction on the event loop instead, on psycopg's
asynchronous connections in pipeline mode, so that a ``BEGIN`` travels with the first statement
and nothing waits for a thread.

The statements themselves stay SQLAlchemy constructs, written beside their SQLite twins;
:func:`postgres_text` compiles one to the text psycopg sends (named ``%(name)s`` parameters, each
cast to its declared type), which the caller keeps.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus
from sqlalchemy.dialects.postgresql import psycopg as psycopg_dialect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.sql import ClauseElement

DIALECT = psycopg_dialect.dialect()
# Transactions a process runs at once on its event loop: each holds a connection for a few round
# trips only, so a few connections serve dozens of rounds in flight; the next wait (cheaply).
CONNECTIONS = 8


def postgres_text(statement: ClauseElement) -> str:
    """The SQL text psycopg sends for ``statement``."""
    return str(statement.compile(dialect=DIALECT))


def conninfo(url: str | URL) -> str:
    """A libpq connection URI for SQLAlchemy's ``postgresql+psycopg://`` URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class LoopDatabase:
    """Transactions on the running event loop, on asynchronous connections kept for the next.

    Its connections are not tied to an event loop (an idle one holds no task or watcher), so a
    test client that starts an event loop per request shares them too. That is why this is not
    ``psycopg_pool``: its pool belongs to the loop that opened it, runs worker tasks there, and
    keeps a loop that ends from finishing. At most ``size`` transactions run at once per loop;
    the next wait their turn."""

    def __init__(self, url: str | URL, size: int = CONNECTIONS) -> None:
        self.conninfo = conninfo(url)
        self.size = size
        self._idle: list[psycopg.AsyncConnection] = []
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
            weakref.WeakKeyDictionary()
        # Called with each statement's text before it is sent, and "COMMIT" after each commit (the
        # tests that count a round's statements listen).
        self.listeners: list[Callable[[str], None]] = []

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """A transaction in pipeline mode: committed when the block ends, rolled back if it raises."""
        async with self._connection() as connection, connection.pipeline():
            async with connection.transaction():
                yield Transaction(connection, self.listeners)
            for listener in self.listeners:
                listener("COMMIT")

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[psycopg.AsyncConnection]:
        """An idle connection (a new one if none is idle), kept again afterwards if it is sound."""
        async with self._turn():
            connection = self._idle.pop() if self._idle else await psycopg.AsyncConnection.connect(
                self.conninfo, autocommit=True)
            try:
                yield connection
            finally:
                if connection.closed or connection.info.transaction_status != TransactionStatus.IDLE:
                    await connection.close()  # broken, or left mid-transaction by a cancelled request
                else:
                    self._idle.append(connection)

    def _turn(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        turns = self._turns.get(loop)
        if turns is None:
            turns = self._turns[loop] = asyncio.Semaphore(self.size)
        return turns

    async def close(self) -> None:
        """Close the idle connections (the server is stopping)."""
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()


class Transaction:
    """Statements of one transaction on one connection."""

    def __init__(self, connection: psycopg.AsyncConnection, listeners: list[Callable[[str], None]]) -> None:
        self.connection = connection
        self.listeners = listeners

    async def first(self, text: str, parameters: dict[str, Any]) -> tuple | None:
        """Run the statement ``text`` (see :func:`postgres_text`); its first row, or None: the
        pipeline is sent up to here and its answers awaited."""
        cursor = await self.send(text, parameters)
        return await cursor.fetchone()

    async def send(self, text: str, parameters: dict[str, Any]) -> psycopg.AsyncCursor:
        """Queue the statement ``text``: it leaves with the next statement whose row is awaited, or
        with the commit."""
        for listener in self.listeners:
            listener(text)
        return await self.connection.execute(text, parameters)
