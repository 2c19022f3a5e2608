"""The reports' summaries: each ended UTC day's finished real-money rounds, summed once.

A report of a month would otherwise read every round of the month. Instead, the first report
that needs a day which ended at least :data:`SETTLE_MS` ago summarises it, in a transaction of
its own, into two small tables:

- ``quarter_totals``: per operator, quarter hour, game, currency, model and kind (paid or free),
  the rounds, stakes, wins, hits, jackpot wins and contributions, and the stakes' squares. Every
  time zone's day starts on a quarter hour (within the server's range of days, but a few zones'
  days in the 1970s), so any zone's local days are whole sets of quarters and add up exactly.
- ``player_days``: per operator, game, currency and player who paid for a round that day, the
  first and last quarter hour they played in, and the last of the day before. A local day covers
  the end of one UTC day from some quarter on and the start of the next up to some quarter, so
  it had a player exactly when their last quarter of the first day is at or after the one, or
  their first quarter of the second before the other: a local day's players are counted from
  those rows without reading a round (:func:`players_by_local_day`).

A round is counted by its finish time, which the server gives it in the transaction that
finishes it: a day is summarised only once every transaction that could still finish a round in
it has long ended. Voiding a completed round forgets its day's summary (:func:`forget_day`): the
next report summarises the day again without it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from decimal import Decimal
from itertools import accumulate
from typing import Any

from sqlalchemy import Connection, Float, Select, and_, case, cast, delete, func, insert, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from slotforge.rgs.schema import (
    is_complete,
    jackpot_entries,
    player_counts,
    player_days,
    players,
    quarter_totals,
    rounds,
)
from slotforge.rgs.schema import summarised_days as summarised

DAY_MS = 86_400_000
QUARTER_MS = 900_000
QUARTERS = DAY_MS // QUARTER_MS
# A day is summarised once it ended this long ago: far longer than any transaction that gives a
# round its finish time takes to commit.
SETTLE_MS = 10 * 60_000

Transaction = Callable[[], AbstractContextManager[Connection]]


def day_of(moment: int) -> int:
    """The UTC day (days since the epoch) of ``moment``, ms since the epoch."""
    return moment // DAY_MS


def can_summarise(day: int, now: int) -> bool:
    """Whether ``day`` ended long enough before ``now`` that no round can still finish in it."""
    return (day + 1) * DAY_MS + SETTLE_MS <= now


# -- writing ------------------------------------------------------------------------------------
def summarise(read: Transaction, transaction: Transaction, days: Iterable[int], now: int) -> int:
    """Summarise each of ``days`` not yet summarised, each in a transaction of its own (a SQLite
    server's writers wait for one day at a time, never for a month); how many were summarised.
    Which are summarised already is read on a plain connection (``read``): a report whose days
    are all summarised takes no write lock."""
    wanted = sorted(set(days))
    if not wanted:
        return 0
    if not all(can_summarise(day, now) for day in wanted):
        raise ValueError(f"days up to {wanted[-1]} cannot be summarised yet at {now}")
    with read() as conn:
        done = set(conn.execute(select(summarised.c.day).where(summarised.c.day.between(wanted[0], wanted[-1])))
                   .scalars())
    count = 0
    for day in wanted:
        if day not in done:
            with transaction() as conn:
                count += summarise_day(conn, day, now)
    return count


def summarise_day(conn: Connection, day: int, now: int) -> bool:
    """Write ``day``'s summary, unless another process has (its row in ``summarised_days``, written
    first, is the claim: a second writer waits on it, then finds it taken)."""
    claimed = conn.execute(insert_new(conn, summarised).values(day=day, summarised_at=now)).rowcount
    if not claimed:
        return False
    conn.execute(insert(quarter_totals).from_select(QUARTER_COLUMNS, quarter_sums(day)))
    add_contributions(conn, day)
    conn.execute(insert(player_days).from_select(PLAYER_DAY_COLUMNS, players_of(day)))
    for linked in (day, day + 1):
        link_days(conn, linked)
        count_players(conn, linked)
    return True


def forget_day(conn: Connection, day: int) -> None:
    """Drop ``day``'s summary (a round of it changed): the next report that needs it sums it anew."""
    conn.execute(delete(summarised).where(summarised.c.day == day))
    conn.execute(delete(quarter_totals).where(quarter_totals.c.day == day))
    conn.execute(delete(player_days).where(player_days.c.day == day))
    conn.execute(delete(player_counts).where(player_counts.c.day == day))
    conn.execute(update(player_days).where(player_days.c.day == day + 1).values(last_quarter_before=None))
    count_players(conn, day + 1)


def insert_new(conn: Connection, table: Any) -> Any:
    """An INSERT that leaves an existing row (same key) as it is, in the connection's dialect."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(table).on_conflict_do_nothing()


def finished_on(day: int) -> tuple[Any, ...]:
    """The finished real-money rounds of the UTC ``day`` (read through ``ix_rounds_finished``)."""
    return (is_complete(rounds), rounds.c.fun.is_(False), rounds.c.finished_at >= day * DAY_MS,
            rounds.c.finished_at < (day + 1) * DAY_MS)


def quarter_of(day: int) -> Any:
    return (rounds.c.finished_at - day * DAY_MS) // QUARTER_MS


QUARTER_KEY = ("operator_id", "quarter", "game", "currency", "model", "free")
QUARTER_COLUMNS = ["operator_id", "day", "quarter", "game", "currency", "model", "free", "rounds", "stakes", "wins",
                   "hits", "jackpot_wins", "stake_squares", "contributions"]
PLAYER_DAY_COLUMNS = ["operator_id", "day", "game", "currency", "player_id", "first_quarter", "last_quarter"]


def quarter_key(day: int) -> tuple[Any, ...]:
    """The columns a quarter's totals are kept by, for the rounds of ``day`` (:data:`QUARTER_KEY`)."""
    return (players.c.operator_id, quarter_of(day), rounds.c.game, rounds.c.currency,
            func.coalesce(rounds.c.model, ""), rounds.c.free_grant_id.is_not(None))


def quarter_sums(day: int) -> Any:
    key = quarter_key(day)
    stake = cast(rounds.c.stake, Float)
    return (select(key[0], literal(day), *key[1:], func.count(), func.sum(rounds.c.stake), func.sum(rounds.c.win),
                   func.sum(case((rounds.c.win > 0, 1), else_=0)), func.sum(rounds.c.jackpot_win),
                   func.sum(stake * stake), literal("0"))
            .select_from(rounds.join(players, players.c.id == rounds.c.player_id))
            .where(*finished_on(day)).group_by(*key))


def add_contributions(conn: Connection, day: int) -> None:
    """The jackpot contributions of ``day``'s quarters, summed as exact decimals (the database's
    own sum would be a float on SQLite)."""
    sums: dict[tuple[Any, ...], Decimal] = defaultdict(Decimal)
    for *key, amount in conn.execute(
            select(*quarter_key(day), jackpot_entries.c.amount)
            .select_from(rounds.join(players, players.c.id == rounds.c.player_id)
                         .join(jackpot_entries, jackpot_entries.c.round_id == rounds.c.id))
            .where(*finished_on(day), jackpot_entries.c.kind == "contribution")):
        sums[tuple(key)] += Decimal(amount)
    for key, total in sums.items():
        conn.execute(update(quarter_totals).where(
            quarter_totals.c.day == day, *(quarter_totals.c[name] == value for name, value in zip(
                QUARTER_KEY, key, strict=True))).values(contributions=str(total)))


def players_of(day: int) -> Any:
    """Each player's first and last quarter of ``day`` per game and currency, of the rounds they
    paid for (the daily report's players: free rounds are the operator's)."""
    quarter = quarter_of(day)
    return (select(players.c.operator_id, literal(day), rounds.c.game, rounds.c.currency, rounds.c.player_id,
                   func.min(quarter), func.max(quarter))
            .select_from(rounds.join(players, players.c.id == rounds.c.player_id))
            .where(*finished_on(day), rounds.c.free_grant_id.is_(None))
            .group_by(players.c.operator_id, rounds.c.game, rounds.c.currency, rounds.c.player_id))


def link_days(conn: Connection, day: int) -> None:
    """Give each player's row of ``day`` their last quarter of the day before (None: no play then)."""
    before = player_days.alias("before")
    last_before = (select(before.c.last_quarter).where(
        before.c.day == day - 1, *(before.c[name] == player_days.c[name]
                                   for name in ("operator_id", "game", "currency", "player_id")))
        .scalar_subquery())
    conn.execute(update(player_days).where(player_days.c.day == day).values(last_quarter_before=last_before))


def count_players(conn: Connection, day: int) -> None:
    """Write ``day``'s ``player_counts`` from its ``player_days`` (none where nobody played)."""
    conn.execute(delete(player_counts).where(player_counts.c.day == day))
    tallies: dict[tuple[int, str, str], PlayerTally] = defaultdict(PlayerTally)
    for operator_id, game, currency, first, last, last_before in conn.execute(
            select(player_days.c.operator_id, player_days.c.game, player_days.c.currency, player_days.c.first_quarter,
                   player_days.c.last_quarter, player_days.c.last_quarter_before).where(player_days.c.day == day)):
        tallies[operator_id, game, currency].add(first, last, last_before)
    rows = [{"operator_id": operator_id, "day": day, "game": game, "currency": currency, **tally.as_json()}
            for (operator_id, game, currency), tally in tallies.items()]
    if rows:
        conn.execute(insert(player_counts), rows)


class PlayerTally:
    """Counts of one day's players by their first and last quarter (see ``player_counts``)."""

    def __init__(self) -> None:
        self.lasts = [0] * QUARTERS  # players whose last quarter is q
        self.firsts = [0] * QUARTERS  # whose first quarter is q
        self.both = [0] * (QUARTERS + 1)  # both[q]'s steps: +1 where a player starts to count, -1 after

    def add(self, first: int, last: int, last_before: int | None) -> None:
        self.lasts[last] += 1
        self.firsts[first] += 1
        if last_before is not None and first < last_before:
            # counted in both[q] for first < q <= last_before: a step up at first + 1, down after
            self.both[first + 1] += 1
            if last_before + 1 <= QUARTERS:
                self.both[last_before + 1] -= 1

    def as_json(self) -> dict[str, str]:
        late = list(accumulate(reversed([*self.lasts, 0])))[::-1]  # late[q]: last >= q
        early = [0, *accumulate(self.firsts)]  # early[q]: first < q
        both = list(accumulate(self.both))
        return {"late": json.dumps(late), "early": json.dumps(early), "both": json.dumps(both)}


# -- reading ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Span:
    """A local day as UTC quarters: from quarter ``start`` of UTC day ``day`` to the end of that
    day, then (``end`` > 0) to quarter ``end`` of the next; or, where ``within`` is set, from the
    day's first quarter to quarter ``within`` of the same day (a short day starting at midnight)."""

    day: int
    start: int
    end: int
    within: int | None = None


def span_of(start_ms: int, end_ms: int) -> Span | None:
    """The local day ``[start_ms, end_ms)`` as quarters of at most two UTC days, or None where the
    summaries cannot count its players (an edge off the quarter hour, or a short day in the middle
    of a UTC day)."""
    if start_ms % QUARTER_MS or end_ms % QUARTER_MS:
        return None
    day, first = divmod(start_ms, DAY_MS)
    day_end = (day + 1) * DAY_MS
    if end_ms <= day_end:
        if end_ms == day_end:
            return Span(day, first // QUARTER_MS, 0)
        return Span(day, 0, 0, within=(end_ms - day * DAY_MS) // QUARTER_MS) if first == 0 else None
    if end_ms > day_end + DAY_MS:
        return None
    return Span(day, first // QUARTER_MS, (end_ms - day_end) // QUARTER_MS)


def players_by_local_day(conn: Connection, operator_id: int, spans: list[Span]) -> dict[tuple[int, str, str], int]:
    """Players per (index of the local day in ``spans``, game, currency): those who played the
    first UTC day from its quarter on, plus those who played the next before its quarter, less
    those who did both. A day that starts and ends on the same quarter (every day but those the
    clocks change on) reads the day's ``player_counts``; the others count ``player_days``."""
    counts: dict[tuple[int, str, str], int] = defaultdict(int)
    tallies = day_counts(conn, operator_id, spans[0].day, spans[-1].day + 1)
    irregular = []
    for index, span in enumerate(spans):
        if span.within is None and span.end and span.start != span.end:
            irregular.append((index, span))
            continue
        for (day, game, currency), tally in tallies.items():
            if day == span.day:
                counts[index, game, currency] += (tally["early"][span.within] if span.within is not None
                                                  else tally["late"][span.start])
            elif day == span.day + 1 and span.end:
                counts[index, game, currency] += tally["early"][span.end] - tally["both"][span.end]
    for index, span in irregular:
        for (game, currency), count in players_of_span(conn, operator_id, span).items():
            counts[index, game, currency] += count
    return {key: count for key, count in counts.items() if count}


def day_counts(conn: Connection, operator_id: int, first: int, last: int) -> dict[tuple[int, str, str], Any]:
    """The ``player_counts`` of the days from ``first`` to ``last``, by (day, game, currency)."""
    return {(row.day, row.game, row.currency): {name: json.loads(row._mapping[name]) for name in COUNTS}
            for row in conn.execute(select(player_counts).where(player_counts.c.operator_id == operator_id,
                                                                player_counts.c.day.between(first, last)))}


COUNTS = ("late", "early", "both")


def players_of_span(conn: Connection, operator_id: int, span: Span) -> dict[tuple[str, str], int]:
    """The players of a local day the clocks change on (its quarters differ at its two ends), by
    game and currency, counted from the two UTC days' ``player_days``."""
    on_first = and_(player_days.c.day == span.day, player_days.c.last_quarter >= span.start)
    on_next = and_(player_days.c.day == span.day + 1, player_days.c.first_quarter < span.end,
                   or_(player_days.c.last_quarter_before.is_(None), player_days.c.last_quarter_before < span.start))
    query = (select(player_days.c.game, player_days.c.currency, func.count())
             .where(player_days.c.operator_id == operator_id, or_(on_first, on_next))
             .group_by(player_days.c.game, player_days.c.currency))
    return {(game, currency): int(count) for game, currency, count in conn.execute(query)}


# The instant a quarter's totals start at, in ms since the epoch.
QUARTER_START = quarter_totals.c.day * DAY_MS + quarter_totals.c.quarter * QUARTER_MS


def quarters_between(operator_id: int | None, since: int, until: int, free: bool) -> Select:
    """A query of the quarters' totals from ``since`` to ``until`` (ms on quarter hours) of one
    operator (None: every operator), of the paid rounds or the free ones (``free``); the caller
    adds the columns it sums and groups by."""
    query = select().select_from(quarter_totals).where(
        quarter_totals.c.day.between(day_of(since), day_of(until - 1)), QUARTER_START >= since,
        QUARTER_START < until, quarter_totals.c.free.is_(free))
    if operator_id is not None:
        query = query.where(quarter_totals.c.operator_id == operator_id)
    return query
