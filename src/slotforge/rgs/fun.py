"""Fun sessions need no key, so they are rationed: each client address may open
``fun_sessions_per_minute`` of them (then 429 ``RATE_LIMITED`` with ``Retry-After``), and fun
players idle past ``fun_idle_minutes`` (and past their session's time-out) are deleted with all
they left behind: play money keeps no history.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import deque
from collections.abc import Callable

from sqlalchemy import Connection, Engine, delete, exists, select

from slotforge.db import Writer
from slotforge.rgs.errors import RateLimited
from slotforge.rgs.schema import autoplays, carried_state, idempotency, ledger, players, rounds, sessions
from slotforge.rgs.settings import Settings

log = logging.getLogger("slotforge.rgs")

WINDOW_S = 60.0
SWEEP_EVERY_S = 60.0
SWEEP_BATCH = 500  # fun players deleted per transaction: a sweep never holds the write lock long
MOST_ADDRESSES = 10_000  # past this, addresses with nothing in the window are forgotten


class FunSessions:
    """The ration of fun sessions per client address (in this process), and the sweep of idle
    fun players."""

    def __init__(self, settings: Settings, engine: Engine, transaction: Writer, clock: Callable[[], float]) -> None:
        self.per_minute = settings.fun_sessions_per_minute
        # A fun player is kept at least as long as its session could still be used.
        self.idle_s = max(settings.fun_idle_minutes, settings.session_minutes) * 60.0
        self.engine = engine
        self.transaction = transaction
        self.clock = clock
        self._opened: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._last_sweep = -math.inf

    def admit(self, address: str) -> None:
        """Count a fun session for ``address``, or refuse it: 429 ``RATE_LIMITED`` with the
        seconds until the oldest of the minute's sessions leaves the window."""
        now = self.clock()
        with self._lock:
            opened = self._opened.setdefault(address, deque())
            while opened and opened[0] <= now - WINDOW_S:
                opened.popleft()
            if len(opened) >= self.per_minute:
                wait = max(1, math.ceil(opened[0] + WINDOW_S - now))
                raise RateLimited(f"fun sessions: at most {self.per_minute} a minute from one "
                                  f"address; try again in {wait} s", retry_after_s=wait)
            opened.append(now)
            if len(self._opened) > MOST_ADDRESSES:
                self._forget(now)

    def _forget(self, now: float) -> None:
        for address in [a for a, stamps in self._opened.items() if not stamps or stamps[-1] <= now - WINDOW_S]:
            del self._opened[address]

    def sweep_if_due(self) -> int:
        """Sweep at most once a minute (called as fun sessions open); the fun players deleted."""
        now = self.clock()
        with self._lock:
            if now - self._last_sweep < SWEEP_EVERY_S:
                return 0
            self._last_sweep = now
        return self.sweep()

    def sweep(self) -> int:
        """Delete the fun players no session has used for the idle time, with their sessions,
        rounds, ledger, carried state, autoplay plans and stored answers; how many."""
        cutoff = int((self.clock() - self.idle_s) * 1000)
        recent = exists().where(sessions.c.player_id == players.c.id, sessions.c.last_seen >= cutoff)
        idle = (select(players.c.id).where(players.c.fun.is_(True), players.c.created_at < cutoff, ~recent)
                .limit(SWEEP_BATCH))
        deleted = 0
        while True:
            with self.transaction() as conn:
                ids = conn.execute(idle).scalars().all()
                if ids:
                    delete_fun_players(conn, ids)
            deleted += len(ids)
            if len(ids) < SWEEP_BATCH:
                break
        if deleted:
            log.info("deleted %d idle fun players", deleted)
        return deleted


def delete_fun_players(conn: Connection, ids: list[int]) -> None:
    """Every row of these fun players, children first (their foreign keys)."""
    their_sessions = select(sessions.c.id).where(sessions.c.player_id.in_(ids))
    conn.execute(delete(autoplays).where(autoplays.c.session_id.in_(their_sessions)))
    for table in (idempotency, carried_state, ledger, rounds):
        conn.execute(delete(table).where(table.c.player_id.in_(ids)))
    conn.execute(delete(sessions).where(sessions.c.player_id.in_(ids)))
    conn.execute(delete(players).where(players.c.id.in_(ids), players.c.fun.is_(True)))
