"""``/metrics``' rounds started count what happened: every committed round once, whatever order
the rounds commit in (on PostgreSQL a round given a lower id may commit after a higher one), a
round that rolled back never; and every route is timed, the round route included."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import insert

from slotforge.db import connect
from slotforge.rgs.metrics import GIVE_UP_MS, RoundsSeen
from slotforge.rgs.schema import migrate, operators, players, rounds, sessions

from .conftest import postgres_database

REAL = ("dynasty", "real", "EUR")


def new_round(conn, stake: int = 20) -> int:
    return conn.execute(insert(rounds).values(
        player_id=1, session_id=1, game="dynasty", status="complete", fun=False, currency="EUR",
        jurisdiction="default", stake=stake, win=0, jackpot_win=0, balance_before=0, balance_after=0, record="{}",
        started_at=0).returning(rounds.c.id)).scalar_one()


def books(database_url: str):
    engine = connect(database_url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(insert(operators).values(id=1, name="o", key_hash="h", created_at=0))
        conn.execute(insert(players).values(id=1, operator_id=1, external_id="p", currency="EUR", fun=False,
                                            balance=0, created_at=0))
        conn.execute(insert(sessions).values(id=1, token_hash="t", player_id=1, jurisdiction="default",
                                             created_at=0, last_seen=0))
    return engine


@pytest.fixture
def postgres():
    urls = postgres_database()
    engine = books(next(urls))
    yield engine
    engine.dispose()
    next(urls, None)


def test_a_round_that_commits_after_a_higher_id_is_counted_once(postgres):
    seen = RoundsSeen()
    with postgres.begin() as conn:
        new_round(conn, 10)
    seen.update(postgres, now=0)
    with postgres.connect() as slow:
        late = slow.begin()
        new_round(slow, 30)  # a lower id, its transaction still running
        with postgres.begin() as conn:
            new_round(conn, 50)
        seen.update(postgres, now=1)
        assert (seen.started[REAL], seen.staked[REAL]) == (2, 60)
        late.commit()
    seen.update(postgres, now=2)
    assert (seen.started[REAL], seen.staked[REAL]) == (3, 90)
    seen.update(postgres, now=3)
    assert seen.started[REAL] == 3 and seen.missing == {}


def test_a_round_that_rolled_back_is_never_counted_and_its_id_is_given_up(database_url):
    engine = books(database_url)
    try:
        seen = RoundsSeen()
        with engine.connect() as conn:
            rolled = conn.begin()
            new_round(conn)
            rolled.rollback()
        with engine.begin() as conn:
            new_round(conn)
            new_round(conn)
        seen.update(engine, now=0)
        assert seen.started[REAL] == 2
        seen.update(engine, now=GIVE_UP_MS)
        assert seen.started[REAL] == 2 and seen.missing == {}
        with engine.begin() as conn:
            new_round(conn)
        seen.update(engine, now=GIVE_UP_MS + 1)
        assert (seen.started[REAL], seen.staked[REAL]) == (3, 60)
    finally:
        engine.dispose()


def test_the_round_route_is_timed_like_every_other(api):
    def samples():
        text = api.client.get("/metrics").text
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text) for s in family.samples}

    rounds_count = ("slotforge_request_seconds_count", (("route", "POST /v1/rounds"),))
    before = samples().get(rounds_count, 0)
    player = api.player("10.00")
    assert player.play().status_code == 200
    assert player.play(bet={"lines": 21}).status_code == 422
    after = samples()
    assert after[rounds_count] == before + 2
    assert ("slotforge_request_seconds_bucket", (("le", "0.05"), ("route", "POST /v1/rounds"))) in after
