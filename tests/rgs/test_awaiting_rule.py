"""The rule that a player has no second round of a game while a round of that game awaits a
decision is the rounds table's own (migration 0022: its triggers, on each database): a round
written by any statement, the server's or a direct insert, is refused while one of its player
and game awaits, and leaves nothing; a round of another game or of another player is not; a
seamless round's placeholder is not played while one awaits, though it may be voided; and the
round store reads the refusal as the refusal of its fast paths (nothing of the round stays)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, func, insert, select, update
from sqlalchemy.exc import DBAPIError

from slotforge.db import connect
from slotforge.db.engine import Writer
from slotforge.rgs.schema import migrate, operators, players, rounds, sessions
from slotforge.rgs.store import NEVER, Refused, StraightRound, store_for
from slotforge.rgs.store.postgres import REFUSED
from slotforge.rgs.store.sqlite import AWAITING_REFUSAL

from .loops import in_a_loop_of_its_own

NOW = 1_800_000_000_000
# What each database refuses a round with: the SQLSTATE of PostgreSQL's trigger, the message of
# SQLite's (those the round store reads as a refusal).
REFUSALS = {"postgresql": REFUSED, "sqlite": AWAITING_REFUSAL}


@pytest.fixture
def engine(database_url) -> Iterator[Engine]:
    """A migrated database (SQLite file or PostgreSQL) with players 1 and 2, each with 10.00 and a
    session."""
    engine = connect(database_url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(insert(operators).values(id=1, name="o", key_hash="h" * 64, created_at=NOW))
        for player in (1, 2):
            conn.execute(insert(players).values(id=player, operator_id=1, external_id=f"p-{player}", currency="EUR",
                                                fun=False, balance=1000, wallet="internal", created_at=NOW))
            conn.execute(insert(sessions).values(id=player, token_hash=f"t{player}".ljust(64, "t"), player_id=player,
                                                 jurisdiction="default", created_at=NOW, last_seen=NOW))
    yield engine
    engine.dispose()


def a_round(player: int = 1, game: str = "dynasty", status: str = "complete", **changed: Any) -> dict[str, Any]:
    """A round of ``player``'s (their session's) as a direct insert writes it."""
    return {**dict(player_id=player, session_id=player, game=game, status=status, fun=False, currency="EUR",
                   jurisdiction="default", stake=100, win=0, jackpot_win=0, balance_before=1000, balance_after=900,
                   record="{}", started_at=NOW, finished_at=None if status in ("awaiting", "pending") else NOW),
            **changed}


def write(conn: Connection, row: dict[str, Any]) -> int:
    """Insert the round ``row`` describes; its id."""
    return conn.execute(insert(rounds).values(row).returning(rounds.c.id)).scalar_one()


def refused(engine: Engine, statement) -> None:
    """``statement`` fails in a transaction of its own with the rounds table's refusal, and the
    table is as it was."""
    before = every_round(engine)
    with pytest.raises(DBAPIError) as error, engine.begin() as conn:
        conn.execute(statement)
    cause = error.value.orig
    assert (cause.sqlstate if engine.dialect.name == "postgresql" else str(cause)) == REFUSALS[engine.dialect.name]
    assert every_round(engine) == before


def every_round(engine: Engine) -> list[tuple]:
    with engine.connect() as conn:
        return sorted(map(tuple, conn.execute(select(rounds)).all()))


@pytest.mark.parametrize("status", ["complete", "awaiting", "pending", "void"])
def test_a_second_round_of_the_game_is_refused_by_the_database_while_one_awaits(engine, status):
    with engine.begin() as conn:
        write(conn, a_round(status="awaiting"))
    refused(engine, insert(rounds).values(a_round(status=status)))


def test_a_round_of_another_game_or_another_player_is_not_refused(engine):
    with engine.begin() as conn:
        waiting = write(conn, a_round(status="awaiting"))
        others = [write(conn, a_round(game="moon-of-fortune")), write(conn, a_round(player=2)),
                  write(conn, a_round(game="moon-of-fortune", status="awaiting")),
                  write(conn, a_round(player=2, status="awaiting"))]
    with engine.begin() as conn:  # the decision made: the game is free again
        conn.execute(update(rounds).where(rounds.c.id == waiting).values(status="complete", finished_at=NOW))
        later = write(conn, a_round())
    assert later > max(others) > waiting


def test_a_placeholder_is_not_played_while_a_round_of_its_game_awaits_but_may_be_voided(engine):
    """The seamless wallet's placeholder, placed before a round of the game was left awaiting: it
    cannot become a round, awaiting or complete; its debit rolled back, it is void."""
    with engine.begin() as conn:
        placeholder = write(conn, a_round(status="pending", wallet_tx="tx-1", wallet_status="debit_pending"))
        write(conn, a_round(status="awaiting"))
    this = update(rounds).where(rounds.c.id == placeholder)
    refused(engine, this.values(status="complete", finished_at=NOW, wallet_status="credit_pending"))
    refused(engine, this.values(status="awaiting"))
    with engine.begin() as conn:
        conn.execute(this.values(status="void", wallet_status="rollback_pending"))
        assert conn.execute(select(rounds.c.status).where(rounds.c.id == placeholder)).scalar_one() == "void"


def straight_round(key: str) -> StraightRound:
    """A straight round of player 1's Dynasty, complete: stake 1.00, no win."""
    return StraightRound(
        settle=dict(p_player=1, p_stake=100, p_win=0, p_now=NOW, p_latest=NEVER),
        row=a_round(balance_before=None, balance_after=None),
        stored=dict(player_id=1, key=key, request_hash="h" * 64, status_code=200, created_at=NOW, body=None),
        claim=0x5EED)


def test_the_round_store_reads_the_refusal_as_its_own_and_keeps_nothing_of_the_round(engine):
    """The straight round's transaction (on SQLite a savepoint of the batched commit; on
    PostgreSQL one call of its function), refused by the table after the player's balance was
    settled: :class:`Refused`, and the settling undone."""
    store = store_for(Writer(engine))
    with engine.begin() as conn:
        write(conn, a_round(status="awaiting"))
    before = every_round(engine)
    round_ = straight_round("k-1")
    with pytest.raises(Refused):
        in_a_loop_of_its_own(lambda: store.write("play_round", lambda transaction: store.play_round(transaction, round_)))
    assert every_round(engine) == before
    with engine.connect() as conn:
        assert conn.execute(select(players.c.balance).where(players.c.id == 1)).scalar_one() == 1000
        assert conn.execute(select(func.count()).select_from(rounds)).scalar_one() == 1
