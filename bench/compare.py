"""Speed of this tree against another revision, measured in the same run.

Checks the revision out in a temporary git worktree and times each game in both trees,
alternating (base, this, base, this, ...) so that whatever else the machine is doing weighs on
both alike. Prints each tree's median rounds per second and the ratio this / base (a ratio
under 0.95 is a slowdown of more than 5%), and the seconds of the first call in a new process
(the game's round loop loaded from the disk cache; what the measured path compiles besides it).

What is timed (``--measure``):

- ``simulate`` (the default): complete rounds on one core, the simulator's chunk;
- ``distribution``: the PAR sheet's win distribution (``slotforge.maths.distribution``), which
  sorts every round's win into classes of the bet.

    python bench/compare.py --base HEAD~3 dynasty golden-grimoire divine-fortune
    python bench/compare.py --base HEAD~1 --measure distribution --rounds 2000000 golden-grimoire

Each tree compiles its own round functions once (numba's cache is keyed on the source), so a
first run takes a few minutes per tree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The harness run in a new process per tree and turn: ``play(rounds, seed)`` is the measured call,
# defined by one of MEASURES; prints {"first_call_s": ..., "speeds": [rounds per second, ...]}.
HARNESS = """
import json, sys, time
code, rounds, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
{measure}
started = time.perf_counter()
play(1000, 0)
first = time.perf_counter() - started
speeds = []
for repeat in range(repeats):
    started = time.perf_counter()
    play(rounds, repeat + 1)
    speeds.append(rounds / (time.perf_counter() - started))
print(json.dumps({{"first_call_s": first, "speeds": speeds}}))
"""
MEASURES = {
    "simulate": """
from slotforge.reports.simulate import simulate_chunk
def play(rounds, seed):
    simulate_chunk(code, 1, seed, rounds)
""",
    "distribution": """
from slotforge.games.warmup import ready_game
from slotforge.maths.distribution import distribution
game = ready_game(code)  # the round loop, compiled or loaded from the disk cache
def play(rounds, seed):
    distribution(game, rounds, seed=seed)
""",
}


def timings(tree: Path, measure: str, code: str, rounds: int, repeats: int) -> dict:
    """``code`` timed in the source tree ``tree`` in a new process: its first call's seconds and
    ``repeats`` speeds in rounds per second."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    script = HARNESS.format(measure=MEASURES[measure])
    done = subprocess.run([sys.executable, "-c", script, code, str(rounds), str(repeats)], env=env,
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(base: Path, measure: str, code: str, rounds: int, turns: int) -> dict[str, tuple[float, float]]:
    """Medians (base, this tree) over alternating turns: ``speed`` and ``first_call_s``."""
    runs: dict[Path, dict[str, list[float]]] = {tree: {"speed": [], "first_call_s": []} for tree in (base, ROOT)}
    for _ in range(turns):
        for tree in (base, ROOT):
            timed = timings(tree, measure, code, rounds, 3)
            runs[tree]["speed"] += timed["speeds"]
            runs[tree]["first_call_s"].append(timed["first_call_s"])
    return {figure: (statistics.median(runs[base][figure]), statistics.median(runs[ROOT][figure]))
            for figure in ("speed", "first_call_s")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("games", nargs="+", help="game codes")
    parser.add_argument("--base", required=True, help="the git revision to compare against")
    parser.add_argument("--measure", choices=sorted(MEASURES), default="simulate", help="what to time")
    parser.add_argument("--rounds", type=int, default=5_000_000, help="rounds per timing")
    parser.add_argument("--turns", type=int, default=3, help="alternations of base and this tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.base], check=True)
        try:
            print(f"{args.measure}, one core; base {args.base} against this tree, median of {3 * args.turns} timings "
                  f"(speed) and of {args.turns} new processes (first call)")
            for code in args.games:
                figures = compare(base, args.measure, code, args.rounds, args.turns)
                (before, after), (first_before, first_after) = figures["speed"], figures["first_call_s"]
                print(f"  {code:20} base {before:>13,.0f}/s   this {after:>13,.0f}/s   ratio {after / before:.3f}"
                      f"   first call: base {first_before:.2f} s, this {first_after:.2f} s")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=True)


if __name__ == "__main__":
    main()
