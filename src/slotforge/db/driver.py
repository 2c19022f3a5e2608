"""Statements sent straight to the database driver, for the few on a request's hottest path.

SQLAlchemy's execution layer (a context per statement, its parameters processed, a result
wrapped around the cursor) costs about as much server time as the statement itself: a
round-shaped transaction of three statements takes a third less CPU when they go to the
driver's own connection (``python bench/bench_statements.py``: 0.64 of SQLAlchemy's on SQLite,
0.66 on PostgreSQL, the transaction's begin and commit included in both). A
:class:`DriverStatement` is a SQLAlchemy construct compiled once to the text the driver takes
(named parameters, each cast to its declared type on PostgreSQL), with any constants the
construct holds; a :class:`DriverTransaction` runs such statements on the driver connection,
either under a SQLAlchemy connection's open transaction, which still begins, commits and rolls
back as everywhere else, or on a PostgreSQL connection in autocommit, where a statement is a
transaction of its own (a call of a function that does a whole transaction).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement

DIALECTS: dict[str, Dialect] = {
    "sqlite": sqlite.dialect(paramstyle="named"),  # sqlite3 takes ``:name``
    "postgresql": postgresql.psycopg.dialect(),  # psycopg takes ``%(name)s``
}

# Called with each driver statement's text before it is sent (the tests that count a round's
# statements listen here, as SQLAlchemy's events do not see these).
Listener = Callable[[str], None]


@dataclass(frozen=True)
class DriverStatement:
    """A statement as its database's driver takes it."""

    text: str
    constants: dict[str, Any]  # values the construct itself holds (a literal compared with, say)

    @classmethod
    def of(cls, statement: ClauseElement, dialect: str) -> DriverStatement:
        compiled = statement.compile(dialect=DIALECTS[dialect])
        constants = {name: value for name, value in compiled.params.items()
                     if name in compiled.binds and compiled.binds[name].value is not None}
        return cls(str(compiled), constants)

    def parameters(self, given: dict[str, Any]) -> dict[str, Any]:
        return {**self.constants, **given} if self.constants else given


class DriverTransaction:
    """Driver statements on ``conn``: a SQLAlchemy connection, inside its open transaction; or a
    PostgreSQL driver connection in autocommit (:func:`slotforge.db.engine.autocommit`), where
    each statement is a transaction of its own."""

    def __init__(self, conn: Connection | Any, listeners: Sequence[Listener] = ()) -> None:
        self.driver = conn.connection.driver_connection if isinstance(conn, Connection) else conn
        self.listeners = listeners

    def first(self, statement: DriverStatement, parameters: dict[str, Any]) -> tuple | None:
        """Run ``statement``; its first row (None if it returns none)."""
        rows = self._cursor(statement, parameters).fetchall()  # to the end: SQLite's RETURNING is done then
        return tuple(rows[0]) if rows else None

    def send(self, statement: DriverStatement, parameters: dict[str, Any]) -> None:
        """Run ``statement``, which returns no rows."""
        self._cursor(statement, parameters).close()

    def send_many(self, statement: DriverStatement, rows: list[dict[str, Any]]) -> None:
        """Run ``statement`` once for each of ``rows``."""
        for listener in self.listeners:
            listener(statement.text)
        cursor = self.driver.cursor()
        try:
            cursor.executemany(statement.text, [statement.parameters(row) for row in rows])
        finally:
            cursor.close()

    def _cursor(self, statement: DriverStatement, parameters: dict[str, Any]):
        for listener in self.listeners:
            listener(statement.text)
        return self.driver.execute(statement.text, statement.parameters(parameters))
