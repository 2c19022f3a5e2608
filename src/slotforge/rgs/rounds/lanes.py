"""Lanes: each operator's rounds run in a bounded lane of their own, so that no operator stalls another.

A round is synchronous work (the database, and for a seamless operator an HTTP call to its
wallet that may hang for its whole time-out). Run in one shared thread pool, an operator whose
wallet hangs would soon hold every thread, and every other operator's players, health checks
included, would queue behind it. Here each operator (and fun play, as one more) gets at most
``rounds_in_flight`` threads; its next rounds wait in the event loop, where waiting costs nothing
and holds up nobody else. Everything else (sessions, health, history) keeps the shared pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

Result = TypeVar("Result")
FUN = "fun"  # the lane of fun players, who belong to no operator


class Lanes:
    """One capacity limiter per operator, created on its first round."""

    def __init__(self, rounds_in_flight: int) -> None:
        self.rounds_in_flight = rounds_in_flight
        self._lanes: dict[int | str, anyio.CapacityLimiter] = {}

    def lane(self, operator_id: int | None) -> anyio.CapacityLimiter:
        """The lane of an operator's players (``None``: fun players)."""
        name = FUN if operator_id is None else operator_id
        lane = self._lanes.get(name)
        if lane is None:  # only the event loop's thread gets here: no lock needed
            lane = self._lanes[name] = anyio.CapacityLimiter(self.rounds_in_flight)
        return lane

    async def run(self, operator_id: int | None, work: Callable[[], Result]) -> Result:
        """Run ``work`` in a thread of the operator's lane; waits (asynchronously) while the lane is full."""
        return await anyio.to_thread.run_sync(work, limiter=self.lane(operator_id))

    def in_flight(self) -> dict[str, int]:
        """Rounds running in each lane now (for health and tests)."""
        return {str(name): int(lane.borrowed_tokens) for name, lane in self._lanes.items()}
