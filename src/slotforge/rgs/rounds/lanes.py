"""Lanes: each operator's rounds run in a bounded lane of their own, so that no operator stalls another.

A round is synchronous work (the database, and for a seamless operator an HTTP call to its
wallet that may hang for its whole time-out). Run in one shared thread pool, an operator whose
wallet hangs would soon hold every thread, and every other operator's players, health checks
included, would queue behind it. Here each operator (and fun play, as one more) gets a thread
pool of its own of at most ``rounds_in_flight`` threads; its next rounds wait in that pool's
queue, where waiting costs nothing and holds up nobody else. Everything else (sessions, health,
history) keeps the shared pool.

A lane is a plain :class:`~concurrent.futures.ThreadPoolExecutor` reached with
``loop.run_in_executor``: a round's hop to its thread and back is on its hottest path, and this
is the leanest hop asyncio has (a capacity limiter around a shared pool cost a sixth of a round).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Result = TypeVar("Result")
FUN = "fun"  # the lane of fun players, who belong to no operator


class Lanes:
    """One thread pool per operator, created on its first round."""

    def __init__(self, rounds_in_flight: int) -> None:
        self.rounds_in_flight = rounds_in_flight
        self._lanes: dict[int | str, ThreadPoolExecutor] = {}

    def lane(self, operator_id: int | None) -> ThreadPoolExecutor:
        """The lane of an operator's players (``None``: fun players)."""
        name = FUN if operator_id is None else operator_id
        lane = self._lanes.get(name)
        if lane is None:  # only the event loop's thread gets here: no lock needed
            lane = self._lanes[name] = ThreadPoolExecutor(self.rounds_in_flight, thread_name_prefix=f"lane-{name}")
        return lane

    async def run(self, operator_id: int | None, work: Callable[[], Result]) -> Result:
        """Run ``work`` in a thread of the operator's lane; waits (asynchronously) while the lane is full."""
        return await asyncio.get_running_loop().run_in_executor(self.lane(operator_id), work)

    def close(self) -> None:
        """The server is stopping: rounds not yet started are dropped (nothing of them was done), the
        threads end once the rounds they play are done."""
        for lane in self._lanes.values():
            lane.shutdown(wait=False, cancel_futures=True)
