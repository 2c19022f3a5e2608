"""``GET /metrics``: the server in Prometheus' text format (the ``prometheus-client`` package).

Two kinds of figures:

- read from the database at each scrape, so that the round's hot path pays nothing and every
  server process (and worker) answers the same: rounds started per game and mode, and their
  stakes (counters, counted on from the highest round id the process has seen, so a scrape reads
  only the rounds since the last one), rounds open per game, the outbox's backlog and the age of
  its oldest message per target, seamless wins not yet acknowledged, and each jackpot pool; each
  through an index, never a walk through every round;
- counted in this process: error answers by code (every error answer goes through
  :func:`count_error`) and request latency per route (the FastAPI routes through
  :class:`RequestTimer`; the round route may call :func:`observe` once per round).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from decimal import Decimal

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func, select
from starlette.types import ASGIApp, Receive, Scope, Send

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


class RoundsSeen:
    """Rounds started per (game, mode, currency) and their stakes in minor units, counted on from
    the last round id seen."""

    def __init__(self) -> None:
        self.last_id = 0
        self.started: dict[tuple[str, str, str], int] = defaultdict(int)
        self.staked: dict[tuple[str, str, str], int] = defaultdict(int)
        self.lock = threading.Lock()

    def update(self, engine: Engine) -> None:
        columns = (rounds.c.game, rounds.c.fun, rounds.c.currency)
        with self.lock, engine.connect() as conn:
            query = (select(*columns, func.count(), func.coalesce(func.sum(rounds.c.stake), 0), func.max(rounds.c.id))
                     .where(rounds.c.id > self.last_id).group_by(*columns))
            for game, fun, currency, count, stakes, highest in conn.execute(query):
                key = (game, "fun" if fun else "real", currency)
                self.started[key] += int(count)
                self.staked[key] += int(stakes)
                self.last_id = max(self.last_id, int(highest))


class DatabaseCollector(Collector):
    """The figures read from the database at each scrape."""

    def __init__(self, engine: Engine, now_ms: Callable[[], int]) -> None:
        self.engine = engine
        self.now_ms = now_ms
        self.seen = RoundsSeen()

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        self.seen.update(self.engine)
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

    def from_tables(self) -> Iterator[GaugeMetricFamily]:
        now = self.now_ms()
        with self.engine.connect() as conn:
            open_rounds = conn.execute(select(rounds.c.game, rounds.c.status, func.count())
                                       .where(rounds.c.status.in_(("awaiting", "pending")))
                                       .group_by(rounds.c.game, rounds.c.status)).all()
            backlog = conn.execute(select(outbox.c.target, func.count(), func.min(outbox.c.created_at))
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
        for target, count, first in backlog:
            queued.add_metric([target], int(count))
            oldest.add_metric([target], max(0, now - int(first)) / 1000)
        yield queued
        yield oldest
        yield GaugeMetricFamily("slotforge_wallet_credits_pending", "seamless rounds whose win the wallet has not "
                                "acknowledged yet", value=int(wallet))
        value = GaugeMetricFamily("slotforge_jackpot_pool", "a jackpot pool's current value (EUR)", labels=["pool"])
        wins = CounterMetricFamily("slotforge_jackpot_wins", "a jackpot pool's wins", labels=["pool"])
        for name, current, won in pools:
            value.add_metric([name], float(Decimal(current)))
            wins.add_metric([name], int(won))
        yield value
        yield wins


def registry_for(engine: Engine, now_ms: Callable[[], int]) -> CollectorRegistry:
    """A registry of the server's database figures (one per server) beside this process's own."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector(engine, now_ms))
    return registry


def exposition(registry: CollectorRegistry) -> bytes:
    """The text a scrape reads: the process's figures, then the database's."""
    return generate_latest(PROCESS) + generate_latest(registry)
