"""The jackpot service's stream announces every win once, whatever became of its claim before
the stream looked: a game server may confirm its round's claim within a poll's interval."""

from __future__ import annotations

from decimal import Decimal

from slotforge.jackpot.pool import PoolConfig
from slotforge.jackpot.service import create_service

POOL = "divine-fortune"


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
