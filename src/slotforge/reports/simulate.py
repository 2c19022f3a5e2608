"""The simulator: billions of complete rounds through the same round function that pays players.

Work is cut into fixed chunks, and chunk ``i`` draws from its own xoshiro256** stream seeded by
``(seed, i)``. The figures therefore depend only on the seed and the number of rounds, never on
how many worker processes shared the chunks, or whether they ran on a Dask cluster
(:mod:`slotforge.maths.runner`). Each worker runs the game's compiled round
function in a compiled loop with recording off and the gamble off (it returns 100% by
construction, so it is left out of the RTP as the rules' maths does).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.game import Operator
from slotforge.engine.loop import TOTALS
from slotforge.games import load_game, maths_of
from slotforge.maths import stats
from slotforge.maths.cluster import Cluster, open_cluster
from slotforge.maths.runner import Interrupts, run_chunks
from slotforge.maths.streams import CHUNK, chunk_stream, plan

__all__ = ["CHUNK", "Interrupts", "Partial", "chunk_stream", "plan", "report", "simulate", "simulate_chunk",
           "workers_used"]

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


def simulate_chunk(
    code: str, seed: int, chunk: int, rounds: int, model: str | None = None, bet: dict | None = None,
    strategy: str | None = None,
) -> Partial:
    """Play chunk ``chunk`` of a simulation (``rounds`` rounds) in this process: one player's
    session at one bet, carrying its state from round to round, its decisions answered by
    ``strategy`` (the game's default when None), under the default operator settings."""
    game = load_game(code, Path(model) if model else None)
    played = game.parse_bet(bet) if bet else game.simulation_bet()
    outcomes = game.outcomes(chunk_stream(seed, chunk), strategy=game.strategy_index(strategy))
    state = game.state_array({}, played)
    tally = np.zeros(max(1, len(game.tally_names)), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    squares = game.simulate_rounds(
        game.tables, game.bet_arguments(played, Operator()), state, outcomes, events.off(), game.scratch(),
        rounds, tally, totals,
    )
    return Partial(int(totals[0]), int(totals[1]), int(totals[2]), int(totals[3]), float(squares), tally)


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def worker_count(requested: int) -> tuple[int, str | None]:
    """Worker processes for a request (0 = every core), capped at the cores, with a note when capped.

    More processes than cores only share the same cores and slow every one of them down.
    """
    if requested < 0:
        raise ValueError(f"workers: expected 0 (every core) or a positive number, got {requested}")
    cores = available_cores()
    if requested == 0:
        return cores, None
    if requested > cores:
        return cores, f"--workers {requested}: this machine has {cores} core(s); using {cores}"
    return requested, None


def workers_used(rounds: int, workers: int, chunk: int = CHUNK) -> int:
    """The local worker processes a run of ``rounds`` keeps busy: each takes whole chunks, so
    never more workers than chunks (a million rounds are one chunk: one worker)."""
    return min(workers, -(-rounds // chunk))


def simulate(
    code: str,
    rounds: int,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    model: Path | None = None,
    bet: dict[str, Any] | None = None,
    on_compiled: Callable[[float], None] | None = None,
    strategy: str | None = None,
    cluster: str | None = None,
) -> dict[str, Any]:
    """Simulate ``rounds`` rounds of game ``code``; Ctrl-C stops early and reports what ran.

    ``bet`` is the game's bet fields (the model's defaults when omitted); ``strategy`` names
    the game's strategy answering its decisions (its default when omitted). ``cluster`` (a Dask
    scheduler's address, or ``local:N``) runs the chunks there instead of on ``workers`` local
    processes; the figures are the same. The round function is compiled (or loaded from the
    disk cache) first, on every worker of a cluster too, and timed apart: ``compile_seconds``
    in the report, ``on_compiled(seconds)`` when it is done, so that ``rounds_per_second`` is
    the rounds' own speed.
    """
    if rounds < 1:
        raise ValueError(f"rounds: expected a positive number of rounds, got {rounds}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers}")
    game = load_game(code, model)
    model_path = str(model) if model else None
    played = game.parse_bet(bet) if bet else game.simulation_bet()
    strategy = game.strategies[game.strategy_index(strategy)] if game.strategies else None
    with open_cluster(cluster) as where:
        compiling = time.perf_counter()
        warm_up = (code, seed, 0, 1, model_path, bet, strategy)
        simulate_chunk(*warm_up)  # compiles, or loads the compiled code
        if where is not None:
            where.on_every_worker(simulate_chunk, *warm_up)
        compile_seconds = time.perf_counter() - compiling
        if on_compiled:
            on_compiled(compile_seconds)
        tasks = ((code, seed, i, size, model_path, bet, strategy) for i, size in enumerate(plan(rounds, chunk)))
        used = where.slots if where is not None else workers_used(rounds, workers, chunk)
        total, elapsed = run_simulation_chunks(tasks, used, where, progress)
    result = report(game, played, total, elapsed, seed, used, total.rounds < rounds)
    result["compile_seconds"] = compile_seconds
    result["strategy"] = strategy
    if cluster is not None:
        result["cluster"] = cluster
    return result


def run_simulation_chunks(tasks: Iterator[tuple], workers: int, cluster: Cluster | None,
                          progress: Callable[[int], None] | None) -> tuple[Partial, float]:
    """Play :func:`simulate_chunk` tasks here, on ``workers`` local processes or on a cluster,
    summing them in chunk order: (the sums, seconds)."""
    total = Partial()

    def take(part: Partial) -> None:
        total.add(part)
        if progress:
            progress(part.rounds)

    started = time.perf_counter()
    with Interrupts() as interrupts:
        run_chunks(simulate_chunk, tasks, take, interrupts, workers=workers, cluster=cluster)
    return total, time.perf_counter() - started


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
    maths = maths_of(game)
    pool = maths.jackpot_share(tally, total.rounds, bet) if total.rounds else None
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
        "features": maths.feature_report(tally, total.rounds, bet) if total.rounds else {},
        "seconds": elapsed,
        "rounds_per_second": total.rounds / elapsed if elapsed > 0 else 0.0,
    }
