"""The designer's search: integer levers bisected on the RTP, coarse to fine.

A *lever* is one whole number the designer may move (low symbols added to the strips, a
symbol's weight, a feature's chance numerator), with its bounds and its published value. The
RTP of a game moves monotonically with each of its levers (more low symbols on a strip pay
less, a heavier bonus symbol pays more), so the search bisects the first lever on the RTP,
keeps the value closest to the target, and goes on with the next, finer lever from there,
until the RTP is within the tolerance or the levers are spent. Every model is evaluated once
(the results are cached by lever values), and each evaluation is reported to ``progress``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


class Unreachable(ValueError):
    """A target the game's levers cannot reach within the rules (the message says how far they go)."""


@dataclass(frozen=True)
class Lever:
    """A whole number the design may move: its name (for reports), bounds and published value."""

    name: str
    low: int
    high: int
    start: int


Values = dict[str, int]


@dataclass
class Search:
    """A bisection over ``levers`` of ``rtp(values)`` towards ``target`` (RTP as fractions)."""

    levers: list[Lever]
    rtp: Callable[[Values], float]
    target: float
    tolerance: float
    progress: Callable[[str], None] = lambda _text: None
    seen: dict[tuple[int, ...], float] = field(default_factory=dict)

    def evaluate(self, values: Values) -> float:
        key = tuple(values[lever.name] for lever in self.levers)
        if key not in self.seen:
            self.seen[key] = self.rtp(values)
            self.progress(f"{len(self.seen)} models: {describe(values)} -> RTP {self.seen[key]:.4%}")
        return self.seen[key]

    def run(self) -> Values:
        """The lever values whose RTP is closest to the target (coarse levers first); raises
        :class:`Unreachable` when even the first lever's ends do not bracket the target."""
        values = {lever.name: lever.start for lever in self.levers}
        if abs(self.evaluate(values) - self.target) <= self.tolerance:
            return values
        self.check_reachable(values)
        for lever in self.levers:
            if abs(self.evaluate(values) - self.target) <= self.tolerance:
                break
            values = self.bisect(values, lever)
        return values

    def check_reachable(self, values: Values) -> None:
        """The first lever's two ends must bracket the target, else nothing can reach it."""
        first = self.levers[0]
        ends = sorted(self.evaluate({**values, first.name: end}) for end in (first.low, first.high))
        if not ends[0] - self.tolerance <= self.target <= ends[1] + self.tolerance:
            raise Unreachable(f"--rtp: {self.target:.2%} is out of reach within the rules: moving {first.name} "
                              f"from {first.low} to {first.high} gives {ends[0]:.4%} to {ends[1]:.4%}")

    def bisect(self, values: Values, lever: Lever) -> Values:
        """Search ``lever`` (the others held) for the value whose RTP is closest to the target."""
        low, high = lever.low, lever.high
        rtp_low = self.evaluate({**values, lever.name: low})
        rtp_high = self.evaluate({**values, lever.name: high})
        rising = rtp_high > rtp_low
        if not min(rtp_low, rtp_high) <= self.target <= max(rtp_low, rtp_high):
            best = min((low, high), key=lambda v: abs(self.evaluate({**values, lever.name: v}) - self.target))
            return {**values, lever.name: best if self.improves(values, best, lever) else values[lever.name]}
        interpolate = True
        while high - low > 1:
            width = high - low
            at = {value: self.evaluate({**values, lever.name: value}) for value in (low, high)}
            for middle in self.next_points(low, high, at[low], at[high], interpolate):
                if low < middle < high:
                    below = self.evaluate({**values, lever.name: middle}) < self.target
                    low, high = (middle, high) if below == rising else (low, middle)
            interpolate = high - low <= width // 2  # interpolation that does not halve the bracket gives way
        return self.closest(values, lever, (values[lever.name], low, high))

    def next_points(self, low: int, high: int, at_low: float, at_high: float, interpolate: bool) -> list[int]:
        """Where to look next inside (low, high): the interpolated value and its neighbour toward
        the target (a near-linear lever is then bracketed in one step), else the middle."""
        if not interpolate or at_high == at_low:
            return [(low + high) // 2]
        guess = low + (self.target - at_low) * (high - low) / (at_high - at_low)
        first = min(high - 1, max(low + 1, int(guess)))
        return [first, first + 1] if first + 1 < high else [first]

    def closest(self, values: Values, lever: Lever, candidates: tuple[int, ...]) -> Values:
        best = min(candidates, key=lambda v: abs(self.evaluate({**values, lever.name: v}) - self.target))
        return {**values, lever.name: best}

    def improves(self, values: Values, value: int, lever: Lever) -> bool:
        now = abs(self.evaluate(values) - self.target)
        return abs(self.evaluate({**values, lever.name: value}) - self.target) < now


def describe(values: Values) -> str:
    """Lever values as "base_padding=12 free_padding=-3"."""
    return " ".join(f"{name}={value}" for name, value in values.items())
