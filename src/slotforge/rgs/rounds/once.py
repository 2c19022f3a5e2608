"""One guard for twin requests: every request that takes an Idempotency-Key goes through
:class:`Once`, whichever path it takes.

- **Same key, same request** (its path and body, :func:`request_hash`): the first request's
  answer, as stored with the key in the transaction that did its work (a round's answer is the
  round as committed, recalled from the round's row).
- **Same key, another request**: 422 ``IDEMPOTENCY_KEY_REUSED``; nothing runs.
- **A twin in flight** (the first has not answered yet): 409 ``REQUEST_IN_PROGRESS`` at once,
  never a wait. Twins in one process meet at :meth:`Once.running`; twins in other processes at
  the key's claim (:class:`~slotforge.rgs.rounds.claims.Claims`: a file lock beside a SQLite
  database, an advisory lock in PostgreSQL's transaction), which dies with its transaction or
  its process.

:meth:`Once.run` is the whole guard around one transaction. The fast paths, whose transaction is
one job of the store (:mod:`slotforge.rgs.store`), use its parts: :meth:`Once.running` around
the request, :meth:`Once.claimed` around the transaction (PostgreSQL's round function takes the
claim itself), and :meth:`Once.recall` once a transaction was refused, to tell a twin's stored
answer from a refusal.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine

from slotforge.db import Writer
from slotforge.rgs.errors import KeyMissing, KeyReused, invalid
from slotforge.rgs.rounds.claims import Claims, in_progress
from slotforge.rgs.rounds.views import round_answer
from slotforge.rgs.store import RoundStore
from slotforge.rgs.store.general import lock_player

Result = TypeVar("Result")
KEY_LENGTH = 200  # the most characters of an Idempotency-Key

# A request's work inside :meth:`Once.run`: (conn, the player's row, locked) -> (status, answer).
Work = Callable[[Connection, dict[str, Any]], tuple[int, dict[str, Any]]]


def request_hash(path: str, body: Any) -> str:
    """What makes two requests the same: their path and their body, canonically."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{path}\n{canonical}".encode()).hexdigest()


def check_key(key: str | None) -> str:
    """A state-changing request's Idempotency-Key: present (else 400) and at most 200 characters."""
    if not key:
        raise KeyMissing("Idempotency-Key: this request changes state and needs a key", field="Idempotency-Key")
    if len(key) > KEY_LENGTH:
        raise invalid("Idempotency-Key", f"Idempotency-Key: expected at most {KEY_LENGTH} characters")
    return key


class Once:
    """The guard of one server process (see the module's description)."""

    def __init__(self, engine: Engine, writer: Writer, store: RoundStore, now: Callable[[], int]) -> None:
        self.engine = engine
        self.writer = writer
        self.store = store
        self.now = now
        self.claims = Claims(engine)
        self._running: set[tuple[int, str]] = set()
        self._lock = threading.Lock()

    def run(self, player_id: int, key: str | None, fingerprint: str, work: Work) -> tuple[int, dict[str, Any]]:
        """``work(conn, player_row)`` once per key, in a write transaction of its own; a twin
        gets the stored answer, or 409 while the first still runs."""
        key = check_key(key)
        with self.running(player_id, key), self.claims.outside(player_id, key), self.writer() as conn:
            return self.inside(conn, player_id, key, fingerprint, work)

    def inside(self, conn: Connection, player_id: int, key: str, fingerprint: str,
               work: Work) -> tuple[int, dict[str, Any]]:
        """:meth:`run` inside its transaction ``conn`` (the request marked running and SQLite's
        claim held already): the claim on PostgreSQL, the player locked, the stored answer or
        ``work``'s, stored with the key."""
        self.claims.inside(conn, player_id, key)
        player = lock_player(conn, player_id)
        answered = self.recall(conn, player_id, key, fingerprint)
        if answered is not None:
            return answered
        status, body = work(conn, player)
        self.store.store_answer(conn, player_id, key, fingerprint, status, body, self.now())
        self.store.fault("before_commit")
        return status, body

    @contextmanager
    def running(self, player_id: int, key: str | None) -> Iterator[str]:
        """The key checked and marked running in this process while the block runs: its twin
        here answers 409 at once (twins in other processes meet at the claims)."""
        key = check_key(key)
        flight = (player_id, key)
        with self._lock:
            if flight in self._running:
                raise in_progress()
            self._running.add(flight)
        try:
            yield key
        finally:
            with self._lock:
                self._running.discard(flight)

    async def claimed(self, player_id: int, key: str, job: Callable[[Connection], Result]) -> Result:
        """``job(conn)`` in a write transaction handed over by the event loop, the key's claim
        held (SQLite's around it, PostgreSQL's to be taken in it: see :meth:`inside`)."""
        with self.claims.outside(player_id, key):
            return await self.writer.run(job)

    @contextmanager
    def claim(self, player_id: int, key: str) -> Iterator[None]:
        """SQLite's claim on the key around a fast path's transaction (PostgreSQL's round
        function takes its own)."""
        with self.claims.outside(player_id, key):
            yield

    def recall(self, conn: Connection, player_id: int, key: str, fingerprint: str) -> tuple[int, dict] | None:
        """The answer stored with ``key`` for a request with this ``fingerprint`` (422 for
        another request under the same key); None if none is stored."""
        stored = self.store.recall(conn, player_id, key)
        if stored is None:
            return None
        if stored["request_hash"] != fingerprint:
            raise KeyReused("Idempotency-Key: used before with another request", field="Idempotency-Key")
        if stored["body"] is not None:
            return stored["status_code"], json.loads(stored["body"])
        return stored["status_code"], round_answer(self.store.round_of(conn, stored["round_id"]))

    def answered_or_running(self, player_id: int, key: str) -> bool:
        """Whether a request with this key has its answer stored, or runs in this process (a
        retry of a seamless round sends no second debit)."""
        with self._lock:
            if (player_id, key) in self._running:
                return True
        with self.engine.connect() as conn:
            return self.store.recall(conn, player_id, key) is not None
