"""The simulator: billions of complete rounds through the same round function that pays players.

Work is cut into fixed chunks, and chunk ``i`` draws from its own xoshiro256** stream seeded by
``(seed, i)``. The figures therefore depend only on the seed and the number of rounds, never on
how many worker processes shared the chunks. Each worker runs the game's compiled round
function in a compiled loop with recording off and the gamble off (it returns 100% by
construction, so it is left out of the RTP as the rules' maths does).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine import events, rng
from slotforge.engine.loop import TOTALS
from slotforge.engine.outcomes import simulation_outcomes
from slotforge.games import load_game
from slotforge.maths import stats

CHUNK = 1 << 20  # rounds per chunk: the unit of work, of seeding and of progress


@dataclass
class Partial:
    """Sums over some rounds, in win units; added up across chunks and workers."""

    rounds: int = 0
    win_units: int = 0
    hits: int = 0
    max_units: int = 0
    squares: float = 0.0
    tally: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def add(self, other: Partial) -> None:
        self.rounds += other.rounds
        self.win_units += other.win_units
        self.hits += other.hits
        self.max_units = max(self.max_units, other.max_units)
        self.squares += other.squares
        self.tally = other.tally.copy() if self.tally.size == 0 else self.tally + other.tally


def chunk_stream(seed: int, chunk: int) -> np.ndarray:
    return rng.xoshiro_stream([seed, chunk])


def simulate_chunk(
    code: str, seed: int, chunk: int, rounds: int, model: str | None = None, bet: dict | None = None
) -> Partial:
    """Play chunk ``chunk`` of a simulation (``rounds`` rounds) in this process."""
    game = load_game(code, Path(model) if model else None)
    bet = game.parse_bet(bet) if bet else game.simulation_bet()
    outcomes = simulation_outcomes(chunk_stream(seed, chunk), game.grid, max(1, len(game.draw_names)))
    tally = np.zeros(len(game.tally_names), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    squares = game.simulate_rounds(
        game.tables, game.bet_arguments(bet, None), outcomes, events.off(), game.scratch(), rounds, tally, totals
    )
    return Partial(int(totals[0]), int(totals[1]), int(totals[2]), int(totals[3]), float(squares), tally)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _chunk_task(args: tuple) -> Partial:
    return simulate_chunk(*args)


def plan(rounds: int, chunk: int = CHUNK) -> list[int]:
    """Rounds per chunk: full chunks and a last partial one."""
    sizes = [chunk] * (rounds // chunk)
    if rounds % chunk:
        sizes.append(rounds % chunk)
    return sizes


def simulate(
    code: str,
    rounds: int,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    model: Path | None = None,
    bet: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Simulate ``rounds`` rounds of game ``code``; Ctrl-C stops early and reports what ran.

    ``bet`` is the game's bet fields (the model's defaults when omitted).
    """
    if rounds < 1:
        raise ValueError(f"rounds: expected a positive number of rounds, got {rounds}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers}")
    game = load_game(code, model)
    model_path = str(model) if model else None
    played = game.parse_bet(bet) if bet else game.simulation_bet()
    tasks = [(code, seed, i, size, model_path, bet) for i, size in enumerate(plan(rounds, chunk))]
    total = Partial()
    interrupted = False
    started = time.perf_counter()
    if workers == 1:
        try:
            for task in tasks:
                total.add(_chunk_task(task))
                if progress:
                    progress(task[3])
        except KeyboardInterrupt:
            interrupted = True
    else:
        # Compile (or load from cache) once here so the workers start from the cache.
        simulate_chunk(code, seed, 0, 1, model_path, bet)
        context = mp.get_context("fork" if os.name == "posix" else "spawn")
        pool = context.Pool(workers, initializer=_ignore_sigint)
        try:
            for part in pool.imap_unordered(_chunk_task, tasks):
                total.add(part)
                if progress:
                    progress(part.rounds)
            pool.close()
        except KeyboardInterrupt:
            interrupted = True
            pool.terminate()
        finally:
            pool.join()
    elapsed = time.perf_counter() - started
    return report(game, played, total, elapsed, seed, workers, interrupted)


def report(
    game, bet, total: Partial, elapsed: float, seed: int, workers: int, interrupted: bool
) -> dict[str, Any]:
    """The simulation's figures, as fractions of the total bet.

    For a game with a progressive jackpot, ``rtp`` is what players get back with the jackpot
    pool's share included (as the game's RTP report counts it: the contribution and the seed's
    share), ``rtp_without_jackpot`` what the rounds themselves paid, and ``jackpot_pool`` the
    share's parts; the intervals are those of the rounds' wins.
    """
    units = bet.total_units
    summary = stats.summarise(total.rounds, total.win_units, total.squares, units)
    tally = {name: int(v) for name, v in zip(game.tally_names, total.tally, strict=False)} if total.rounds else {}
    pool = game.jackpot_share(tally, total.rounds, bet) if total.rounds else None
    if pool is not None:
        summary = {"rtp": summary["rtp"] + pool["total"], "rtp_without_jackpot": summary["rtp"],
                   "jackpot_pool": pool, **{k: v for k, v in summary.items() if k != "rtp"}}
    return {
        "game": game.code,
        "model": game.model_id,
        "bet": bet.as_json(),
        "seed": seed,
        "workers": workers,
        "rounds": total.rounds,
        "interrupted": interrupted,
        "total_bet_units": total.rounds * units,
        "total_win_units": total.win_units,
        **summary,
        "hit_frequency": total.hits / total.rounds if total.rounds else 0.0,
        "max_win": total.max_units / units,
        "features": game.feature_report(tally, total.rounds, bet) if total.rounds else {},
        "seconds": elapsed,
        "rounds_per_second": total.rounds / elapsed if elapsed > 0 else 0.0,
    }
