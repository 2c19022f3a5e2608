"""Speed of this tree against another revision, measured in the same run.

Checks the revision out in a temporary git worktree and times complete rounds on one core for
each game in both trees, alternating (base, this, base, this, ...) so that whatever else the
machine is doing weighs on both alike. Prints each tree's median rounds per second and the
ratio this / base; a ratio under 0.95 is a slowdown of more than 5%.

    python bench/compare.py --base HEAD~3 dynasty golden-grimoire divine-fortune

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

TIMING = """
import json, sys, time
from slotforge.reports.simulate import simulate_chunk
code, rounds, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
simulate_chunk(code, 1, 0, 1000)
speeds = []
for repeat in range(repeats):
    started = time.perf_counter()
    part = simulate_chunk(code, 1, repeat, rounds)
    speeds.append(part.rounds / (time.perf_counter() - started))
print(json.dumps(speeds))
"""


def speeds(tree: Path, code: str, rounds: int, repeats: int) -> list[float]:
    """Rounds per second of ``code`` in the source tree ``tree``, ``repeats`` timings."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    done = subprocess.run([sys.executable, "-c", TIMING, code, str(rounds), str(repeats)], env=env,
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(base: Path, code: str, rounds: int, turns: int) -> tuple[float, float]:
    """Median speeds (base, this tree) over alternating turns."""
    before, after = [], []
    for _ in range(turns):
        before += speeds(base, code, rounds, 3)
        after += speeds(ROOT, code, rounds, 3)
    return statistics.median(before), statistics.median(after)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("games", nargs="+", help="game codes")
    parser.add_argument("--base", required=True, help="the git revision to compare against")
    parser.add_argument("--rounds", type=int, default=5_000_000, help="rounds per timing")
    parser.add_argument("--turns", type=int, default=3, help="alternations of base and this tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.base], check=True)
        try:
            print(f"one core, complete rounds; base {args.base} against this tree, median of {3 * args.turns} timings")
            for code in args.games:
                before, after = compare(base, code, args.rounds, args.turns)
                print(f"  {code:18} base {before:>13,.0f}/s   this {after:>13,.0f}/s   ratio {after / before:.3f}")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=True)


if __name__ == "__main__":
    main()
