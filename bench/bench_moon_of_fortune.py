"""Moon of Fortune: complete rounds per second (sixteen independent reels, count pays, stickies
carried from round to round, Hold the Jackpot), against the same rules run as plain Python in
the same run.

The simulator's bench for this game alone, with the same rules run as plain Python beside it:

    python bench/bench_moon_of_fortune.py [--rounds N] [--plain-python N] [--json]

(every game at once, against the plain-numba reference: bench/bench_simulate.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_simulate import main  # noqa: E402

if __name__ == "__main__":
    main(games="moon-of-fortune", plain_rounds=20_000)
