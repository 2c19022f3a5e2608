"""Golden Grimoire: complete rounds per second (base game with Mysteries and free spins with
Sticky Mysteries), against the same rules run as plain Python in the same run.

The simulator's bench for this game alone, with the same rules run as plain Python beside it:

    python bench/bench_golden_grimoire.py [--rounds N] [--plain-python N] [--json]

(every game at once, against the plain-numba reference: bench/bench_simulate.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_simulate import main  # noqa: E402

if __name__ == "__main__":
    main(games="golden-grimoire", plain_rounds=20_000)
