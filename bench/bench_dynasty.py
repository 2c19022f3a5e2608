"""Dynasty: complete rounds per second (base game and free spins, gamble off).

    python bench/bench_dynasty.py [--rounds N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import main  # noqa: E402

if __name__ == "__main__":
    main("dynasty", target=10_000_000, doc=__doc__)
