"""The one guard of twin requests (:class:`slotforge.rgs.rounds.once.Once`), on both databases:
the same key and request answer the first answer and run the work once, another request under
the key is refused, a twin in flight answers 409 at once."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, insert, select

from slotforge.db import Writer, connect
from slotforge.rgs.errors import KeyMissing, KeyReused, RequestInProgress
from slotforge.rgs.rounds.once import Once
from slotforge.rgs.schema import idempotency, migrate, operators, players
from slotforge.rgs.store import store_for

NOW = 1_800_000_000_000


@pytest.fixture
def engine(database_url) -> Iterator[Engine]:
    engine = connect(database_url)
    migrate(engine)
    with engine.begin() as conn:
        operator = conn.execute(insert(operators).values(name="o", key_hash="k" * 64, created_at=NOW)
                                .returning(operators.c.id)).scalar_one()
        conn.execute(insert(players).values(id=1, operator_id=operator, external_id="p", currency="EUR", fun=False,
                                            balance=1000, created_at=NOW))
    yield engine
    engine.dispose()


@pytest.fixture
def once(engine) -> Once:
    writer = Writer(engine)
    return Once(engine, writer, store_for(writer), lambda: NOW)


def counting(runs: list[int]):
    """Work that counts its runs and answers how many there were."""
    def work(conn, player):
        runs.append(player["id"])
        return 201, {"run": len(runs)}
    return work


def test_the_same_key_and_request_answer_the_first_answer_and_run_once(once, engine):
    runs: list[int] = []
    first = once.run(1, "k-1", "same", counting(runs))
    assert once.run(1, "k-1", "same", counting(runs)) == first == (201, {"run": 1})
    assert runs == [1]
    with engine.connect() as conn:
        assert conn.execute(select(idempotency.c.status_code)).scalars().all() == [201]


def test_another_request_under_the_same_key_is_refused_and_nothing_runs(once):
    runs: list[int] = []
    once.run(1, "k-1", "first", counting(runs))
    with pytest.raises(KeyReused):
        once.run(1, "k-1", "another", counting(runs))
    assert runs == [1]


def test_a_twin_in_flight_answers_in_progress_at_once(once):
    started, release = threading.Event(), threading.Event()
    runs: list[int] = []

    def slow(conn, player):
        started.set()
        release.wait(10)
        return counting(runs)(conn, player)

    first = threading.Thread(target=once.run, args=(1, "k-1", "same", slow))
    first.start()
    try:
        assert started.wait(10)
        with pytest.raises(RequestInProgress):
            once.run(1, "k-1", "same", counting(runs))
    finally:
        release.set()
        first.join(10)
    assert runs == [1]
    assert once.run(1, "k-1", "same", counting(runs)) == (201, {"run": 1})


def test_a_key_is_required(once):
    with pytest.raises(KeyMissing):
        once.run(1, None, "same", counting([]))
