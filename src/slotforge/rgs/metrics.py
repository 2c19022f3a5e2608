"""``GET /metrics``: the server in Prometheus' text format (the ``prometheus-client`` package).

Two kinds of figures:

- read from the database at each scrape, so that the round's hot path pays nothing and every
  server process (and worker) answers the same: rounds started per game and mode, and their
  stakes (counters: each round counted once, when a scrape first sees it committed, so a scrape
  reads only the rounds since the last one; see :class:`RoundsSeen`), rounds open per game, the
  outbox's backlog, its failing messages and the age of its oldest message per target, seamless
  wins not yet acknowledged, each jackpot pool, and each game's live RTP over the last day with
  its band's edges and an out-of-band flag (the alerting rules' figures: ``alerts.rules.yml``);
  each through an index, never a walk through every round;
- counted in this process: error answers by code (every error answer goes through
  :func:`count_error`) and request latency per route (the FastAPI routes through
  :class:`RequestTimer`; the round route, which bypasses it, through :func:`timer_of`).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Connection, Engine, func, or_, select
from starlette.types import ASGIApp, Receive, Scope, Send

from slotforge.rgs.backoffice import reports
from slotforge.rgs.backoffice.alerts import RTP_WINDOW_MS
from slotforge.rgs.schema import CREDIT_PENDING, jackpot_pools, outbox, rounds

CONTENT_TYPE = CONTENT_TYPE_LATEST
PROCESS = CollectorRegistry(auto_describe=True)
ERRORS = Counter("slotforge_errors", "error answers by code", ["code"], registry=PROCESS)
LATENCY = Histogram("slotforge_request_seconds", "time to answer a request, by route", ["route"], registry=PROCESS,
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))


def count_error(code: str) -> None:
    """One error answer with ``code`` (INVALID_SESSION, INSUFFICIENT_FUNDS ...)."""
    ERRORS.labels(code).inc()


def observe(route: str, seconds: float) -> None:
    """One answered request of ``route`` that took ``seconds`` (a single cheap call)."""
    LATENCY.labels(route).observe(seconds)


def timer_of(route: str) -> Callable[[float], None]:
    """``observe`` for one route, its histogram looked up once: what a hot route calls per request."""
    return LATENCY.labels(route).observe


class RequestTimer:
    """ASGI middleware: each HTTP request's latency under its route's path template."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            route = scope.get("route")
            observe(f"{scope['method']} {getattr(route, 'path', 'other')}", time.perf_counter() - started)


Key = tuple[str, str, str]  # (game, mode, currency)
# On the first scrape, the ids this far below the highest are read one by one, to find the rounds
# still in their transaction; the older ones are counted in a single sum.
FIRST_LOOK = 10_000
# An id not seen for this long is taken as a round that never committed (rolled back), not one
# still in its transaction: no round's transaction lasts anywhere near as long.
GIVE_UP_MS = 600_000


class RoundsSeen:
    """Rounds started per (game, mode, currency) and their stakes in minor units: each round
    counted once, when a scrape first sees it committed.

    Rounds commit out of id order (on PostgreSQL a round given a lower id may commit after one
    given a higher id), so the rounds above the highest id seen are not all there is to count:
    the ids below it not yet seen (``missing``) are looked for again at each scrape, until they
    turn up or :data:`GIVE_UP_MS` passes (their round rolled back: its id is never given again).
    """

    def __init__(self) -> None:
        self.last_id: int | None = None
        self.missing: dict[int, int] = {}  # id not yet seen -> when it was first missed (ms)
        self.started: dict[Key, int] = defaultdict(int)
        self.staked: dict[Key, int] = defaultdict(int)
        self.lock = threading.Lock()

    def update(self, engine: Engine, now: int) -> None:
        with self.lock, engine.connect() as conn:
            if self.last_id is None:
                self.last_id = self.count_history(conn)
            seen = conn.execute(select(rounds.c.id, *KEY_COLUMNS, rounds.c.stake).where(
                or_(rounds.c.id > self.last_id, rounds.c.id.in_(list(self.missing))))).all()
        for round_id, game, fun, currency, stake in seen:
            self.count((game, fun, currency), 1, stake)
            self.missing.pop(round_id, None)
        highest = max([self.last_id, *(row[0] for row in seen)])
        ids = {row[0] for row in seen}
        self.missing.update((gap, now) for gap in range(self.last_id + 1, highest) if gap not in ids)
        self.missing = {gap: since for gap, since in self.missing.items() if now - since < GIVE_UP_MS}
        self.last_id = highest

    def count_history(self, conn: Connection) -> int:
        """Count the rounds committed before this process's first scrape in one sum, except the
        last :data:`FIRST_LOOK` ids, read one by one by :meth:`update`; the id counted up to."""
        below = max(0, (conn.execute(select(func.max(rounds.c.id))).scalar() or 0) - FIRST_LOOK)
        for game, fun, currency, count, stakes in conn.execute(
                select(*KEY_COLUMNS, func.count(), func.coalesce(func.sum(rounds.c.stake), 0))
                .where(rounds.c.id <= below).group_by(*KEY_COLUMNS)):
            self.count((game, fun, currency), int(count), int(stakes))
        return below

    def count(self, key: tuple[str, bool, str], rounds_started: int, stakes: int) -> None:
        game, fun, currency = key
        labels = (game, "fun" if fun else "real", currency)
        self.started[labels] += rounds_started
        self.staked[labels] += stakes


KEY_COLUMNS = (rounds.c.game, rounds.c.fun, rounds.c.currency)


Theory = Callable[[], Mapping[str, tuple[Decimal, Decimal | None]]]
# The live RTP's figures: (the report line's field, the metric's suffix, its help).
LIVE_RTP_FAMILIES = (
    ("rtp", "", "actual RTP of the real-money rounds finished in the last day (wins / stakes)"),
    ("band_low", "_band_low", "the low edge of the 99% band the live RTP should fall in"),
    ("band_high", "_band_high", "the high edge of that band"),
    ("outside_band", "_out_of_band", "1 when the live RTP is outside its band, else 0"),
    ("rounds", "_rounds", "the rounds the live RTP is of"),
)


class DatabaseCollector(Collector):
    """The figures read from the database at each scrape."""

    def __init__(self, engine: Engine, now_ms: Callable[[], int], theory: Theory | None = None) -> None:
        self.engine = engine
        self.now_ms = now_ms
        self.theory = theory  # each game's RTP and standard deviation of a round (none: no live RTP)
        self.seen = RoundsSeen()

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        self.seen.update(self.engine, self.now_ms())
        started = CounterMetricFamily("slotforge_rounds_started", "rounds started, by game, mode (real, fun) "
                                      "and currency", labels=["game", "mode", "currency"])
        staked = CounterMetricFamily("slotforge_stakes", "stakes of the rounds started, in the currency's units",
                                     labels=["game", "mode", "currency"])
        for key, count in sorted(self.seen.started.items()):
            started.add_metric(list(key), count)
            staked.add_metric(list(key), float(Decimal(self.seen.staked[key]) / 100))
        yield started
        yield staked
        yield from self.from_tables()
        yield from self.live_rtp()

    def live_rtp(self) -> Iterator[GaugeMetricFamily]:
        """Each game's RTP over the rounds finished in the last day, every operator's, with its band."""
        since = self.now_ms() - RTP_WINDOW_MS
        with self.engine.connect() as conn:
            lines = reports.live_rtp(conn, None, since, None, dict(self.theory())) if self.theory else []
        families = {name: GaugeMetricFamily(f"slotforge_live_rtp{suffix}", text, labels=["game", "version"])
                    for name, suffix, text in LIVE_RTP_FAMILIES}
        for line in lines:
            for name, _suffix, _help in LIVE_RTP_FAMILIES:
                value = line[name]
                if value not in (None, "None"):  # no band without a PAR sheet's spread, no RTP without stakes
                    families[name].add_metric([line["game"], line["version"] or ""], float(value))
        yield from families.values()

    def from_tables(self) -> Iterator[GaugeMetricFamily]:
        now = self.now_ms()
        with self.engine.connect() as conn:
            open_rounds = conn.execute(select(rounds.c.game, rounds.c.status, func.count())
                                       .where(rounds.c.status.in_(("awaiting", "pending")))
                                       .group_by(rounds.c.game, rounds.c.status)).all()
            backlog = conn.execute(select(outbox.c.target, func.count(), func.min(outbox.c.created_at),
                                          func.count(outbox.c.last_error))
                                   .where(outbox.c.delivered_at.is_(None)).group_by(outbox.c.target)).all()
            # (the partial index of credits on their way: no walk through every round)
            wallet = conn.execute(select(func.count()).select_from(rounds).where(CREDIT_PENDING)).scalar_one()
            pools = conn.execute(select(jackpot_pools.c.name, jackpot_pools.c.current, jackpot_pools.c.wins)).all()
        opened = GaugeMetricFamily("slotforge_rounds_open", "rounds open (awaiting a decision, or pending at a "
                                   "seamless wallet's debit), by game", labels=["game", "status"])
        for game, status, count in open_rounds:
            opened.add_metric([game, status], int(count))
        yield opened
        queued = GaugeMetricFamily("slotforge_outbox_backlog", "messages not yet acknowledged, by target",
                                   labels=["target"])
        oldest = GaugeMetricFamily("slotforge_outbox_oldest_seconds", "age of the oldest message not yet "
                                   "acknowledged, by target", labels=["target"])
        failing = GaugeMetricFamily("slotforge_outbox_failing", "messages not yet acknowledged whose last delivery "
                                    "failed (the target refused or did not answer), by target", labels=["target"])
        for target in ("wallet", "jackpot"):  # present at zero, so an alert's expression always has a series
            if target not in {row[0] for row in backlog}:
                failing.add_metric([target], 0)
        for target, count, first, failed in backlog:
            queued.add_metric([target], int(count))
            oldest.add_metric([target], max(0, now - int(first)) / 1000)
            failing.add_metric([target], int(failed))
        yield queued
        yield oldest
        yield failing
        yield GaugeMetricFamily("slotforge_wallet_credits_pending", "seamless rounds whose win the wallet has not "
                                "acknowledged yet", value=int(wallet))
        value = GaugeMetricFamily("slotforge_jackpot_pool", "a jackpot pool's current value (EUR)", labels=["pool"])
        wins = CounterMetricFamily("slotforge_jackpot_wins", "a jackpot pool's wins", labels=["pool"])
        for name, current, won in pools:
            value.add_metric([name], float(Decimal(current)))
            wins.add_metric([name], int(won))
        yield value
        yield wins


def registry_for(engine: Engine, now_ms: Callable[[], int], theory: Theory | None = None) -> CollectorRegistry:
    """A registry of the server's database figures (one per server) beside this process's own."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector(engine, now_ms, theory))
    return registry


def exposition(registry: CollectorRegistry) -> bytes:
    """The text a scrape reads: the process's figures, then the database's."""
    return generate_latest(PROCESS) + generate_latest(registry)
