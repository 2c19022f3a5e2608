"""Claims on idempotency keys that every server process on one database sees.

While a request runs, its (player, key) is claimed; a twin request, whatever process it reaches,
finds the claim and answers 409 ``REQUEST_IN_PROGRESS`` at once instead of waiting. A claim dies
with the request's transaction or process (``kill -9`` included): it is never left behind.

- PostgreSQL: a transaction-level advisory lock (``pg_try_advisory_xact_lock``), taken as the
  transaction's first statement and released by its commit or rollback.
- SQLite: a byte-range lock (POSIX ``fcntl``) at the key's offset in a lock file beside the
  database (``FILE-claims``, which stays empty), taken before the write transaction begins and
  released once it is committed; the kernel drops it when a process dies.

Threads of one process are kept apart before this (POSIX locks belong to a process).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text

from slotforge.db.engine import beside_database
from slotforge.rgs.errors import RequestInProgress

TRY_ADVISORY = text("SELECT pg_try_advisory_xact_lock(:claim)")
# Byte offsets of SQLite claims: a 62-bit hash makes two keys sharing a lock vanishingly rare.
OFFSETS = 1 << 62


def claim_number(player_id: int, key: str) -> int:
    """The signed 64-bit number a (player, key) claim is known by."""
    digest = hashlib.sha256(f"{player_id}\n{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def in_progress() -> RequestInProgress:
    return RequestInProgress("a request with this Idempotency-Key is still running")


class Claims:
    """The claims of one database (see the module's description)."""

    def __init__(self, engine: Engine) -> None:
        self.postgres = engine.dialect.name == "postgresql"
        self._file: int | None = None
        self._opening = threading.Lock()
        self.path = beside_database(engine, "-claims")

    @contextmanager
    def outside(self, player_id: int, key: str) -> Iterator[None]:
        """Hold the SQLite claim around a write transaction (raises 409 if another process holds
        it); nothing on PostgreSQL, whose claim is taken inside the transaction."""
        if self.path is None:
            yield
            return
        offset = claim_number(player_id, key) % OFFSETS
        descriptor = self._descriptor()
        try:
            fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
        except OSError as error:
            raise in_progress() from error
        try:
            yield
        finally:
            fcntl.lockf(descriptor, fcntl.LOCK_UN, 1, offset)

    def inside(self, conn: Connection, player_id: int, key: str) -> None:
        """Take the PostgreSQL claim as the transaction's first statement (409 if another
        transaction holds it)."""
        if self.postgres and not conn.execute(TRY_ADVISORY, {"claim": claim_number(player_id, key)}).scalar_one():
            raise in_progress()

    def _descriptor(self) -> int:
        # One descriptor for the process's life: closing any descriptor of the file would drop
        # every POSIX lock this process holds on it.
        with self._opening:
            if self._file is None:
                self._file = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            return self._file
