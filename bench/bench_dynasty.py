"""Dynasty: complete rounds per second (base game and free spins, gamble off).

    python bench/bench_dynasty.py [--rounds N]
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
    parser.add_argument("--rounds", type=int, default=50_000_000, help="rounds per core")
    parser.add_argument("--plain-rounds", type=int, default=20_000, help="rounds for the plain-Python reference")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run("dynasty", args.rounds, args.plain_rounds, target=10_000_000)
    if args.json:
        print(json.dumps(figures))
