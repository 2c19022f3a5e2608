"""Moon of Fortune: complete rounds per second (sixteen independent reels, count pays, stickies
carried from round to round, Hold the Jackpot), against the same rules run as plain Python in
the same run.

    python bench/bench_moon_of_fortune.py [--rounds N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import main  # noqa: E402

if __name__ == "__main__":
    main("moon-of-fortune", target=3_000_000, doc=__doc__)
