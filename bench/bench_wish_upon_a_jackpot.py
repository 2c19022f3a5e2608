"""Wish Upon a Jackpot: complete rounds per second with the Deal Maker's best strategy (the
default; 5x3 lines, the Fairy Godmother's wishes, four fairy-tale features), against the same
rules run as plain Python in the same run.

The simulator's bench for this game alone, with the same rules run as plain Python beside it:

    python bench/bench_wish_upon_a_jackpot.py [--rounds N] [--plain-python N] [--json]

(every game at once, against the plain-numba reference: bench/bench_simulate.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_simulate import main  # noqa: E402

if __name__ == "__main__":
    main(games="wish-upon-a-jackpot", plain_rounds=20_000)
