"""Divine Fortune: complete rounds per second (re-spins, free spins and the bonus game, which
starts by itself in simulation and spins its cell reels at the simulation stake).

    python bench/bench_divine_fortune.py [--rounds N] [--plain-rounds N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import run  # noqa: E402

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000, help="rounds per core")
    parser.add_argument("--plain-rounds", type=int, default=10_000, help="rounds for the plain-Python reference")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run("divine-fortune", args.rounds, args.plain_rounds, target=2_000_000)
    if args.json:
        print(json.dumps(figures))
