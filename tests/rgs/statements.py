"""Counting the SQL statements and commits a server sends, for the tests that bound a round's."""

from __future__ import annotations

import re

from sqlalchemy import event

CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.IGNORECASE)


class Counter:
    """The statements and commits a server sends while counting: through its engine, and those
    its write transactions send straight to the database's driver."""

    def __init__(self, server) -> None:
        self.statements: list[str] = []
        self.commits = 0
        self.counting = False
        event.listen(server.engine, "before_cursor_execute", self._statement)
        event.listen(server.engine, "commit", self._commit)
        server.transaction.listeners.append(self._sent)

    def _statement(self, _conn, _cursor, statement, *_args) -> None:
        self._sent(statement)

    def _sent(self, statement: str) -> None:
        if self.counting and not CONTROL.match(statement):
            self.statements.append(statement.strip().split("\n")[0][:80])

    def _commit(self, _conn) -> None:
        if self.counting:
            self.commits += 1


