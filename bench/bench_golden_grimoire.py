"""Golden Grimoire: complete rounds per second (base game with Mysteries and free spins with
Sticky Mysteries), against the same rules run as plain Python in the same run.

    python bench/bench_golden_grimoire.py [--rounds N]
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
    figures = run("golden-grimoire", args.rounds, args.plain_rounds, target=5_000_000)
    if args.json:
        print(json.dumps(figures))
