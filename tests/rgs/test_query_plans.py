"""The look-ups every round makes read the small partial indexes, whatever the player's history:
their open rounds (awaiting a decision, pending at a seamless wallet) and their wins on the way
to the wallet. A look-up through the indexes of all rounds (by player, by status) grows with
every round the player has played; a constant written as a bound parameter hides the index's
condition from the planner, which is how SQLite came to walk a seamless player's whole history
on every round."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from sqlalchemy import insert, text
from sqlalchemy.dialects import postgresql, sqlite

from slotforge.db import connect
from slotforge.rgs.schema import migrate, operators, players, rounds, sessions
from slotforge.rgs.store import general
from slotforge.rgs.store import sqlite as sqlite_store
from slotforge.rgs.wallets.seamless import debits

# Each hot statement, and the partial index its look-up must read.
SQLITE_STATEMENTS = {
    "a seamless round's placeholder": (sqlite_store.STATEMENTS["place"].text, ["ix_rounds_pending"]),
    "a seamless player's balance settled": (sqlite_store.STATEMENTS["settle_at_wallet"].text, ["ix_rounds_credit_pending"]),
}
# Each hot statement that writes a round, whose trigger looks for a round of the game awaiting a
# decision (the rounds table's rule, migration 0022).
SQLITE_TRIGGERED = {
    "the straight round's insert": sqlite_store.STATEMENTS["round"].text,
    "a seamless round's placeholder": sqlite_store.STATEMENTS["place"].text,
    "a seamless round's finish": sqlite_store.STATEMENTS["finish"].text,
}
QUERIES = {
    "the open round of a game": (general.OPEN_ROUND, ["ix_rounds_awaiting"]),
    "a pending twin of a request": (general.PENDING_TWIN, ["ix_rounds_pending"]),
    "a seamless player's wins on their way": (debits.PENDING_WINS, ["ix_rounds_credit_pending"]),
}
PARAMETERS = {"p_player": 1, "player_id": 1, "p_game": "dynasty", "game": "dynasty", "p_key": "k", "request_key": "k",
              "p_request_key": "k"}


def sqlite_plan(db, sql: str) -> str:
    names = set(re.findall(r":(\w+)", sql))
    return " | ".join(row[3] for row in db.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}",
                                                             {name: PARAMETERS.get(name, 0) for name in names}))


def triggers_indexes(db, sql: str) -> set[str]:
    """The indexes that the programs of the triggers ``sql`` fires open on SQLite (EXPLAIN QUERY
    PLAN leaves triggers out; EXPLAIN lists each one's program after the statement's, from an
    ``Init`` whose comment names it)."""
    names = set(re.findall(r":(\w+)", sql))
    indexes = dict(db.exec_driver_sql("SELECT rootpage, name FROM sqlite_master WHERE type = 'index'").all())
    program = db.exec_driver_sql(f"EXPLAIN {sql}", {name: PARAMETERS.get(name, 0) for name in names}).all()
    in_trigger, opened = False, set()
    for _address, opcode, _p1, page, _p3, comment, *_ in program:
        in_trigger = in_trigger or (opcode == "Init" and str(comment).startswith("-- TRIGGER"))
        if in_trigger and opcode == "OpenRead" and page in indexes:
            opened.add(indexes[page])
    return opened


def three_players(conn) -> None:
    """Operator 1's players 1, 2 and 3, and a session of player 1 (id 1)."""
    conn.execute(insert(operators).values(id=1, name="o", key_hash="h", created_at=0))
    conn.execute(insert(players), [dict(id=player, operator_id=1, external_id=f"p{player}", currency="EUR",
                                        fun=False, balance=0, created_at=0) for player in (1, 2, 3)])
    conn.execute(insert(sessions).values(id=1, token_hash="t", player_id=1, jurisdiction="default",
                                         created_at=0, last_seen=0))


@pytest.fixture
def history(database_url):
    """A database whose player 1 has 3,000 finished rounds, and other players 550, 250 of them open."""
    engine = connect(database_url)
    migrate(engine)
    with engine.begin() as conn:
        three_players(conn)
        conn.execute(insert(rounds), [dict(
            player_id=1 if n % 10 else 2 + n % 2, session_id=1, game="dynasty", status="complete", fun=False,
            currency="EUR", jurisdiction="default", stake=20, win=0, jackpot_win=0, balance_before=0,
            balance_after=0, record="{}", started_at=n, wallet_status="settled") for n in range(3_300)])
        # Other players' rounds open meanwhile: 200 at the wallet, 50 awaiting a decision (a busy
        # server's), each of a game of its own (the rounds table refuses a second awaiting round).
        conn.execute(insert(rounds), [dict(
            player_id=2 + n % 2, session_id=1, game="dynasty" if n < 200 else f"game-{n}",
            status="pending" if n < 200 else "awaiting",
            fun=False, currency="EUR", jurisdiction="default", stake=20, win=0, jackpot_win=0, balance_before=0,
            balance_after=0, record="{}", started_at=n, request_key=f"k{n}") for n in range(250)])
        if engine.dialect.name == "postgresql":
            conn.execute(text("ANALYZE"))
    yield engine
    engine.dispose()


def test_every_hot_look_up_reads_its_partial_index(history):
    with history.connect() as conn:
        if history.dialect.name == "sqlite":
            plans = {what: (sqlite_plan(conn, sql), indexes) for what, (sql, indexes) in SQLITE_STATEMENTS.items()}
            dialect = sqlite.dialect(paramstyle="named")
            plans |= {what: (sqlite_plan(conn, str(query.compile(dialect=dialect))), indexes)
                      for what, (query, indexes) in QUERIES.items()}
            triggered = {what: triggers_indexes(conn, sql) for what, sql in SQLITE_TRIGGERED.items()}
        else:  # the functions' statements hold their constants as literals; the queries are checked here
            plans, triggered = {}, {}
            for what, (query, indexes) in QUERIES.items():
                bound = query.params({name: value for name, value in PARAMETERS.items()
                                      if name in query.compile().params})
                sql = str(bound.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))
                plans[what] = (" | ".join(conn.exec_driver_sql(f"EXPLAIN {sql}").scalars()), indexes)
    for what, (plan, indexes) in plans.items():
        assert "ix_rounds_player_id" not in plan and "Seq Scan" not in plan and "SCAN rounds" not in plan, \
            f"{what} reads the player's whole history: {plan}"
        if history.dialect.name == "sqlite":  # PostgreSQL may read the few open rounds by status instead
            for index in indexes:
                assert index in plan, f"{what}: {plan}"
            assert "ix_rounds_status" not in plan, f"{what}: {plan}"
    # The rounds table's trigger looks for a round of the game awaiting a decision through
    # ix_rounds_awaiting alone (on PostgreSQL its function's look-up is "the open round of a game").
    for what, opened in triggered.items():
        assert opened == {"ix_rounds_awaiting"}, f"{what}: its trigger opens {opened}"


def test_the_outbox_workers_look_for_old_holds_reads_the_open_rounds_alone(history):
    """Each pass of the outbox's worker looks for the debits' rollbacks held too long by their
    placeholders: through the open rounds (by status), never the rounds' whole table."""
    with history.connect() as conn:
        if history.dialect.name == "sqlite":
            plan = sqlite_plan(conn, str(debits.OLD_HOLDS.compile(dialect=sqlite.dialect(paramstyle="named"))))
        else:
            sql = str(debits.OLD_HOLDS.params(p_before=0).compile(dialect=postgresql.dialect(),
                                                                     compile_kwargs={"literal_binds": True}))
            plan = " | ".join(conn.exec_driver_sql(f"EXPLAIN {sql}").scalars())
    assert "ix_rounds_status" in plan or "ix_rounds_pending" in plan, plan
    assert "SCAN rounds" not in plan and "Seq Scan on rounds" not in plan, plan


DAY_MS = 86_400_000


@pytest.fixture
def year_of_rounds(database_url):
    """A database whose operator's rounds finished over a year, 60 a day, 20 of them void."""
    engine = connect(database_url)
    migrate(engine)
    with engine.begin() as conn:
        three_players(conn)
        conn.execute(insert(rounds), [dict(
            player_id=1 + n % 3, session_id=1, game="dynasty", status="void" if n % 3 == 0 else "complete",
            fun=False, currency="EUR", jurisdiction="default", stake=20, win=n % 50, jackpot_win=0, balance_before=0,
            balance_after=0, record="{}", started_at=n * DAY_MS // 60, finished_at=n * DAY_MS // 60)
            for n in range(365 * 60)])
        if engine.dialect.name == "postgresql":
            conn.execute(text("ANALYZE"))
    yield engine
    engine.dispose()


def test_the_reports_of_a_month_read_the_rounds_finished_in_it_alone(year_of_rounds):
    """The back office's daily and live-RTP reports of the last 30 days of a year read that month's
    completed rounds (about 1,200) through the index by finish time, not the year's 21,900."""
    from zoneinfo import ZoneInfo

    from slotforge.rgs.backoffice import reports

    from .plans import assert_read_through

    zone = ZoneInfo("Europe/Malta")
    last = date(1970, 1, 1) + timedelta(days=364)
    starts = reports.day_starts(last - timedelta(days=29), last, zone)
    with year_of_rounds.connect() as conn:
        for query in (reports.daily_query(1, starts, zone), reports.rtp_query(1, starts[0], None)):
            assert_read_through(conn, query, "ix_rounds_finished", most_rows=2_000)


def test_a_players_loss_over_a_month_reads_the_rounds_started_in_it_alone(year_of_rounds):
    """A player with loss limits has their loss of the last 30 days read at every round start:
    through the index by player and start time, about 600 of their year's 7,300 rounds, and the
    figure is the books' (stakes less wins of its complete rounds)."""
    from slotforge.rgs import limits

    from .plans import assert_read_through

    now = 365 * DAY_MS
    since = {f"p_since_{period}": now - length for period, length in limits.PERIODS.items()}
    query = limits.NET_LOSSES.params(p_player=2, p_since=min(since.values()), **since)
    with year_of_rounds.connect() as conn:
        assert_read_through(conn, query, "ix_rounds_player_started", most_rows=1_000)
        losses = limits.net_losses(conn, 2, now)
    month = [n for n in range(365 * 60) if 1 + n % 3 == 2 and n * DAY_MS // 60 > now - 30 * DAY_MS]
    assert 500 < len(month) < 700 and losses["month"] == sum(20 - n % 50 for n in month)
