"""The simulator against the machine's limit: every game's complete rounds per second, on one core
and on all cores, next to a plain-numba base spin measured in the same run.

The reference (:func:`reference_spins`) is what a line game's simulator cannot beat by much: a
compiled loop that draws five stops (the games' own xoshiro256** stream and bounded draw) and
pays twenty lines of a 5x3 screen symbol by symbol. Each game's figure is a ratio to it, so
that the machine's speed and its load of the moment cancel out.

Measures are interleaved (reference, every game, reference, every game, ...) and each figure is
the median of ``--repeats`` (three). One core: the game's compiled loop in this process, as the
simulator's worker (``simulate_chunk``) runs it, the model loaded beforehand. All cores: one
process per core, each started and warmed up once, each playing its own chunk at the same
moment; ``scaling`` is the rounds per second over all of them divided by (cores x one core's),
100% when every core plays as fast as one alone.

    python bench/bench_simulate.py [--rounds N] [--repeats 3] [--games dynasty,...] [--json]
    python bench/bench_simulate.py --profile wish-upon-a-jackpot [--rounds N]
    python bench/bench_simulate.py --games dynasty --plain-python 20000

``--plain-python N`` also plays N rounds of each game as plain Python (``NUMBA_DISABLE_JIT=1``, in
a subprocess): how much the compilation buys. ``bench/bench_<game>.py`` runs this for one game.

``--profile GAME`` times a game's round by part, in nanoseconds a round: the stop draws alone,
the base spin (draws, evaluation, the triggers checked, its tallies), and the whole round in the
simulator's loop; evaluation is the base spin less its draws, and the features (with their
tallies and the loop's totals) what the round costs beyond its base spin.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import cache

import slotforge  # noqa: F401  (first: it keys numba's disk cache on the source before numba reads its config)

# isort: split
import numpy as np
from numba import njit

from slotforge.engine import events, rng
from slotforge.engine.game import Operator
from slotforge.engine.loop import TOTALS
from slotforge.engine.spin import enabled_lines, land
from slotforge.games import game_codes, load_game
from slotforge.maths.streams import chunk_stream
from slotforge.reports.simulate import available_cores

REELS, ROWS, LINES = 5, 3, 20
SEED = 20261206


# -- the reference: a plain compiled base spin -------------------------------------------------
def reference_game(symbols: int = 11, length: int = 48, seed: int = 7) -> tuple[np.ndarray, ...]:
    """Five random reel strips of ``symbols`` symbols (the last a WILD), twenty lines of a 5x3
    screen, and pays for 3, 4 and 5 of a kind that grow with the symbol's rarity."""
    pick = np.random.default_rng(seed)
    weights = np.arange(symbols, 0, -1, dtype=np.float64)
    strips = pick.choice(symbols, size=(REELS, length), p=weights / weights.sum()).astype(np.int64)
    lines = pick.integers(0, ROWS, size=(LINES, REELS)).astype(np.int64)
    pays = np.zeros((symbols, REELS + 1), dtype=np.int64)
    for symbol in range(symbols - 1):
        pays[symbol, 3:] = (np.array([5, 20, 100]) * (1 + symbol // 2)).astype(np.int64)
    return strips, lines, pays


@njit(cache=True)
def reference_spins(strips, lines, pays, stream, spins):
    """``spins`` base spins drawn and paid the plain way; returns the total win."""
    reels, length = strips.shape
    wild = pays.shape[0] - 1
    window = np.zeros((ROWS, reels), dtype=np.int64)
    total = 0
    for _ in range(spins):
        for reel in range(reels):
            stop = rng.bounded(stream, length)
            for row in range(ROWS):
                window[row, reel] = strips[reel, (stop + row) % length]
        for line in range(lines.shape[0]):
            first = window[lines[line, 0], 0]
            count = 1
            for reel in range(1, reels):
                symbol = window[lines[line, reel], reel]
                if first == wild:
                    first = symbol
                elif symbol != first and symbol != wild:
                    break
                count += 1
            if first != wild:
                total += pays[first, count]
    return total


REFERENCE = "reference"


@cache
def loaded(code: str) -> tuple:
    """A game and the arguments its simulator's loop takes, but for the random stream: loading
    a model takes longer than a million rounds, so it is done once and left out of the time."""
    game = load_game(code)
    played = game.simulation_bet()
    return game, game.bet_arguments(played, Operator()), played


def play(what: str, rounds: int, chunk: int = 0) -> float:
    """Rounds (or reference spins) per second of ``rounds`` played here, on chunk ``chunk``'s
    stream: the simulator's own compiled loop, as :func:`simulate_chunk` runs it."""
    if what == REFERENCE:
        strips, lines, pays = reference_game()
        stream = chunk_stream(SEED, chunk)
        started = time.perf_counter()
        reference_spins(strips, lines, pays, stream, rounds)
        return rounds / (time.perf_counter() - started)
    game, bet, played = loaded(what)
    outcomes = game.outcomes(chunk_stream(SEED, chunk), strategy=game.strategy_index(None))
    state, work = game.state_array({}, played), game.scratch()
    tally = np.zeros(max(1, len(game.tally_names)), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    started = time.perf_counter()
    game.simulate_rounds(game.tables, bet, state, outcomes, events.off(), work, rounds, tally, totals)
    return rounds / (time.perf_counter() - started)


def warm_up(games: list[str]) -> None:
    """Compile (or load) the reference and every game's loop in this process."""
    for what in [REFERENCE, *games]:
        play(what, 1000)


PLAIN = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from slotforge.reports.simulate import simulate_chunk
simulate_chunk(sys.argv[1], 1, 0, 10)
started = time.perf_counter()
part = simulate_chunk(sys.argv[1], 1, 0, int(sys.argv[2]))
print(json.dumps({"rounds": part.rounds, "seconds": time.perf_counter() - started}))
"""


def plain_python(code: str, rounds: int) -> float:
    """Rounds per second of the same rules as plain Python, in a subprocess."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", PLAIN, code, str(rounds)], env=env, check=True,
                          capture_output=True, text=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["rounds"] / figures["seconds"]


# -- measuring ------------------------------------------------------------------------------
def one_core(what: str, rounds: int) -> float:
    return play(what, rounds)


def all_cores(pool, cores: int, what: str, rounds: int) -> float:
    """Rounds per second over ``cores`` processes each playing ``rounds`` at the same moment."""
    started = time.perf_counter()
    pool.starmap(play, [(what, rounds, chunk) for chunk in range(cores)])
    return cores * rounds / (time.perf_counter() - started)


def interleaved(subjects: list[str], repeats: int, measure: Callable[[str], float]) -> dict[str, float]:
    """The median of ``repeats`` measures of each subject, taken in turn."""
    runs: dict[str, list[float]] = {what: [] for what in subjects}
    for _ in range(repeats):
        for what in subjects:
            runs[what].append(measure(what))
    return {what: statistics.median(values) for what, values in runs.items()}


def scaled_rounds(games: list[str], rounds: int) -> dict[str, int]:
    """Rounds per measure for each subject, so that each takes about as long as ``rounds``
    reference spins: a slow game plays fewer rounds than a fast one."""
    speed = {what: play(what, max(1000, rounds // 20)) for what in [REFERENCE, *games]}
    return {what: max(1000, int(rounds * speed[what] / speed[REFERENCE])) for what in speed}


def run(games: list[str], rounds: int, repeats: int, plain_rounds: int = 0) -> dict:
    cores = available_cores()
    warm_up(games)
    sizes = scaled_rounds(games, rounds)
    subjects = [REFERENCE, *games]
    single = interleaved(subjects, repeats, lambda what: one_core(what, sizes[what]))
    with multiprocessing.get_context("spawn").Pool(cores, initializer=warm_up, initargs=(games,)) as pool:
        pool.starmap(play, [(REFERENCE, 1000)] * cores)
        multi = interleaved(subjects, repeats, lambda what: all_cores(pool, cores, what, sizes[what]))
    plain = {what: plain_python(what, plain_rounds) for what in games} if plain_rounds else {}
    return {
        "cores": cores,
        "repeats": repeats,
        "plain_python": {what: {"rounds_per_second": speed, "compiled_ratio": single[what] / speed}
                         for what, speed in plain.items()},
        "figures": {
            what: {
                "one_core": single[what],
                "all_cores": multi[what],
                "ratio_one_core": single[what] / single[REFERENCE],
                "scaling": multi[what] / (cores * single[what]),
            }
            for what in subjects
        },
    }


def print_run(result: dict) -> None:
    cores = result["cores"]
    print(f"complete rounds per second, gamble off; medians of {result['repeats']}, interleaved; {cores} core(s)")
    print(f"{'':24}{'one core':>14}{'vs reference':>14}{f'{cores} cores':>14}{'per core':>10}")
    for what, f in result["figures"].items():
        name = "reference (base spin)" if what == REFERENCE else what
        print(f"{name:24}{f['one_core']:>14,.0f}{f['ratio_one_core']:>13.2f}x"
              f"{f['all_cores']:>14,.0f}{f['scaling']:>9.0%}")
    for what, f in result["plain_python"].items():
        print(f"{what}: plain Python, same rules {f['rounds_per_second']:,.0f} rounds/s;"
              f" compiled / plain Python {f['compiled_ratio']:,.0f}x")


# -- a round by part -------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def draws_only(reelset, outcomes, scratch, spins):
    """Stop draws alone: the base spin's five bounded draws."""
    for _ in range(spins):
        land(reelset, outcomes, scratch, False)


def looped(spin: Callable) -> Callable:
    """A compiled loop of ``spins`` base spins (whatever they trigger left unplayed), ``spin``
    inlined into it and no reference counting, as the simulator's loop has it."""

    @njit(_nrt=False)
    def base_spins(tables, bet, state, outcomes, log, work, tally, spins):
        won = 0
        for _ in range(spins):
            won += spin(tables, bet, state, outcomes, log, work, tally)
        return won

    return base_spins


def base_spin_of(code: str) -> Callable:
    """A compiled loop of the game's base spin: ``(tables, bet, state, outcomes, log, work, tally, spins)``."""
    if code == "dynasty":
        from slotforge.engine.spin import line_spin

        @njit(inline="always")
        def spin(tables, bet, state, outcomes, log, work, tally):
            return line_spin(tables.pay, tables.base, events.BASE, 0, 0, 0, enabled_lines(bet[0]), bet[1], 1,
                             outcomes, log, work)[0]
    elif code == "golden-grimoire":
        from slotforge.games.golden_grimoire.kernels import base_spin

        @njit(inline="always")
        def spin(tables, bet, state, outcomes, log, work, tally):
            return base_spin(tables, enabled_lines(bet[0]), outcomes, log, work, tally)[0]
    elif code == "wish-upon-a-jackpot":
        from slotforge.games.wish_upon_a_jackpot.kernels import base_spin

        @njit(inline="always")
        def spin(tables, bet, state, outcomes, log, work, tally):
            return base_spin(tables, bet, outcomes, log, work, tally)[1]
    elif code == "divine-fortune":
        from slotforge.games.divine_fortune.kernels import main_game
        from slotforge.games.divine_fortune.kernels.measure import no_free_spins

        @njit(inline="always")
        def spin(tables, bet, state, outcomes, log, work, tally):
            return main_game(tables, outcomes, log, work, tally, no_free_spins)[1]
    elif code == "moon-of-fortune":
        from slotforge.games.moon_of_fortune.kernels import base_spin

        @njit(inline="always")
        def spin(tables, bet, state, outcomes, log, work, tally):
            return base_spin(tables, bet, state, outcomes, log, work, tally)[1]
    else:
        raise SystemExit(f"--profile: no base spin known for {code!r}; expected one of {game_codes()}")
    return looped(spin)


def profile(code: str, rounds: int, repeats: int) -> dict[str, float]:
    """Nanoseconds a round by part (medians of ``repeats``), and the reference's spin. The base
    spin's loop is compiled here, inlining the game's own base spin (a minute or more)."""
    game, bet, played = loaded(code)
    base_spins = base_spin_of(code)

    def fresh():
        outcomes = game.outcomes(chunk_stream(SEED, 0), strategy=game.strategy_index(None))
        tally = np.zeros(max(1, len(game.tally_names)), dtype=np.int64)
        return outcomes, game.scratch(), tally

    def timed(step: Callable[[], object]) -> float:
        step()
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            step()
            times.append(time.perf_counter() - started)
        return statistics.median(times) * 1e9 / rounds

    def draws():
        outcomes, work, _ = fresh()
        reelset = getattr(game.tables, "base", None)
        if reelset is not None and hasattr(reelset, "lengths"):
            draws_only(reelset, outcomes, work, rounds)

    def base():
        outcomes, work, tally = fresh()
        base_spins(game.tables, bet, game.state_array({}, played), outcomes, events.off(), work, tally, rounds)

    play(REFERENCE, 1000)  # compiled, or loaded from the cache, before it is timed
    part = {
        "reference spin": 1e9 / statistics.median(one_core(REFERENCE, rounds) for _ in range(repeats)),
        "stop draws": timed(draws),
        "base spin (draws, evaluation, triggers)": timed(base),
        "round (simulator's loop)": 1e9 / statistics.median(one_core(code, rounds) for _ in range(repeats)),
    }
    part["evaluation and triggers"] = part["base spin (draws, evaluation, triggers)"] - part["stop draws"]
    part["features, tallies and the loop"] = part["round (simulator's loop)"] - part[
        "base spin (draws, evaluation, triggers)"]
    return part


def print_profile(code: str, parts: dict[str, float]) -> None:
    print(f"{code}: nanoseconds a round, by part (medians)")
    for name, ns in parts.items():
        print(f"  {name:42}{ns:>10.1f}")


def main(games: str = ",".join(game_codes()), plain_rounds: int = 0) -> None:
    """The command line; a per-game bench calls it with its game and a plain-Python reference."""
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4_000_000,
                        help="reference spins a measure; each game plays as many rounds as take as long")
    parser.add_argument("--repeats", type=int, default=3, help="measures of each figure (the median is kept)")
    parser.add_argument("--games", default=games, help="comma-separated game codes")
    parser.add_argument("--plain-python", type=int, default=plain_rounds, metavar="N",
                        help="also play N rounds of each game as plain Python (0: not)")
    parser.add_argument("--profile", metavar="GAME", help="time one game's round by part instead")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    if args.profile:
        parts = profile(args.profile, args.rounds, args.repeats)
        print_profile(args.profile, parts)
        result: dict = {"game": args.profile, "ns_per_round": parts}
    else:
        games = [code.strip() for code in args.games.split(",") if code.strip()]
        unknown = sorted(set(games) - set(game_codes()))
        if unknown:
            raise SystemExit(f"--games: unknown {unknown}; expected some of {game_codes()}")
        result = run(games, args.rounds, args.repeats, args.plain_python)
        print_run(result)
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
