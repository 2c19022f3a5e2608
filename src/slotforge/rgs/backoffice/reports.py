"""The back office's figures: per game and day (in the operator's time zone) and live RTP
against theory, for one operator's real-money rounds.

Money stays integer minor units until the answer writes it as decimal text; the jackpot
contributions, kept to fractions of a cent, are summed as exact decimals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Float, Select, case, cast, func, select

from slotforge.engine.game import version_of
from slotforge.rgs.backoffice import band, summary
from slotforge.rgs.money import to_signed_text, to_text
from slotforge.rgs.offer import Offer
from slotforge.rgs.schema import is_complete, jackpot_entries, players, quarter_totals, rounds, summarised_days
from slotforge.rgs.volatility import volatility

MAX_DAYS = 366
DAY_MS = 86_400_000
# Days a report may name: within the server's clock (a month of margin for the default range's
# start before the last day) and a day before the calendar's end.
FIRST_DAY, LAST_DAY = date(1970, 2, 1), date(9999, 12, 30)
RATIO = Decimal("0.000001")


def real_rounds(operator_id: int | None, free: bool = False) -> Select:
    """The operator's finished real-money rounds (void ones are not played), or every operator's
    (``None``: the server's metrics); read by their finish time through ``ix_rounds_finished``
    (status and finish time; the status a literal, which the planner matches to the index).
    The rounds players paid for, or (``free``) the free rounds, whose bets are the operator's
    promotional money: each report shows them apart, never summed together."""
    granted = rounds.c.free_grant_id.is_not(None) if free else rounds.c.free_grant_id.is_(None)
    query = select().select_from(rounds).where(is_complete(rounds), rounds.c.fun.is_(False), granted)
    if operator_id is None:
        return query
    return query.join(players, players.c.id == rounds.c.player_id).where(players.c.operator_id == operator_id)


def ratio(part: int, whole: int) -> str | None:
    return str((Decimal(part) / Decimal(whole)).quantize(RATIO)) if whole else None


# -- per game and day ---------------------------------------------------------------------------
def day_starts(first: date, last: date, zone: ZoneInfo) -> list[int]:
    """The start of each local day from ``first`` to the day after ``last``, in ms since the epoch."""
    days = (last - first).days + 2
    return [int(datetime.combine(first + timedelta(days=n), time(), zone).timestamp() * 1000) for n in range(days)]


def offset_ms(moment: int, zone: ZoneInfo) -> int:
    """The zone's UTC offset at ``moment`` (ms since the epoch), in ms."""
    offset = datetime.fromtimestamp(moment / 1000, zone).utcoffset()
    return int(offset.total_seconds() * 1000) if offset is not None else 0


def offset_pieces(starts: list[int], zone: ZoneInfo) -> list[tuple[int, int]]:
    """``(from, offset)`` in ms: the zone's UTC offset from the range's start and from each
    instant it changes within the range (found to the millisecond between two day starts)."""
    pieces = [(starts[0], offset_ms(starts[0], zone))]
    for day_start, next_start in zip(starts, starts[1:], strict=False):
        before, after = offset_ms(day_start, zone), offset_ms(next_start, zone)
        if before != after:
            low, high = day_start, next_start  # low has the old offset, high the new
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if offset_ms(middle, zone) == before else (low, middle)
            pieces.append((high, after))
    return pieces


def local_day(moment: Any, starts: list[int], zone: ZoneInfo) -> Any:
    """A SQL expression: the index of the local day (0 = the range's first) of ``moment`` (ms):
    its wall-clock time, ``moment + offset``, in whole days. One addition and one integer
    division a row, whatever the range's length; the offset is a constant but across a change
    of the clocks."""
    pieces = offset_pieces(starts, zone)
    offset = (pieces[0][1] if len(pieces) == 1 else
              case(*((moment < since, before) for (_, before), (since, _) in zip(pieces, pieces[1:], strict=False)),
                   else_=pieces[-1][1]))
    first_day = (starts[0] + pieces[0][1]) // DAY_MS
    return (moment + offset) // DAY_MS - first_day


@dataclass(frozen=True)
class DayKey:
    day: int
    game: str
    currency: str


def daily(conn: Connection, operator_id: int, first: date, last: date, zone: ZoneInfo) -> list[dict[str, Any]]:
    """Per local day, game and currency: rounds, players, stakes, wins, GGR, hit rate, jackpot
    contributions and payouts (days without rounds are left out). The first days whose UTC days
    are summarised are added up from the summaries, the rest from the rounds themselves."""
    starts = day_starts(first, last, zone)
    ready = summarised_local_days(conn, starts)
    figures = summed_days(conn, operator_id, starts[:ready + 1], zone) if ready else {}
    if ready < len(starts) - 1:
        figures.update({DayKey(key.day + ready, key.game, key.currency): line
                        for key, line in scanned_days(conn, operator_id, starts[ready:], zone).items()})
    rows = [day_row(first, key, line) for key, line in figures.items() if line.rounds]
    return sorted(rows, key=lambda row: (row["day"], row["game"], row["currency"]))


@dataclass
class DayFigures:
    """One local day's figures of one game and currency, in minor units."""

    rounds: int = 0
    players: int = 0
    stakes: int = 0
    wins: int = 0
    hits: int = 0
    jackpot_wins: int = 0
    contributions: Decimal = Decimal(0)


# The quarters' totals a day's figures add up (each a field of both).
SUMMED = ("rounds", "stakes", "wins", "hits", "jackpot_wins")


def day_row(first: date, key: DayKey, line: DayFigures) -> dict[str, Any]:
    return {
        "day": (first + timedelta(days=key.day)).isoformat(), "game": key.game, "currency": key.currency,
        "rounds": line.rounds, "players": line.players, "stakes": to_text(line.stakes), "wins": to_text(line.wins),
        "ggr": to_signed_text(line.stakes - line.wins), "hit_rate": ratio(line.hits, line.rounds),
        "jackpot_contributions": str(line.contributions.quantize(RATIO)), "jackpot_payouts": to_text(line.jackpot_wins),
    }


def spans_of(starts: list[int]) -> list[summary.Span | None]:
    return [summary.span_of(start, end) for start, end in zip(starts, starts[1:], strict=False)]


def utc_days_of(span: summary.Span) -> tuple[int, ...]:
    return (span.day, span.day + 1) if span.end else (span.day,)


def summarise_for_daily(read: summary.Transaction, transaction: summary.Transaction, first: date, last: date,
                        zone: ZoneInfo, now: int) -> int:
    """Summarise the UTC days the daily report from ``first`` to ``last`` can take from summaries
    and which are not yet (a report's first call over ended days pays for it once); how many."""
    return summary.summarise(read, transaction, days_to_summarise(day_starts(first, last, zone), now), now)


def summarise_for_rtp(read: summary.Transaction, transaction: summary.Transaction, since: int | None,
                      until: int | None, now: int) -> int:
    """Summarise the whole UTC days of ``[since, until)`` that have ended (from the first round's
    day where ``since`` is None), the latest :data:`MAX_DAYS` at most; how many."""
    last = summary.day_of(min(until, now) if until is not None else now)
    while last >= 0 and not summary.can_summarise(last, now):
        last -= 1
    if since is None:
        with read() as conn:
            earliest = conn.execute(select(func.min(rounds.c.finished_at)).where(
                is_complete(rounds), rounds.c.fun.is_(False))).scalar()
        if earliest is None:
            return 0
        since = earliest // summary.DAY_MS * summary.DAY_MS
    first = max(-(-since // summary.DAY_MS), last - MAX_DAYS + 1)
    if until is not None and (last + 1) * summary.DAY_MS > until:
        last -= 1
    return summary.summarise(read, transaction, range(first, last + 1), now)


def days_to_summarise(starts: list[int], now: int) -> list[int]:
    """The UTC days the daily report of the local days from ``starts`` can take from summaries:
    those of its first local days that start and end on a quarter hour and ended long enough ago."""
    days: list[int] = []
    for span in spans_of(starts):
        if span is None or not all(summary.can_summarise(day, now) for day in utc_days_of(span)):
            break
        days += utc_days_of(span)
    return days


def summarised_local_days(conn: Connection, starts: list[int]) -> int:
    """How many of the first local days from ``starts`` the summaries hold every UTC day of."""
    done = set(conn.execute(select(summarised_days.c.day).where(
        summarised_days.c.day.between(summary.day_of(starts[0]), summary.day_of(starts[-1])))).scalars())
    ready = 0
    for span in spans_of(starts):
        if span is None or not done.issuperset(utc_days_of(span)):
            break
        ready += 1
    return ready


def summed_days(conn: Connection, operator_id: int, starts: list[int], zone: ZoneInfo) -> dict[DayKey, DayFigures]:
    """The figures of the local days from ``starts`` (all summarised), added up from the quarters'
    totals (in the database; the contributions, exact decimals, here) and the players' counts."""
    day = local_day(summary.QUARTER_START, starts, zone).label("day")
    totals = quarter_totals.c
    summed = summary.quarters_between(operator_id, starts[0], starts[-1], free=False)
    figures: dict[DayKey, DayFigures] = defaultdict(DayFigures)
    for index, game, currency, *sums in conn.execute(summed.add_columns(
            day, totals.game, totals.currency, *(func.sum(totals[name]) for name in SUMMED))
            .group_by(day, totals.game, totals.currency)):
        figures[DayKey(int(index), game, currency)] = DayFigures(**{
            name: int(value) for name, value in zip(SUMMED, sums, strict=True)})
    for index, game, currency, contributions in conn.execute(summed.add_columns(
            day, totals.game, totals.currency, totals.contributions).where(totals.contributions != "0")):
        figures[DayKey(int(index), game, currency)].contributions += Decimal(contributions)
    spans = [span for span in spans_of(starts) if span is not None]
    for (index, game, currency), count in summary.players_by_local_day(conn, operator_id, spans).items():
        figures[DayKey(index, game, currency)].players = count
    return figures


def scanned_days(conn: Connection, operator_id: int, starts: list[int], zone: ZoneInfo) -> dict[DayKey, DayFigures]:
    """The figures of the local days from ``starts``, read from their rounds."""
    contributions = contributed(conn, operator_id, starts, zone)
    figures = {}
    for index, game, currency, count, people, stakes, wins, hits, jackpot_paid in conn.execute(
            daily_query(operator_id, starts, zone)):
        key = DayKey(int(index), game, currency)
        figures[key] = DayFigures(int(count), int(people), int(stakes), int(wins), int(hits), int(jackpot_paid or 0),
                                  contributions.get(key, Decimal(0)))
    return figures


def daily_query(operator_id: int, starts: list[int], zone: ZoneInfo) -> Select:
    """The figures of :func:`daily`, per local day (from ``starts``), game and currency."""
    day = local_day(rounds.c.finished_at, starts, zone).label("day")
    in_range = (rounds.c.finished_at >= starts[0], rounds.c.finished_at < starts[-1])
    return (real_rounds(operator_id).add_columns(
        day, rounds.c.game, rounds.c.currency, func.count(), func.count(func.distinct(rounds.c.player_id)),
        func.sum(rounds.c.stake), func.sum(rounds.c.win), func.sum(case((rounds.c.win > 0, 1), else_=0)),
        func.sum(rounds.c.jackpot_win)).where(*in_range).group_by(day, rounds.c.game, rounds.c.currency))


def contributed(conn: Connection, operator_id: int, starts: list[int], zone: ZoneInfo) -> dict[DayKey, Decimal]:
    """The jackpot contributions of the operator's rounds, per local day, game and currency (exact)."""
    day = local_day(rounds.c.finished_at, starts, zone)
    query = (real_rounds(operator_id).add_columns(day, rounds.c.game, rounds.c.currency, jackpot_entries.c.amount)
             .join(jackpot_entries, jackpot_entries.c.round_id == rounds.c.id)
             .where(jackpot_entries.c.kind == "contribution", rounds.c.finished_at >= starts[0],
                    rounds.c.finished_at < starts[-1]))
    sums: dict[DayKey, Decimal] = defaultdict(Decimal)
    for index, game, currency, amount in conn.execute(query):
        sums[DayKey(int(index), game, currency)] += Decimal(amount)
    return sums


# -- live RTP against theory --------------------------------------------------------------------
def live_rtp(conn: Connection, operator_id: int | None, since: int | None, until: int | None,
             theory: Mapping[str, tuple[Decimal, Decimal | None]], free: bool = False) -> list[dict[str, Any]]:
    """Per game and RTP version: the actual RTP of the operator's real-money rounds finished in
    ``[since, until)`` beside ``theory[model]`` (the version's RTP and the standard deviation of
    one round in total bets, None where no PAR sheet states it), with the band it should fall
    in and whether it is outside. A round's version is the model its record names. ``free``: the
    free rounds' lines instead of the paid rounds'."""
    sums: dict[tuple[str, str | None], list[Any]] = {}
    for game, model, count, stakes, wins, squares in rtp_sums(conn, operator_id, since, until, free):
        line = sums.setdefault((game, model), [0, 0, 0, 0.0])
        for place, value in enumerate((count, stakes, wins, squares)):
            line[place] += value
    report = []
    for (game, model), (count, stakes, wins, squares) in sorted(sums.items(), key=lambda item: (item[0][0],
                                                                                               item[0][1] or "")):
        rtp, std = theory.get(model, (None, None))
        line = rtp_row(game, int(count), int(stakes), int(wins), float(squares), rtp, std)
        report.append({"game": game, "version": version_of(model), "model": model, **line})
    return report


def rtp_sums(conn: Connection, operator_id: int | None, since: int | None, until: int | None,
             free: bool) -> Iterator[tuple[str, str | None, int, int, int, float]]:
    """(game, model, rounds, stakes, wins, stakes' squares) of the rounds finished in ``[since,
    until)``: the quarters of its longest summarised stretch from their totals, the rest from the
    rounds (several lines of one game and model, which the caller adds up)."""
    summed = summarised_stretch(conn, since, until)
    if summed is None:
        yield from conn.execute(rtp_query(operator_id, since, until, free))
        return
    low, high = summed
    totals = quarter_totals.c
    for game, model, *sums in conn.execute(summary.quarters_between(operator_id, low, high, free).add_columns(
            totals.game, totals.model, *(func.sum(totals[name]) for name in ("rounds", "stakes", "wins",
                                                                              "stake_squares")))
            .group_by(totals.game, totals.model)):
        yield game, model or None, *sums
    for part in ((since, low), (high, until)):
        if part[0] is None or part[1] is None or part[0] < part[1]:
            yield from conn.execute(rtp_query(operator_id, *part, free))


def summarised_stretch(conn: Connection, since: int | None, until: int | None) -> tuple[int, int] | None:
    """The quarters of ``[since, until)`` within its latest run of summarised UTC days, as
    ``(from, to)`` in ms (None: no whole quarter of it is summarised)."""
    query = select(summarised_days.c.day).order_by(summarised_days.c.day.desc())
    if until is not None:
        query = query.where(summarised_days.c.day <= summary.day_of(until))
    if since is not None:
        query = query.where(summarised_days.c.day >= summary.day_of(since))
    run: list[int] = []
    for day in conn.execute(query).scalars():
        if run and day != run[-1] - 1:
            break
        run.append(day)
    if not run:
        return None
    quarter = summary.QUARTER_MS
    low = max(run[-1] * summary.DAY_MS, -(-since // quarter) * quarter if since is not None else 0)
    high = min((run[0] + 1) * summary.DAY_MS, until // quarter * quarter if until is not None else 2**62)
    return (low, high) if low < high else None


def theory(games: Offer) -> dict[str, tuple[Decimal, Decimal | None]]:
    """Each version in play, by its model id: its label's RTP and the standard deviation of one
    round (its game's PAR sheet's: a version moves the RTP a few points, its spread hardly)."""
    found = {}
    for game in games.in_play():
        figures = volatility(game.code)
        found[game.model_id] = (game.spec.rtp, Decimal(figures["std"]) if figures else None)
    return found


def rtp_query(operator_id: int | None, since: int | None, until: int | None, free: bool = False) -> Select:
    """The figures of :func:`live_rtp` per game and model, of the rounds finished in ``[since, until)``."""
    query = real_rounds(operator_id, free).add_columns(
        rounds.c.game, rounds.c.model, func.count(), func.sum(rounds.c.stake), func.sum(rounds.c.win),
        func.sum(cast(rounds.c.stake, Float) * cast(rounds.c.stake, Float))).group_by(rounds.c.game, rounds.c.model)
    if since is not None:
        query = query.where(rounds.c.finished_at >= since)
    if until is not None:
        query = query.where(rounds.c.finished_at < until)
    return query.order_by(rounds.c.game, rounds.c.model)


def rtp_row(game: str, count: int, stakes: int, wins: int, squares: float, rtp: Decimal | None,
            std: Decimal | None) -> dict[str, Any]:
    """One game's line of the live-RTP report."""
    actual = (Decimal(wins) / Decimal(stakes)).quantize(RATIO) if stakes else None
    found = band.band(rtp, std, stakes, squares) if rtp is not None and std is not None else None
    return {
        "game": game, "rounds": count, "stakes": to_text(stakes), "wins": to_text(wins), "rtp": str(actual),
        "theoretical_rtp": None if rtp is None else str(rtp), "std_per_round": None if std is None else str(std),
        "effective_rounds": round(band.effective_rounds(stakes, squares), 1),
        "confidence": band.CONFIDENCE,
        "band_low": None if found is None else str(found.low), "band_high": None if found is None else str(found.high),
        "outside_band": actual is not None and band.outside(actual, found),
    }
