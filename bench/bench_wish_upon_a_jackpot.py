"""Wish Upon a Jackpot: complete rounds per second with the Deal Maker's best strategy (the
default; 5x3 lines, the Fairy Godmother's wishes, four fairy-tale features), against the same
rules run as plain Python in the same run.

    python bench/bench_wish_upon_a_jackpot.py [--rounds N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import main  # noqa: E402

if __name__ == "__main__":
    main("wish-upon-a-jackpot", target=3_000_000, doc=__doc__)
