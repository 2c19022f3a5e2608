"""Live jackpot values for players: server-sent events, the values every second and every win
as it happens.

A :class:`Hub` polls a source (a database, or another service's stream) in one background thread
while anyone listens, and fans out to every connected client: ``event: values`` once a second
with the pools' current values, ``event: win`` at once when a pool pays out. One poll serves
every client, so a thousand listeners cost the source what one does.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, TypeVar

# What a source answers: the pools' values now, and the wins since the last call.
Poll = Callable[[], tuple[list[dict[str, Any]], list[dict[str, Any]]]]

T = TypeVar("T")

VALUES_EVERY_S = 1.0
POLL_EVERY_S = 0.1
LATE_COMMIT_MS = 60_000  # longer than any round's transaction, a seamless debit's wait included


def sse(event: str, data: Any) -> str:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Unannounced:
    """Which of the claims a source reads are wins not announced yet.

    A source reads its claims by the time each was recorded (:attr:`since` on), and a claim's
    transaction may commit after a later one's did: so each read looks back ``look_back_ms``
    before the newest claim announced, and a claim, known by its key and time (a key released
    and claimed again is a new win), is announced once.
    """

    def __init__(self, now_ms: int, look_back_ms: int = LATE_COMMIT_MS) -> None:
        self.look_back_ms = look_back_ms
        self._newest = now_ms
        self._announced: set[tuple[str, int]] = set()

    @property
    def since(self) -> int:
        """The time from which claims are to be read."""
        return self._newest - self.look_back_ms

    def new(self, claims: Iterable[tuple[str, int, T]]) -> list[T]:
        """Of ``claims`` (key, time recorded, the claim), those not announced before; from now
        on they are."""
        since = self.since
        self._announced = {(key, at) for key, at in self._announced if at >= since}
        fresh = []
        for key, at, claim in claims:
            if (key, at) not in self._announced:
                self._announced.add((key, at))
                self._newest = max(self._newest, at)
                fresh.append(claim)
        return fresh


class Hub:
    """Fan-out of one source's values and wins to every connected stream."""

    def __init__(self, poll: Poll, poll_every_s: float = POLL_EVERY_S) -> None:
        self.poll = poll
        self.poll_every_s = poll_every_s
        self._values: list[dict[str, Any]] = []
        self._listeners: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()

    # -- the polling thread ---------------------------------------------------------------------
    def _run(self) -> None:
        primed = False  # the first poll's wins happened before anyone listened
        while not self._stop.is_set():
            try:
                values, wins = self.poll()
            except Exception:  # the source is away: keep the last values, try again
                values, wins = None, []
            if values is not None:
                self._values = values
                self._ready.set()
                for win in wins if primed else []:
                    self.publish(win)
                primed = True
            self._stop.wait(self.poll_every_s)

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="slotforge-jackpot-stream", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def publish(self, win: dict[str, Any]) -> None:
        """Send a win to every listener now (thread-safe)."""
        with self._lock:
            listeners = list(self._listeners)
        for loop, queue in listeners:
            loop.call_soon_threadsafe(queue.put_nowait, win)

    # -- one client -----------------------------------------------------------------------------
    async def events(self) -> AsyncIterator[str]:
        """A client's stream: the values at once and every second, each win as it comes."""
        self.start()
        queue: asyncio.Queue = asyncio.Queue()
        listener = (asyncio.get_running_loop(), queue)
        with self._lock:
            self._listeners.add(listener)
        try:
            await asyncio.get_running_loop().run_in_executor(None, self._ready.wait, 2.0)
            next_values = time.monotonic()
            while True:
                wait = next_values - time.monotonic()
                if wait <= 0:
                    yield sse("values", {"pools": self._values})
                    next_values = time.monotonic() + VALUES_EVERY_S  # a late tick is not caught up in a burst
                    continue
                try:
                    win = await asyncio.wait_for(queue.get(), wait)
                except TimeoutError:
                    continue
                yield sse("win", win)
        finally:
            with self._lock:
                self._listeners.discard(listener)


def read_events(lines: Any) -> Any:
    """Parse a server-sent event stream's lines into ``(event, data)`` pairs."""
    event, data = "message", []
    for line in lines:
        if line == "":
            if data:
                yield event, json.loads("\n".join(data))
            event, data = "message", []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
