"""The outbox on SQLite and PostgreSQL: a message exists exactly when its transaction committed,
is delivered until acknowledged (surviving a new process), and held messages wait for their due
time unless cancelled or made due."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from slotforge.db import connect, write_transaction
from slotforge.rgs import outbox as mail
from slotforge.rgs.outbox import Message, Outbox, backoff_ms
from slotforge.rgs.schema import migrate
from slotforge.rgs.schema import outbox as table
from tests.rgs.conftest import FakeClock
from tests.rgs.plans import assert_read_through


class Receiver:
    """Fails the first ``failures`` deliveries of every key, then acknowledges."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.calls: list[str] = []

    def __call__(self, message: Message) -> dict[str, Any]:
        self.calls.append(message.key)
        if self.calls.count(message.key) <= self.failures:
            raise ConnectionError("receiver down")
        return {"ok": message.payload["n"]}


def opened(url: str, clock: FakeClock) -> Outbox:
    engine = connect(url)
    migrate(engine)
    return Outbox(engine, lambda: write_transaction(engine), clock)


def test_a_message_exists_only_if_its_transaction_committed(database_url):
    box = opened(database_url, FakeClock())
    now = box.now()
    with write_transaction(box.engine) as conn:
        mail.enqueue(conn, "wallet", "credit", "kept", {"n": 1}, now=now)
    with pytest.raises(RuntimeError), write_transaction(box.engine) as conn:
        mail.enqueue(conn, "wallet", "credit", "lost", {"n": 2}, now=now)
        raise RuntimeError("the round failed")
    with box.engine.connect() as conn:
        assert [m.key for m in mail.undelivered(conn)] == ["kept"]


def test_retried_with_backoff_until_acknowledged_even_by_a_new_process(database_url):
    clock = FakeClock()
    first = opened(database_url, clock)
    with write_transaction(first.engine) as conn:
        for n in range(3):
            mail.enqueue(conn, "wallet", "credit", f"tx-{n}", {"n": n}, now=first.now(), round_id=n)
    down = Receiver(failures=10)
    first.register("wallet", down)
    assert first.deliver_due() == 0
    assert first.deliver_due() == 0, "failed messages wait for their back-off"
    assert sorted(down.calls) == ["tx-0", "tx-1", "tx-2"], "each tried once (several at a time)"
    first.engine.dispose()  # the process dies; what it owed is in the database

    second = opened(database_url, clock)
    receiver, acknowledged = Receiver(failures=1), []
    second.register("wallet", receiver, lambda conn, marked: acknowledged.extend((m.key, a) for m, a in marked))
    assert second.deliver_due() == 0, "still backing off from the first process's failure"
    clock.advance(backoff_ms(1, second.largest_backoff_ms) / 1000)
    assert second.deliver_due() == 0, "the receiver fails once more"
    clock.advance(backoff_ms(2, second.largest_backoff_ms) / 1000)
    assert second.deliver_due() == 3
    assert acknowledged == [(f"tx-{n}", {"ok": n}) for n in range(3)]
    with second.engine.connect() as conn:
        assert mail.pending(conn) == 0
        rows = conn.execute(select(table.c.key, table.c.attempts).order_by(table.c.id)).all()
    assert [tuple(row) for row in rows] == [(f"tx-{n}", 3) for n in range(3)]


def test_a_message_two_processes_delivered_is_marked_and_acknowledged_once(database_url):
    """Two server processes may both find a message due and both deliver it (the receiver is
    idempotent on its key); the second to record its delivery finds it marked already and tells
    its target's hook nothing, while the other messages of its pass are marked as usual."""
    clock = FakeClock()
    first, second = opened(database_url, clock), opened(database_url, clock)
    with write_transaction(first.engine) as conn:
        for n in range(3):
            mail.enqueue(conn, "wallet", "credit", f"tx-{n}", {"n": n}, now=first.now(), round_id=n)
    told: list[tuple[str, list[str]]] = []
    for name, box in (("first", first), ("second", second)):
        box.register("wallet", Receiver(), lambda conn, marked, name=name: told.append(
            (name, [message.key for message, _ in marked])))
    both_found = second.due()
    assert first.deliver(both_found[1])  # the first process records tx-1 before the second's pass
    for message in both_found:
        second.deliver(message)
    assert told == [("first", ["tx-1"]), ("second", ["tx-0"]), ("second", ["tx-2"])]
    with first.engine.connect() as conn:
        assert mail.pending(conn) == 0
        attempts = dict(conn.execute(select(table.c.key, table.c.attempts)).all())
    assert attempts == {"tx-0": 1, "tx-1": 1, "tx-2": 1}  # tx-1's mark is the first process's alone


def test_held_messages_wait_until_they_fall_due(database_url):
    clock = FakeClock()
    box = opened(database_url, clock)
    receiver = Receiver()
    box.register("wallet", receiver)
    with write_transaction(box.engine) as conn:
        mail.enqueue(conn, "wallet", "credit", "soon", {"n": 0}, now=box.now(), hold_ms=2_000)
        mail.enqueue(conn, "wallet", "credit", "later", {"n": 0}, now=box.now(), hold_ms=60_000)
    assert box.deliver_due() == 0
    clock.advance(2)
    assert box.deliver_due() == 1 and receiver.calls == ["soon"]
    clock.advance(58)
    assert box.deliver_due() == 1 and receiver.calls == ["soon", "later"]
    with box.engine.connect() as conn:
        assert mail.pending(conn) == 0


class Promises:
    """A target's holds kept outside the outbox: a list of (key, due time), written as messages
    by each pass once due."""

    def __init__(self, box: Outbox, held: list[tuple[str, int]]) -> None:
        self.box, self.held = box, held

    def fall_due(self) -> int:
        due = [key for key, at in self.held if at <= self.box.now()]
        with write_transaction(self.box.engine) as conn:
            for key in due:
                mail.enqueue(conn, "wallet", "rollback", key, {"n": 0}, now=self.box.now())
        self.held = [(key, at) for key, at in self.held if key not in due]
        return len(due)

    def count(self, _conn) -> int:
        return len(self.held)


def test_what_a_target_holds_is_owed_and_sent_by_the_pass_once_it_falls_due(database_url):
    clock = FakeClock()
    box = opened(database_url, clock)
    receiver = Receiver()
    promises = Promises(box, [("first", box.now() + 1_000), ("second", box.now() + 5_000)])
    box.register("wallet", receiver, holds=promises)
    with box.engine.connect() as conn:
        assert mail.pending(conn) == 0 and box.owed(conn) == 2 and box.owed(conn, "jackpot") == 0
    assert box.deliver_due() == 0
    clock.advance(1)
    assert box.deliver_due() == 1 and receiver.calls == ["first"]
    assert not box.drain(timeout=0.2), "the second is still held"
    clock.advance(4)
    assert box.drain(timeout=10) and receiver.calls == ["first", "second"]


def test_the_worker_thread_delivers_and_drain_waits_for_it(tmp_path):
    box = opened(f"sqlite:///{tmp_path / 'box.db'}", FakeClock())
    receiver = Receiver()
    box.register("jackpot", receiver)
    box.start()
    try:
        with write_transaction(box.engine) as conn:
            for n in range(20):
                mail.enqueue(conn, "jackpot", "contribution", f"round-{n}", {"n": n}, now=box.now())
        box.wake()
        assert box.drain(timeout=20)
    finally:
        box.stop()
    assert sorted(set(receiver.calls)) == sorted(f"round-{n}" for n in range(20))


def test_backoff_doubles_up_to_its_cap():
    assert [backoff_ms(n, 1000) for n in range(6)] == [100, 200, 400, 800, 1000, 1000]


def test_a_receiver_taking_several_messages_acknowledges_them_in_one_call(database_url):
    """The due messages of a pass go in one call; what it acknowledged is marked, the rest retried."""
    clock = FakeClock()
    box = opened(database_url, clock)
    with write_transaction(box.engine) as conn:
        for n in range(5):
            mail.enqueue(conn, "jackpot", "contribution", f"s:{n}", {"n": n}, now=box.now())
    calls: list[list[str]] = []

    def many(messages: list[Message]) -> dict[int, dict[str, Any]]:
        calls.append([m.key for m in messages])
        return {m.id: {"ok": m.payload["n"]} for m in messages if m.payload["n"] != 3}  # one not taken

    box.register("jackpot", Receiver(), deliver_many=many)
    assert box.deliver_due() == 4
    assert calls == [[f"s:{n}" for n in range(5)]]
    with box.engine.connect() as conn:
        assert [m.key for m in mail.undelivered(conn)] == ["s:3"]
    clock.advance(1)
    assert box.deliver_due() == 1  # alone now: the one-message delivery
    assert calls == [[f"s:{n}" for n in range(5)]]
    with box.engine.connect() as conn:
        assert mail.pending(conn) == 0
    box.engine.dispose()


def test_a_delivery_pass_never_walks_the_delivered_messages(database_url):
    """Every pass reads the due messages; with thousands delivered before them it must still read
    only the few owed (the partial index), or each pass grows with the outbox's history."""
    box = opened(database_url, FakeClock())
    delivered, owed = 3000, 5
    with write_transaction(box.engine) as conn:
        conn.execute(table.insert(), [dict(target="wallet", kind="credit", key=f"k{n}", payload="{}", created_at=n,
                                           due_at=n, attempts=1, delivered_at=None if n >= delivered else n)
                                      for n in range(delivered + owed)])
    query = mail.due_query(["wallet"], now=10**12, batch=8)
    with box.engine.connect() as conn:
        assert [row.key for row in conn.execute(query)] == [f"k{n}" for n in range(delivered, delivered + owed)]
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE outbox")
        assert_read_through(conn, query, "ix_outbox_undelivered", most_rows=2 * owed)
