"""The reports' summaries of ended days: a report added up from them says exactly what the same
report read from the rounds says, in any time zone, across changes of the clocks, for any mix of
paid, free, fun, void and unfinished rounds; and a void afterwards is reflected.

The rounds are written straight into a migrated database (on SQLite and PostgreSQL), so that each
example can place them at any instant; the reference is the report with no day summarised, which
reads every round (the path the back office's other tests hold to the rounds' own answers)."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select

from slotforge.db import connect
from slotforge.rgs.backoffice import reports, summary
from slotforge.rgs.schema import (
    jackpot_entries,
    jackpot_pools,
    migrate,
    operators,
    player_counts,
    player_days,
    players,
    quarter_totals,
    rounds,
    sessions,
    summarised_days,
)

HOUR_MS = 3_600_000
# Zones whose days start on odd quarters, move their clocks by half an hour, or sit far from UTC.
ZONES = ["UTC", "Europe/Malta", "America/New_York", "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe",
         "Pacific/Chatham", "Pacific/Kiritimati"]
# Around the changes of the clocks of 2026 (Malta 29 March and 25 October, New York 8 March,
# Lord Howe 5 April and 4 October, Chatham 5 April and 27 September).
AROUND = [datetime(2026, 3, 7, tzinfo=UTC), datetime(2026, 3, 28, tzinfo=UTC), datetime(2026, 4, 4, tzinfo=UTC),
          datetime(2026, 9, 26, tzinfo=UTC), datetime(2026, 10, 24, tzinfo=UTC)]
MODELS = ["dynasty/96.00:aa11", "dynasty/94.00:bb22", None]
WINDOW_MS = 4 * 86_400_000  # the rounds finish within four days of a base instant
LATER = int(datetime(2027, 1, 1, tzinfo=UTC).timestamp() * 1000)  # every day above has ended


@pytest.fixture(scope="module")
def books(module_database_url):
    """A migrated database with two operators (the second's rounds must never show in the
    first's reports), three players each, and a jackpot pool."""
    engine = connect(module_database_url)
    migrate(engine)
    with engine.begin() as conn:
        ids = []
        for name in ("first", "second"):
            operator = conn.execute(insert(operators).values(name=f"{name}-{secrets.token_hex(3)}",
                                                             key_hash=secrets.token_hex(32), created_at=0)
                                    .returning(operators.c.id)).scalar_one()
            people = []
            for number in range(3):
                player = conn.execute(insert(players).values(
                    operator_id=operator, external_id=f"p{number}", currency="EUR" if number else "GBP", fun=False,
                    balance=0, created_at=0).returning(players.c.id)).scalar_one()
                session = conn.execute(insert(sessions).values(
                    token_hash=secrets.token_hex(32), player_id=player, jurisdiction="default", created_at=0,
                    last_seen=0).returning(sessions.c.id)).scalar_one()
                people.append((player, session, "EUR" if number else "GBP"))
            ids.append((operator, people))
        conn.execute(insert(jackpot_pools).values(name="pot", current="0", reserve="0", contributed="0", seeded="0",
                                                  paid="0", wins=0))
    yield engine, ids
    engine.dispose()


a_round = st.fixed_dictionaries({
    "operator": st.sampled_from([0, 0, 0, 1]),
    "player": st.integers(0, 2),
    "game": st.sampled_from(["dynasty", "moon-of-fortune"]),
    "at": st.integers(0, WINDOW_MS - 1),  # ms after the base instant
    "status": st.sampled_from(["complete"] * 6 + ["void", "awaiting"]),
    "fun": st.sampled_from([False] * 5 + [True]),
    "free": st.sampled_from([False, False, False, True]),
    "stake": st.integers(1, 5_000),
    "win": st.sampled_from([0, 0, 0]) | st.integers(0, 20_000),
    "jackpot_win": st.sampled_from([0, 0, 0, 0, 50_000]),
    "model": st.sampled_from(MODELS),
    "contribution": st.sampled_from([None, "0.0125", "0.3333333333"]),
})


def write_rounds(engine, ids, base: int, drawn: list[dict]) -> None:
    """Replace every round and summary with ``drawn`` (ids given here: two statements in all). The
    rounds table refuses a round of a player's game while one awaits a decision: the rounds
    awaiting are written last, and a player's second of a game drawn awaiting is written void,
    which no report counts either."""
    rows, entries, awaiting = [], [], set()
    for number, spec in enumerate(drawn, start=1):
        player, session, currency = ids[spec["operator"]][1][spec["player"]]
        if spec["status"] == "awaiting" and (player, spec["game"]) in awaiting:
            spec = {**spec, "status": "void"}
        elif spec["status"] == "awaiting":
            awaiting.add((player, spec["game"]))
        finished = base + spec["at"]
        record = {"game": spec["game"], **({"model": spec["model"]} if spec["model"] else {})}
        rows.append({
            "id": number, "player_id": player, "session_id": session, "game": spec["game"], "status": spec["status"],
            "fun": spec["fun"], "currency": currency, "jurisdiction": "default", "stake": spec["stake"],
            "win": spec["win"] + spec["jackpot_win"], "jackpot_win": spec["jackpot_win"], "balance_before": 0,
            "balance_after": 0, "record": json.dumps(record), "started_at": finished - 5_000,
            "finished_at": None if spec["status"] == "awaiting" else finished,
            "free_grant_id": number if spec["free"] else None})
        if spec["contribution"]:
            entries.append({"pool": "pot", "round_id": number, "kind": "contribution",
                            "amount": spec["contribution"], "detail": "{}", "created_at": 0})
    with engine.begin() as conn:
        for table in (jackpot_entries, rounds, summarised_days, quarter_totals, player_days, player_counts):
            conn.execute(delete(table))
        conn.execute(insert(rounds), sorted(rows, key=lambda row: row["status"] == "awaiting"))
        if entries:
            conn.execute(insert(jackpot_entries), entries)


def near_midnights(zone: ZoneInfo, start: int) -> st.SearchStrategy[int]:
    """Instants (ms after ``start``) at and around the zone's midnights in the window, where a
    player's last quarter of one UTC day and first of the next decide which local days they played."""
    first = datetime.fromtimestamp(start / 1000, zone).date()
    midnights = [moment - start for moment in reports.day_starts(first, first + timedelta(days=4), zone)]
    near = st.builds(lambda midnight, step: midnight + step, st.sampled_from(midnights),
                     st.sampled_from([-900_000, -60_000, -1, 0, 1, 60_000, 899_999, 900_000]))
    return near.filter(lambda moment: 0 <= moment < WINDOW_MS)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), zone=st.sampled_from(ZONES), base=st.sampled_from(AROUND), first_offset=st.integers(-1, 2),
       length=st.integers(0, 3))
def test_a_daily_report_from_the_summaries_is_the_report_from_the_rounds(books, data, zone, base, first_offset,
                                                                         length):
    engine, ids = books
    start = int(base.timestamp() * 1000)
    a_round_near = a_round.flatmap(lambda spec: near_midnights(ZoneInfo(zone), start).map(
        lambda at: {**spec, "at": at}))
    drawn = data.draw(st.lists(a_round_near | a_round_near | a_round, min_size=1, max_size=30), label="drawn")
    write_rounds(engine, ids, start, drawn)
    tz = ZoneInfo(zone)
    first = base.date() + timedelta(days=first_offset)
    last = first + timedelta(days=length)
    operator = ids[0][0]
    with engine.connect() as conn:
        from_rounds = reports.daily(conn, operator, first, last, tz)
    summarised = reports.summarise_for_daily(engine.connect, engine.begin, first, last, tz, LATER)
    with engine.connect() as conn:
        from_summaries = reports.daily(conn, operator, first, last, tz)
        assert reports.summarised_local_days(conn, reports.day_starts(first, last, tz)) == length + 1
    assert summarised >= 1
    assert from_summaries == from_rounds
    assert sum(row["rounds"] for row in from_rounds) == sum(
        1 for spec in drawn if spec["operator"] == 0 and spec["status"] == "complete" and not spec["fun"]
        and not spec["free"] and in_local_days(start, spec, tz, first, last))


@pytest.mark.parametrize("zone", ["Europe/Malta", "Asia/Kathmandu", "America/New_York"])
def test_a_player_at_both_ends_of_a_local_day_is_one_of_its_players(books, zone):
    """Just after local midnight (the first UTC day's last quarter of play) and just before the
    next (the second UTC day's first): two rounds, one player, on the summaries as on the rounds."""
    engine, ids = books
    tz, base = ZoneInfo(zone), AROUND[0]
    start = int(base.timestamp() * 1000)
    midnights = [moment - start for moment in reports.day_starts(base.date(), base.date() + timedelta(days=2), tz)]
    spec = {"operator": 0, "player": 1, "game": "dynasty", "status": "complete", "fun": False, "free": False,
            "stake": 100, "win": 0, "jackpot_win": 0, "model": None, "contribution": None}
    # The second player plays twice just after one midnight, once just after the next: their
    # first quarter of the second UTC day is the quarter the local day ends on.
    write_rounds(engine, ids, start, [{**spec, "at": midnights[1]}, {**spec, "at": midnights[2] - 1},
                                      {**spec, "player": 2, "at": midnights[1] + 60_000},
                                      {**spec, "player": 2, "at": midnights[1] + 1_800_000},
                                      {**spec, "player": 2, "at": midnights[2] + 60_000}])
    day = base.date() + timedelta(days=1)
    reports.summarise_for_daily(engine.connect, engine.begin, day, day + timedelta(days=1), tz, LATER)
    with engine.connect() as conn:
        report = reports.daily(conn, ids[0][0], day, day + timedelta(days=1), tz)
    assert [(row["day"], row["rounds"], row["players"]) for row in report] == [
        (day.isoformat(), 4, 2), ((day + timedelta(days=1)).isoformat(), 1, 1)]


def in_local_days(start: int, spec: dict, zone: ZoneInfo, first: date, last: date) -> bool:
    finished = start + spec["at"]
    return first <= datetime.fromtimestamp(finished / 1000, zone).date() <= last


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(drawn=st.lists(a_round, min_size=1, max_size=40), base=st.sampled_from(AROUND),
       since_minutes=st.none() | st.integers(-60, 3 * 24 * 60), hours=st.none() | st.integers(1, 96),
       free=st.booleans(), every_operator=st.booleans())
def test_a_live_rtp_from_the_summaries_is_the_one_from_the_rounds(books, drawn, base, since_minutes, hours, free,
                                                                  every_operator):
    """Any period, its edges off the quarter hour or open: the summarised stretch and the rounds
    read at its edges add up to the rounds of the whole period, per game and model."""
    engine, ids = books
    start = int(base.timestamp() * 1000)
    write_rounds(engine, ids, start, drawn)
    since = None if since_minutes is None else start + since_minutes * 60_000 + 7_000
    until = None if hours is None else (since or start) + hours * HOUR_MS - 3_000
    operator = None if every_operator else ids[0][0]
    theory = {model: (reports.Decimal("0.96"), reports.Decimal("5")) for model in MODELS if model}
    with engine.connect() as conn:
        from_rounds = reports.live_rtp(conn, operator, since, until, theory, free=free)
    reports.summarise_for_rtp(engine.connect, engine.begin, since, until, start + 6 * summary.DAY_MS)
    with engine.connect() as conn:
        stretch = reports.summarised_stretch(conn, since, until)
        from_summaries = reports.live_rtp(conn, operator, since, until, theory, free=free)
    assert from_summaries == from_rounds
    if since is not None and until is not None and until - since >= 2 * summary.DAY_MS:
        assert stretch is not None  # a whole day within the period, ended: summarised, and read so


def test_a_void_after_its_day_was_summarised_leaves_the_report(books):
    """Voiding a completed round forgets its day's summary; the next report sums the day anew."""
    engine, ids = books
    start = int(AROUND[1].timestamp() * 1000)
    spec = {"operator": 0, "player": 1, "game": "dynasty", "at": 36_000_000, "status": "complete",
            "fun": False, "free": False, "stake": 100, "win": 0, "jackpot_win": 0, "model": MODELS[0],
            "contribution": None}
    write_rounds(engine, ids, start, [spec, {**spec, "player": 2, "stake": 300}])
    day = AROUND[1].date()
    reports.summarise_for_daily(engine.connect, engine.begin, day, day, ZoneInfo("UTC"), LATER)
    with engine.connect() as conn:
        before = reports.daily(conn, ids[0][0], day, day, ZoneInfo("UTC"))
    assert [(row["rounds"], row["players"], row["stakes"]) for row in before] == [(2, 2, "4.00")]
    with engine.begin() as conn:
        voided = conn.execute(select(rounds.c.id, rounds.c.finished_at).where(rounds.c.stake == 300)).one()
        conn.execute(rounds.update().where(rounds.c.id == voided.id).values(status="void"))
        summary.forget_day(conn, summary.day_of(voided.finished_at))
    assert reports.summarise_for_daily(engine.connect, engine.begin, day, day, ZoneInfo("UTC"), LATER) == 1
    with engine.connect() as conn:
        after = reports.daily(conn, ids[0][0], day, day, ZoneInfo("UTC"))
    assert [(row["rounds"], row["players"], row["stakes"]) for row in after] == [(1, 1, "1.00")]


def test_a_day_is_summarised_once_and_only_after_it_ended():
    now = int(datetime(2026, 3, 11, 0, 5, tzinfo=UTC).timestamp() * 1000)
    yesterday = summary.day_of(now) - 1
    assert not summary.can_summarise(yesterday, now)  # ended five minutes ago: a round may still commit
    assert summary.can_summarise(yesterday, now + summary.SETTLE_MS)
    with pytest.raises(ValueError, match="cannot be summarised yet"):
        summary.summarise(None, None, [yesterday], now)


@pytest.mark.parametrize(("zone", "day", "expected"), [
    ("UTC", date(2026, 3, 10), summary.Span(20522, 0, 0)),
    ("Europe/Malta", date(2026, 3, 10), summary.Span(20521, 92, 92)),  # 23:00 UTC to 23:00 UTC
    ("Europe/Malta", date(2026, 3, 29), summary.Span(20540, 92, 88)),  # 23 hours: 23:00 to 22:00 UTC
    ("Asia/Kathmandu", date(2026, 3, 10), summary.Span(20521, 73, 73)),  # +5:45: 18:15 UTC
    ("Europe/London", date(2026, 3, 29), summary.Span(20541, 0, 0, within=92)),  # 00:00 to 23:00 UTC
    ("Europe/London", date(2026, 10, 25), summary.Span(20750, 92, 96)),  # 25 hours: 23:00 to 24:00 UTC
])
def test_a_local_day_is_two_stretches_of_utc_quarters(zone, day, expected):
    starts = reports.day_starts(day, day, ZoneInfo(zone))
    assert summary.span_of(starts[0], starts[1]) == expected


def test_a_local_day_off_the_quarter_hour_is_read_from_its_rounds():
    """Monrovia kept -0:44:30 until 1972: its days then start off the quarter hour."""
    starts = reports.day_starts(date(1971, 6, 1), date(1971, 6, 2), ZoneInfo("Africa/Monrovia"))
    assert reports.spans_of(starts) == [None, None]
    assert reports.days_to_summarise(starts, LATER) == []
