"""The jackpot service's stream announces every win once, whatever became of its claim before
the stream looked: a game server may confirm its round's claim within a poll's interval, a
transaction may commit after a later one, and a released key may be claimed again."""

from __future__ import annotations

import time
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import inspect

from slotforge.db import connect
from slotforge.jackpot.books import Books
from slotforge.jackpot.pool import PoolConfig
from slotforge.jackpot.service import create_service
from slotforge.jackpot.stream import Unannounced
from tests.rgs.conftest import FakeClock

POOL = "divine-fortune"
LOOK_BACK = 60_000


def test_a_claim_confirmed_before_the_next_poll_is_still_announced_and_only_once(tmp_path):
    app = create_service(f"sqlite:///{tmp_path / 'jackpot.db'}", pools={POOL: PoolConfig()})
    books, poll = app.state.books, app.state.hub.poll
    books.contribute(POOL, "a:1", Decimal("100.00"), "EUR", Decimal(1))
    assert poll()[1] == []
    books.claim(POOL, "a:2", "EUR", Decimal(1))
    books.confirm("a:2")  # the round committed and its confirm arrived before the stream polled
    books.claim(POOL, "a:3", "EUR", Decimal(1))
    values, wins = poll()
    assert [(win["key"], win["status"]) for win in wins] == [("a:2", "confirmed"), ("a:3", "held")]
    assert [pool["wins"] for pool in values] == [2]
    assert poll()[1] == []  # each win once
    books.engine.dispose()


def test_a_released_claim_is_not_announced(tmp_path):
    app = create_service(f"sqlite:///{tmp_path / 'jackpot.db'}", pools={POOL: PoolConfig()})
    books, poll = app.state.books, app.state.hub.poll
    books.claim(POOL, "gone:1", "EUR", Decimal(1))
    books.release("gone:1")
    assert poll()[1] == []
    books.engine.dispose()


def test_a_key_released_and_claimed_again_is_a_new_win(tmp_path):
    clock = FakeClock()
    app = create_service(f"sqlite:///{tmp_path / 'jackpot.db'}", pools={POOL: PoolConfig()}, clock=clock)
    books, poll = app.state.books, app.state.hub.poll
    poll()
    books.claim(POOL, "a:1", "EUR", Decimal(1))
    assert [win["key"] for win in poll()[1]] == ["a:1"]
    clock.advance(301)  # the claim's lease ran out: its round never committed
    books.release("a:1")
    assert poll()[1] == []
    clock.advance(5)  # the round is played on and wins again
    books.claim(POOL, "a:1", "EUR", Decimal(1))
    assert [(win["key"], win["status"]) for win in poll()[1]] == [("a:1", "held")]
    books.engine.dispose()


def test_books_made_before_the_claims_index_gain_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'jackpot.db'}"
    Books(connect(url), time.time).engine.dispose()
    engine = connect(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP INDEX ix_entries_kind_time")
    assert "ix_entries_kind_time" not in {index["name"] for index in inspect(engine).get_indexes("entries")}
    Books(engine, time.time)
    assert "ix_entries_kind_time" in {index["name"] for index in inspect(engine).get_indexes("entries")}
    engine.dispose()


@given(st.lists(st.tuples(st.sampled_from(["a:1", "a:2", "b:1"]), st.integers(0, 200_000)), max_size=40),
       st.integers(1, 30))
def test_every_claim_read_within_the_look_back_is_announced_exactly_once(claims, reads):
    """Claims arrive in any order of time within the look-back of the newest one, read in
    ``reads`` overlapping batches: each (key, time) is announced once, whatever the batching."""
    unannounced = Unannounced(now_ms=0, look_back_ms=LOOK_BACK)
    newest, arrived, announced = 0, [], []
    for n, (key, at) in enumerate(claims):
        at = max(at, newest - LOOK_BACK + 1)  # a commit is never later than the look-back
        newest = max(newest, at)
        arrived.append((key, at))
        if n % reads == 0 or n == len(claims) - 1:
            visible = [(k, t, {"key": k, "at": t}) for k, t in arrived if t >= unannounced.since]
            announced += [(win["key"], win["at"]) for win in unannounced.new(visible)]
    assert sorted(announced) == sorted(set(arrived))

