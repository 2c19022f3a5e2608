"""Shared measuring for the game benchmarks: compiled vs plain Python, in the same run.

Absolute speeds on shared machines are noisy, so every benchmark prints its figures next to a
reference measured in the same run: the very same round function run as plain Python
(``NUMBA_DISABLE_JIT=1``) in a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from slotforge.reports.simulate import simulate, simulate_chunk

PLAIN = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from slotforge.reports.simulate import simulate_chunk
simulate_chunk(sys.argv[1], 1, 0, 10)
started = time.perf_counter()
part = simulate_chunk(sys.argv[1], 1, 0, int(sys.argv[2]))
print(json.dumps({"rounds": part.rounds, "seconds": time.perf_counter() - started}))
"""


def one_core(code: str, rounds: int) -> float:
    """Compiled rounds per second in this process (after compiling)."""
    simulate_chunk(code, 1, 0, 1000)
    started = time.perf_counter()
    part = simulate_chunk(code, 1, 0, rounds)
    return part.rounds / (time.perf_counter() - started)


def all_cores(code: str, rounds: int, workers: int) -> float:
    """Compiled rounds per second over ``workers`` processes (pool start-up included)."""
    return simulate(code, rounds, seed=1, workers=workers)["rounds_per_second"]


def plain_python(code: str, rounds: int) -> float:
    """Rounds per second of the same rules as plain Python, in a subprocess."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", PLAIN, code, str(rounds)], env=env, check=True,
                          capture_output=True, text=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["rounds"] / figures["seconds"]


def run(code: str, rounds: int, plain_rounds: int, target: float) -> dict[str, float]:
    """Measure and print one game's figures; returns them."""
    workers = os.cpu_count() or 1
    single = one_core(code, rounds)
    multi = all_cores(code, rounds * workers, workers)
    reference = plain_python(code, plain_rounds)
    figures = {
        "one_core": single,
        "all_cores": multi,
        "workers": workers,
        "plain_python": reference,
        "ratio_vs_plain_python": single / reference,
        "scaling": multi / single,
    }
    print(f"{code}: complete rounds, gamble off")
    print(f"  compiled, one core    {single:>14,.0f} rounds/s   (target {target:,.0f})")
    print(f"  compiled, {workers} workers   {multi:>14,.0f} rounds/s   ({multi / single:.2f}x one core)")
    print(f"  plain Python, same rules {reference:>11,.0f} rounds/s")
    print(f"  ratio compiled / plain Python: {single / reference:,.0f}x")
    return figures


def main(code: str, target: float, doc: str) -> None:
    """The command line every game benchmark shares."""
    parser = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50_000_000, help="rounds per core")
    parser.add_argument("--plain-rounds", type=int, default=20_000, help="rounds for the plain-Python reference")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    figures = run(code, args.rounds, args.plain_rounds, target=target)
    if args.json:
        print(json.dumps(figures))
