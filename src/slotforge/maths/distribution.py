"""The distribution of round wins, for PAR sheets: how often each size of win comes, how much of the
RTP it returns, and how a player's RTP converges.

A maths-only loop, apart from the simulator's: it plays the game's own compiled loop
(``simulate_rounds``, the one live play and the simulator run) a round at a time and sorts every
round's win into classes of the total bet. Chunks are seeded exactly as
the simulator's (chunk ``i`` from ``(seed, i)``, a fresh session each), so its totals equal
``slotforge simulate``'s for the same seed and rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from slotforge.engine import events
from slotforge.engine.game import Game, Operator
from slotforge.engine.loop import TOTALS, WIN_UNITS
from slotforge.maths import stats
from slotforge.maths.streams import CHUNK, chunk_stream, plan

# Win classes, in multiples of the total bet: [0, 0] (no win), (0, 1), [1, 2), ..., [5000, inf).
CLASS_EDGES = (1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 2500, 5000)


def class_labels() -> list[str]:
    """Names of the win classes, in order."""
    bounds = [0, *CLASS_EDGES]
    return [
        "no win",
        "(0, 1)x",
        *[f"[{a:,}, {b:,})x" for a, b in zip(bounds[1:], bounds[2:], strict=False)],
        f"{CLASS_EDGES[-1]:,}x and more",
    ]


# Compiled in each process, not cached on disk: it takes a game's compiled loop as an argument,
# and numba's disk cache keeps one index for every game's compilation of it, whose entries name
# loops that another process may not have loaded ("underlying object has vanished"). It calls the
# game's own ``simulate_rounds`` (compiled once per machine and cached, the loop that live play
# and the simulator run) one round at a time, rather than inlining the round function again: so
# it compiles in a fraction of a second instead of the tens of seconds of a second copy of the
# round, and it plays exactly the rounds the simulator plays.
@njit(_nrt=False)
def _classify_rounds(
    simulate_rounds, tables, bet, state, outcomes, log, scratch, rounds, tally, totals, edges, counts, wins, largest
):
    """Play ``rounds`` rounds; count each win in its class (``edges`` in win units), add it to
    that class's sum and keep the largest in ``largest[0]``. Returns the sum of squared wins."""
    squares = 0.0
    for _ in range(rounds):
        before = totals[WIN_UNITS]
        # np.int64(1), not 1: numba would type a literal 1 as Literal[int](1) and compile the
        # game's loop again for it.
        squares += simulate_rounds(tables, bet, state, outcomes, log, scratch, np.int64(1), tally, totals)
        win = totals[WIN_UNITS] - before
        k = np.searchsorted(edges, win, side="right")
        counts[k] += 1
        wins[k] += win
        if win > largest[0]:
            largest[0] = win
    return squares


@dataclass
class Distribution:
    """Round wins of a simulation, by class of the total bet, and the RTP's path."""

    rounds: int
    units: int  # the total bet, in win units
    seed: int
    counts: np.ndarray  # rounds in each class
    wins: np.ndarray  # win units returned by each class
    squares: float
    largest_win: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))  # win units
    path: list[tuple[int, float, float]] = field(default_factory=list)  # (rounds, RTP, 99% half-width)

    @property
    def rtp(self) -> float:
        return float(self.wins.sum()) / self.rounds / self.units

    @property
    def largest(self) -> int:
        return int(self.largest_win[0])

    @property
    def ci99(self) -> float:
        return stats.summarise(self.rounds, int(self.wins.sum()), self.squares, self.units)["ci99"]

    @property
    def std(self) -> float:
        return stats.summarise(self.rounds, int(self.wins.sum()), self.squares, self.units)["std"]


def checkpoints(rounds: int, per_decade: int = 12, first: int = 1000) -> list[int]:
    """Round counts at which the RTP's path is recorded: log-spaced from ``first`` to ``rounds``."""
    if rounds <= first:
        return [rounds]
    steps = int(math.ceil(math.log10(rounds / first) * per_decade))
    points = {int(round(first * 10 ** (i / per_decade))) for i in range(steps)}
    return sorted({p for p in points if p < rounds} | {rounds})


def distribution(
    game: Game,
    rounds: int,
    seed: int = 1,
    bet: dict[str, Any] | None = None,
    strategy: str | None = None,
    chunk: int = CHUNK,
) -> Distribution:
    """Simulate ``rounds`` rounds of ``game`` at ``bet`` into win classes, recording the RTP's path."""
    played = game.parse_bet(bet) if bet else game.simulation_bet()
    units = played.total_units
    edges = np.array([1, *[edge * units for edge in CLASS_EDGES]], dtype=np.int64)
    counts = np.zeros(len(edges) + 1, dtype=np.int64)
    wins = np.zeros(len(edges) + 1, dtype=np.int64)
    tally = np.zeros(max(1, len(game.tally_names)), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    arguments = game.bet_arguments(played, Operator())
    result = Distribution(rounds, units, seed, counts, wins, 0.0)
    marks = iter(checkpoints(rounds))
    mark, done = next(marks), 0
    for i, size in enumerate(plan(rounds, chunk)):
        outcomes = game.outcomes(chunk_stream(seed, i), strategy=game.strategy_index(strategy))
        state, scratch, end = game.state_array({}, played), game.scratch(), done + size
        while done < end:
            step = min(mark, end) - done
            result.squares += _classify_rounds(
                game.simulate_rounds,
                game.tables,
                arguments,
                state,
                outcomes,
                events.off(),
                scratch,
                step,
                tally,
                totals,
                edges,
                counts,
                wins,
                result.largest_win,
            )
            done += step
            if done == mark:
                summary = stats.summarise(done, int(wins.sum()), result.squares, units)
                result.path.append((done, summary["rtp"], summary["ci99"]))
                mark = next(marks, rounds + 1)
    return result


def volatility_index(std: float, confidence: float = 0.90) -> float:
    """The volatility index: the two-sided normal quantile of ``confidence`` times the standard
    deviation of one round (x total bet), the industry's usual measure (at 90%)."""
    return stats.z(confidence) * std


def player_intervals(
    std: float, counts: tuple[int, ...] = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8), confidence: float = 0.95
) -> list[tuple[int, float]]:
    """The half-width of the interval in which a player's RTP over ``n`` rounds falls with
    ``confidence`` (normal approximation), for each ``n``."""
    return [(n, stats.z(confidence) * std / math.sqrt(n)) for n in counts]
