"""Golden Grimoire: complete rounds per second (base game with Mysteries and free spins with
Sticky Mysteries), against the same rules run as plain Python in the same run.

    python bench/bench_golden_grimoire.py [--rounds N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import main  # noqa: E402

if __name__ == "__main__":
    main("golden-grimoire", target=5_000_000, doc=__doc__)
