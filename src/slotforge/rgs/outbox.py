"""The outbox: what the database promised other systems, delivered until they acknowledge it.

A round that owes another system a message (the operator's wallet a credit, the jackpot service
a contribution) writes the message here in the round's own transaction, so the message exists
exactly when the round does: a crash before the commit leaves neither, a crash after it leaves
both. A worker thread in every server process delivers the due messages, oldest first, and
retries with back-off until the receiver acknowledges. Every message carries a key its receiver
is idempotent on, so a repeated delivery (a crash between the receiver's answer and our mark, two
processes delivering at once, a lost reply) is harmless: the receiver answers as the first time.

A message can also be *held*: written with its due time in the future, so that the worker
leaves it alone until then (a round's credit, which the round's own request sends first). A
target may also hold intents in rows of its own (:class:`Holds`: the seamless wallet's debits'
rollbacks are held by their placeholder rounds, so that a round writes no message only to
delete it): each pass of the worker first asks it to write what fell due as messages.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from sqlalchemy import Connection, Engine, Select, bindparam, func, insert, select, update

from slotforge.rgs.schema import outbox

log = logging.getLogger("slotforge.rgs.outbox")


@dataclass(frozen=True)
class Message:
    """One message owed to another system."""

    id: int
    target: str  # which system: "wallet", "jackpot", ...
    kind: str  # what to do there: "credit", "rollback", "contribution", ...
    key: str  # what the receiver is idempotent on (a transaction id, a round id)
    payload: dict[str, Any]
    round_id: int | None
    attempts: int


# A receiver's delivery: returns the acknowledgement, raises to be retried later.
Deliver = Callable[[Message], dict[str, Any]]
# Runs in the transaction that marks messages delivered, with every message of its target this
# transaction marked and its acknowledgement (e.g. the rounds whose credits are no longer pending).
Acknowledged = Callable[[Connection, list[tuple[Message, dict[str, Any]]]], None]
# A receiver's delivery of several messages in one call: the acknowledgements by message id (a
# message without one, or with an exception instead, is retried later); raises to retry them all.
DeliverMany = Callable[[list[Message]], dict[int, dict[str, Any] | Exception]]
# What one attempt came to: the message, its acknowledgement or the failure.
Outcome = tuple[Message, dict[str, Any] | None, Exception | None]


class Holds(Protocol):
    """What a target holds outside the outbox until it falls due (see the module's description)."""

    def fall_due(self) -> int:
        """Write what has fallen due as due messages (in transactions of its own); how many."""

    def count(self, conn: Connection) -> int:
        """How many are held, not yet messages: owed to the target all the same."""


# Built once: building a statement costs more CPU than running it (they run in every round).
MESSAGE_FIELDS = ("target", "kind", "key", "round_id", "payload", "created_at", "due_at", "attempts", "delivered_at",
                  "answer", "last_error")
ENQUEUE = insert(outbox).values({name: bindparam(name) for name in MESSAGE_FIELDS})  # a :func:`message_row`
# A pass's acknowledged messages: those still undelivered (another process may have marked one
# meanwhile), locked, then each marked.
UNMARKED = (select(outbox.c.id).where(outbox.c.id.in_(bindparam("p_ids", expanding=True)),
                                      outbox.c.delivered_at.is_(None)).with_for_update())
MARK = update(outbox).where(outbox.c.id == bindparam("p_id"), outbox.c.delivered_at.is_(None)).values(
    delivered_at=bindparam("p_now"), answer=bindparam("p_answer"), attempts=bindparam("p_attempts"))


def enqueue(conn: Connection, target: str, kind: str, key: str, payload: dict[str, Any], *, now: int,
            round_id: int | None = None, hold_ms: int = 0) -> None:
    """Owe ``target`` a message, in the caller's transaction; due at once, or after ``hold_ms``
    (a held message)."""
    conn.execute(ENQUEUE, message_row(target, kind, key, payload, now=now, round_id=round_id, hold_ms=hold_ms))


def message_row(target: str, kind: str, key: str, payload: dict[str, Any], *, now: int, round_id: int | None = None,
                hold_ms: int = 0) -> dict[str, Any]:
    """The outbox's row of a message owed (see :func:`enqueue`)."""
    return dict(target=target, kind=kind, key=key, round_id=round_id,
                payload=orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode(),
                created_at=now, due_at=now + hold_ms, attempts=0, delivered_at=None, answer=None, last_error=None)


def pending(conn: Connection, target: str | None = None, round_id: int | None = None) -> int:
    """How many messages are not yet acknowledged (held ones included)."""
    query = select(func.count()).select_from(outbox).where(outbox.c.delivered_at.is_(None))
    if target is not None:
        query = query.where(outbox.c.target == target)
    if round_id is not None:
        query = query.where(outbox.c.round_id == round_id)
    return conn.execute(query).scalar_one()


def backoff_ms(attempts: int, largest_ms: int) -> int:
    """Wait before the next attempt: 100 ms doubling per failure, up to ``largest_ms``."""
    return min(100 * 2 ** min(attempts, 20), largest_ms)


class Outbox:
    """Delivers due messages to the receivers registered per target, in a background thread.

    ``transaction`` opens the server's write transactions (group commit on SQLite); the worker
    holds none while it talks to a receiver, so a slow receiver never blocks rounds. The due
    messages of a pass are delivered ``parallel`` at a time and their outcomes written in one
    transaction: one receiver's round trip and one commit per message would cap delivery far
    below the rate rounds write messages.
    """

    def __init__(self, engine: Engine, transaction: Callable[[], AbstractContextManager[Connection]],
                 clock: Callable[[], float] = time.time, *, batch: int = 50, largest_backoff_ms: int = 2000,
                 idle_s: float = 0.5, parallel: int = 8) -> None:
        self.engine = engine
        self.transaction = transaction
        self.clock = clock
        self.batch = batch
        self.parallel = parallel
        self._pool: ThreadPoolExecutor | None = None
        self.largest_backoff_ms = largest_backoff_ms
        self.idle_s = idle_s
        self._receivers: dict[str, tuple[Deliver, Acknowledged | None]] = {}
        self._batches: dict[str, DeliverMany] = {}
        self._holds: dict[str, Holds] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def now(self) -> int:
        return int(self.clock() * 1000)

    def register(self, target: str, deliver: Deliver, acknowledged: Acknowledged | None = None,
                 deliver_many: DeliverMany | None = None, holds: Holds | None = None) -> None:
        """Deliver ``target``'s messages with ``deliver``; ``acknowledged`` runs with the mark.
        A receiver that takes several messages in one call gives ``deliver_many``: the due
        messages of a pass then go in one call (a busy server owes one message per round, more
        than one call each can carry). ``holds``: what the target holds outside the outbox."""
        self._receivers[target] = (deliver, acknowledged)
        if deliver_many is not None:
            self._batches[target] = deliver_many
        if holds is not None:
            self._holds[target] = holds

    @property
    def targets(self) -> list[str]:
        return sorted(self._receivers)

    # -- the worker ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker thread (once); it also delivers what an earlier process left."""
        if self._thread is None and self._receivers:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="slotforge-outbox", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def wake(self) -> None:
        """Look for due messages now (a round just committed one)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                delivered = self.deliver_due()
            except Exception:  # the database itself failing: try again shortly
                log.exception("outbox: a delivery pass failed")
                delivered = 0
            if not delivered:
                self._wake.wait(self.idle_s)
                self._wake.clear()

    # -- one pass -----------------------------------------------------------------------------
    def due(self) -> list[Message]:
        """The messages due now, oldest first, for the targets this process delivers."""
        if not self._receivers:
            return []
        with self.engine.connect() as conn:
            return [message_of(row) for row in conn.execute(due_query(self.targets, self.now(), self.batch)).mappings()]

    def deliver_due(self) -> int:
        """Turn what the targets hold and has fallen due into messages; try every due message
        once (``parallel`` at a time), then record every outcome in one transaction; returns how
        many were acknowledged."""
        for holds in self._holds.values():
            holds.fall_due()
        due = self.due()
        if not due or self._stop.is_set():
            return 0
        outcomes: list[Outcome] = []
        for target, many in self._batches.items():
            group = [message for message in due if message.target == target]
            if len(group) > 1:
                outcomes += self._attempt_together(many, group)
                due = [message for message in due if message.target != target]
        if len(due) <= 1 or self.parallel <= 1:
            outcomes += [self._attempt(message) for message in due]
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.parallel, thread_name_prefix="slotforge-outbox-delivery")
            outcomes += self._pool.map(self._attempt, due)
        self._record(outcomes)
        return sum(1 for _, _, error in outcomes if error is None)

    def deliver(self, message: Message) -> bool:
        """Deliver one message and record the outcome; True when acknowledged."""
        outcome = self._attempt(message)
        self._record([outcome])
        return outcome[2] is None

    @staticmethod
    def _attempt_together(many: DeliverMany, group: list[Message]) -> list[Outcome]:
        """Deliver ``group`` in one call; a message the answer leaves out (or answers with an
        exception) is retried later."""
        try:
            answers = many(group)
        except Exception as error:  # retried, each on its own back-off
            return [(message, None, error) for message in group]
        missing = RuntimeError("not acknowledged in its batch")
        outcomes: list[Outcome] = []
        for message in group:
            answer = answers.get(message.id, missing)
            failed = isinstance(answer, Exception)
            outcomes.append((message, None if failed else answer, answer if failed else None))
        return outcomes

    def _attempt(self, message: Message) -> Outcome:
        deliver, _ = self._receivers[message.target]
        try:
            return message, deliver(message), None
        except Exception as error:  # any failure is retried: the receiver is idempotent on the key
            return message, None, error

    def _record(self, outcomes: list[Outcome]) -> None:
        """Every outcome of a pass in one transaction: the acknowledged messages marked in two
        statements whatever their number (a busy server acknowledges hundreds a pass), each
        target's hook told of the ones marked; the failures each put off by its back-off."""
        with self.transaction() as conn:
            self.record(conn, outcomes)

    def record(self, conn: Connection, outcomes: list[Outcome]) -> None:
        """:meth:`_record`'s work in the caller's transaction (``conn``), for deliveries made
        outside a pass (a round's credit sent by its own request)."""
        delivered = [(message, answer) for message, answer, error in outcomes if error is None]
        for target, marked in self._mark_all(conn, delivered).items():
            _, on_acknowledged = self._receivers[target]
            if on_acknowledged is not None:
                on_acknowledged(conn, marked)
        for message, _, error in outcomes:
            if error is not None:
                self._failed(conn, message, error)

    def _mark_all(self, conn: Connection, delivered: list[tuple[Message, dict[str, Any]]]
                  ) -> dict[str, list[tuple[Message, dict[str, Any]]]]:
        """Mark the acknowledged messages not marked yet; those this transaction marked, by target."""
        if not delivered:
            return {}
        unmarked = set(conn.execute(UNMARKED, {"p_ids": [message.id for message, _ in delivered]}).scalars())
        marked = [(message, answer) for message, answer in delivered if message.id in unmarked]
        if marked:
            now = self.now()
            conn.execute(MARK, [{"p_id": message.id, "p_now": now, "p_attempts": message.attempts + 1,
                                 "p_answer": json.dumps(answer, default=str)} for message, answer in marked])
        by_target: dict[str, list[tuple[Message, dict[str, Any]]]] = {}
        for message, answer in marked:
            by_target.setdefault(message.target, []).append((message, answer))
        return by_target

    def _failed(self, conn: Connection, message: Message, error: Exception) -> None:
        attempts = message.attempts + 1
        log.warning("outbox: %s %s %s not delivered (attempt %d): %s", message.target, message.kind, message.key,
                    attempts, error)
        conn.execute(update(outbox).where(outbox.c.id == message.id, outbox.c.delivered_at.is_(None)).values(
            attempts=attempts, last_error=str(error)[:500],
            due_at=self.now() + backoff_ms(attempts, self.largest_backoff_ms)))

    def owed(self, conn: Connection, target: str | None = None) -> int:
        """What is not yet acknowledged, held messages and what the targets hold included."""
        held = sum(holds.count(conn) for name, holds in self._holds.items() if target in (None, name))
        return pending(conn, target) + held

    def drain(self, timeout: float = 30.0, target: str | None = None) -> bool:
        """Deliver until nothing is owed (what is held included) or ``timeout`` passes; for
        tests, shutdowns and tools. True when drained."""
        deadline = time.monotonic() + timeout
        while True:
            with self.engine.connect() as conn:
                if not self.owed(conn, target):
                    return True
            if time.monotonic() > deadline:
                return False
            if not self.deliver_due():
                time.sleep(0.05)


def due_query(targets: Iterable[str], now: int, batch: int) -> Select:
    """The first ``batch`` messages for ``targets`` due at ``now``, oldest first (read through the
    partial index of undelivered messages: the delivered ones are never walked)."""
    return (select(outbox).where(outbox.c.delivered_at.is_(None), outbox.c.due_at <= now,
                                 outbox.c.target.in_(list(targets)))
            .order_by(outbox.c.id).limit(batch))


def message_of(row: Any) -> Message:
    return Message(id=row["id"], target=row["target"], kind=row["kind"], key=row["key"],
                   payload=orjson.loads(row["payload"]), round_id=row["round_id"], attempts=row["attempts"])


def undelivered(conn: Connection, target: str | None = None) -> Iterator[Message]:
    """The messages not yet acknowledged, oldest first (for the audit and operators)."""
    query = select(outbox).where(outbox.c.delivered_at.is_(None)).order_by(outbox.c.id)
    if target is not None:
        query = query.where(outbox.c.target == target)
    for row in conn.execute(query).mappings():
        yield message_of(row)
