"""PostgreSQL's ``slotforge_play_round``, the straight round's whole transaction in one call (see
``slotforge/rgs/store/postgres.py``), called as the server calls it: on a connection in
autocommit. A round it plays is all there; each refusal (too little money, too soon, a round
awaiting a decision, the key answered already, the claim held elsewhere) leaves the player's
balance and every table as they were, including a refusal found after the player's row was
settled; and a round left awaiting while the call waited for the player's row is seen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, func, insert, select, text

from slotforge.db import connect
from slotforge.db.driver import DriverTransaction
from slotforge.db.engine import autocommit
from slotforge.rgs.schema import MIGRATIONS, idempotency, ledger, migrate, players, rounds, sessions
from slotforge.rgs.store import NEVER
from slotforge.rgs.store.postgres import REFUSED, STATEMENTS

from .conftest import postgres_database
from .locks import waiting_for_a_lock

NOW = 1_800_000_000_000
CLAIM = 0x5EED


@pytest.fixture
def engine() -> Iterator[Engine]:
    for url in postgres_database():
        engine = connect(url)
        migrate(engine)
        yield engine
        engine.dispose()


@pytest.fixture
def player(engine) -> dict[str, int]:
    """A player with 10.00 and a session."""
    with engine.begin() as conn:
        player_id = conn.execute(insert(players).values(
            external_id="p-1", currency="EUR", fun=False, balance=1000, wallet="internal", last_round_at=None,
            created_at=NOW).returning(players.c.id)).scalar_one()
        session_id = conn.execute(insert(sessions).values(
            token_hash="t" * 64, player_id=player_id, jurisdiction="default", created_at=NOW,
            last_seen=NOW).returning(sessions.c.id)).scalar_one()
    return {"player": player_id, "session": session_id}


def arguments(player: dict[str, int], **changed: Any) -> dict[str, Any]:
    """A completed round of stake 1.00 and win 0.50, under key ``k-1``."""
    return {"p_claim": CLAIM, "p_player": player["player"], "p_stake": 100, "p_win": 50, "p_now": NOW,
            "p_latest": NEVER, "p_session": player["session"], "p_game": "dynasty", "p_status": "complete",
            "p_fun": False, "p_currency": "EUR", "p_jurisdiction": "default", "p_record": '{"total_win": "0.50"}',
            "p_finished_at": NOW, "p_key": "k-1", "p_request_hash": "h" * 64, "p_status_code": 200, **changed}


def play(engine: Engine, parameters: dict[str, Any]) -> tuple:
    with autocommit(engine) as driver:
        return DriverTransaction(driver).first(STATEMENTS["play_round"], parameters)


def everything(engine: Engine) -> dict[str, list]:
    """Every row of the tables a round writes to."""
    with engine.connect() as conn:
        return {table.name: sorted(map(tuple, conn.execute(select(table)).all()))
                for table in (players, rounds, ledger, idempotency)}


def awaiting_round(player: dict[str, int]) -> dict[str, Any]:
    return dict(player_id=player["player"], session_id=player["session"], game="dynasty", status="awaiting",
                fun=False, currency="EUR", jurisdiction="default", stake=100, win=0, jackpot_win=0,
                balance_before=1000, balance_after=900, record="{}", started_at=NOW - 1000, finished_at=None)


def test_a_round_is_played_and_committed_by_the_call(engine, player):
    held, round_id, balance = play(engine, arguments(player))
    assert (held, balance) == (True, 950)
    with engine.connect() as conn:
        assert conn.execute(select(players.c.balance, players.c.last_round_at)).one() == (950, NOW)
        assert conn.execute(select(rounds.c.id, rounds.c.balance_before, rounds.c.balance_after, rounds.c.status)
                            ).one() == (round_id, 1000, 950, "complete")
        assert sorted(conn.execute(select(ledger.c.kind, ledger.c.amount).where(ledger.c.round_id == round_id))
                      ) == [("stake", 100), ("win", 50)]
        assert conn.execute(select(idempotency.c.key, idempotency.c.round_id, idempotency.c.body)).one() \
            == ("k-1", round_id, None)


def test_a_loss_is_one_ledger_entry(engine, player):
    _held, round_id, _balance = play(engine, arguments(player, p_win=0))
    with engine.connect() as conn:
        assert conn.execute(select(ledger.c.kind, ledger.c.amount).where(ledger.c.round_id == round_id)
                            ).all() == [("stake", 100)]


def test_too_little_money_or_too_soon_changes_nothing(engine, player):
    before = everything(engine)
    assert play(engine, arguments(player, p_stake=1001)) == (True, None, None)
    assert everything(engine) == before
    with engine.begin() as conn:
        conn.execute(players.update().values(last_round_at=NOW - 100))
    before = everything(engine)
    assert play(engine, arguments(player, p_latest=NOW - 200)) == (True, None, None)  # least time not passed
    assert everything(engine) == before
    assert play(engine, arguments(player, p_latest=NOW - 100))[1] is not None  # passed: played


def test_a_round_awaiting_a_decision_refuses_it_after_settling_and_undoes_the_settling(engine, player):
    with engine.begin() as conn:
        conn.execute(insert(rounds).values(awaiting_round(player)))
    before = everything(engine)
    with pytest.raises(psycopg.Error) as refused:
        play(engine, arguments(player))
    assert refused.value.sqlstate == REFUSED
    assert everything(engine) == before


def test_a_key_answered_already_refuses_it_after_settling_and_undoes_the_settling(engine, player):
    assert play(engine, arguments(player))[1] is not None
    before = everything(engine)
    with pytest.raises(psycopg.Error) as refused:
        play(engine, arguments(player, p_now=NOW + 1000))
    assert refused.value.sqlstate == REFUSED
    assert everything(engine) == before


def test_a_claim_held_by_another_transaction_changes_nothing(engine, player):
    before = everything(engine)
    with engine.begin() as other:
        other.execute(text("SELECT pg_advisory_xact_lock(:claim)"), {"claim": CLAIM})
        assert play(engine, arguments(player)) == (False, None, None)
    assert everything(engine) == before
    assert play(engine, arguments(player))[0]  # released with the other's commit


def test_a_round_left_awaiting_while_the_call_waited_for_the_player_is_seen(engine, player):
    """The insert is a statement of its own after the settling update: it sees what committed
    while the update waited for the player's row lock (a snapshot taken before would not)."""
    outcome: list[Any] = []

    def call() -> None:
        try:
            outcome.append(play(engine, arguments(player)))
        except psycopg.Error as error:
            outcome.append(error.sqlstate)

    with engine.begin() as other:  # another request of the player's: settles, leaves a round awaiting
        other.execute(players.update().values(balance=players.c.balance - 100))
        other.execute(insert(rounds).values(awaiting_round(player)))
        caller = waiting_for_a_lock(engine, call)
    caller.join(10)
    assert outcome == [REFUSED]
    with engine.connect() as conn:
        assert conn.execute(select(players.c.balance)).scalar_one() == 900  # the other's settling only
        assert conn.execute(select(func.count()).select_from(rounds)).scalar_one() == 1


def test_the_connection_goes_back_to_the_pool_out_of_autocommit(engine, player):
    with autocommit(engine) as driver:
        assert driver.autocommit
    assert not driver.autocommit
    with pytest.raises(psycopg.Error), autocommit(engine) as driver:
        driver.execute("SELECT 1/0")
    assert not driver.autocommit and not driver.closed


def test_a_connection_that_broke_in_autocommit_leaves_the_pool(engine):
    with pytest.raises(psycopg.OperationalError), autocommit(engine) as driver:
        with engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": driver.info.backend_pid})
        driver.execute("SELECT 1")
    with engine.connect() as conn:  # a working connection, not the broken one
        assert conn.execute(text("SELECT 1")).scalar_one() == 1


def test_the_downgrade_drops_the_function(engine):
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    exists = text("SELECT count(*) FROM pg_proc WHERE proname = 'slotforge_play_round'")
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0007")
        assert conn.execute(exists).scalar_one() == 0
        command.upgrade(config, "head")
        assert conn.execute(exists).scalar_one() == 1
