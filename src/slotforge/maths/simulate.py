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
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine import events, rng
from slotforge.engine.game import Operator
from slotforge.engine.loop import TOTALS
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


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _chunk_task(args: tuple) -> Partial:
    return simulate_chunk(*args)


def plan(rounds: int, chunk: int = CHUNK) -> Iterator[int]:
    """Rounds per chunk: full chunks and a last partial one, produced lazily (a run of 10^15
    rounds must not build its task list first)."""
    for _ in range(rounds // chunk):
        yield chunk
    if rounds % chunk:
        yield rounds % chunk


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


class Interrupts:
    """Counts Ctrl-C (SIGINT) instead of raising, while installed, so that a simulation can
    stop between chunks however many times the signal arrives.

    The first interrupt stops handing out chunks (those under way finish and count); a second
    one gives up waiting for them too. The previous handler is restored on exit. Outside the
    main thread (where Python cannot install handlers) it counts nothing.
    """

    def __init__(self) -> None:
        self.count = 0
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


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
) -> dict[str, Any]:
    """Simulate ``rounds`` rounds of game ``code``; Ctrl-C stops early and reports what ran.

    ``bet`` is the game's bet fields (the model's defaults when omitted); ``strategy`` names
    the game's strategy answering its decisions (its default when omitted). The round function is
    compiled (or loaded from the disk cache) first, and timed apart: ``compile_seconds`` in the
    report, ``on_compiled(seconds)`` when it is done, so that ``rounds_per_second`` is the
    rounds' own speed.
    """
    if rounds < 1:
        raise ValueError(f"rounds: expected a positive number of rounds, got {rounds}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers}")
    game = load_game(code, model)
    model_path = str(model) if model else None
    played = game.parse_bet(bet) if bet else game.simulation_bet()
    compiling = time.perf_counter()
    strategy = game.strategies[game.strategy_index(strategy)] if game.strategies else None
    simulate_chunk(code, seed, 0, 1, model_path, bet, strategy)  # compiles, or loads the compiled code
    compile_seconds = time.perf_counter() - compiling
    if on_compiled:
        on_compiled(compile_seconds)
    tasks = ((code, seed, i, size, model_path, bet, strategy) for i, size in enumerate(plan(rounds, chunk)))
    workers = min(workers, -(-rounds // chunk))
    total = Partial()
    started = time.perf_counter()
    with Interrupts() as interrupts:
        run = _run_here if workers == 1 else partial(_run_in_pool, workers=workers)
        run(tasks, total, progress, interrupts)
    elapsed = time.perf_counter() - started
    interrupted = total.rounds < rounds
    result = report(game, played, total, elapsed, seed, workers, interrupted)
    result["compile_seconds"] = compile_seconds
    result["strategy"] = strategy
    return result


def _run_here(tasks: Iterator[tuple], total: Partial, progress: Callable[[int], None] | None,
              interrupts: Interrupts) -> None:
    """Play the chunks in this process, checking for Ctrl-C between them."""
    try:
        for task in tasks:
            if interrupts.count:
                return
            part = _chunk_task(task)
            total.add(part)
            if progress:
                progress(part.rounds)
    except KeyboardInterrupt:  # raised by a progress callback, or before the handler was in place
        return


def _run_in_pool(tasks: Iterator[tuple], total: Partial, progress: Callable[[int], None] | None,
                 interrupts: Interrupts, workers: int) -> None:
    """Play the chunks on ``workers`` processes, a few chunks ahead of the results.

    Keeping only a few chunks in flight bounds memory whatever the number of rounds, and lets
    a first Ctrl-C stop quickly: nothing new is handed out and the chunks under way still count.
    A second Ctrl-C stops waiting for them.
    """
    context = mp.get_context("fork" if os.name == "posix" else "spawn")
    pool = context.Pool(workers, initializer=_ignore_sigint)
    pending: deque = deque()
    try:
        while interrupts.count < 2:
            while not interrupts.count and len(pending) < 2 * workers:
                task = next(tasks, None)
                if task is None:
                    break
                pending.append(pool.apply_async(_chunk_task, (task,)))
            if not pending:
                break
            pending[0].wait(0.05)
            for result in [r for r in pending if r.ready()]:
                pending.remove(result)
                part = result.get()
                total.add(part)
                if progress:
                    progress(part.rounds)
    except KeyboardInterrupt:
        pass
    finally:
        pool.terminate()
        pool.join()


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
