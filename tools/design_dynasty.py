"""How Dynasty's reel strips were designed: symbol counts per reel, laid out as strips.

Run ``python tools/design_dynasty.py`` to lay the strips out again from the counts below, tune
the low symbols until the exact RTP is 95.00%, and write them into the model file. The layout
is seeded, so the same counts always give the same strips; it is the one ``slotforge design
dynasty`` uses for the game's further RTP versions (``slotforge.design.designers``).

Design choices:
- SEAL comes in stacks of 4 on reels 2-4 (a stack can fill a whole reel); free spins carry two
  stacks per reel, which with the doubling makes free spins the volatile part of the game.
- EMPEROR stands at least 3 stops from the next EMPEROR, so a reel shows at most one.
- Line pays depend only on symbol frequencies; the tuner moves low symbols one at a time,
  always taking the move that brings the exact RTP closest to the target.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from slotforge.design.designers import SEAL_STACK  # noqa: E402
from slotforge.design.designers import dynasty_strips as strips  # noqa: E402
from slotforge.games import maths_of  # noqa: E402
from slotforge.games.dynasty.rules import Dynasty  # noqa: E402

MODEL = ROOT / "src/slotforge/games/dynasty/model.json"
TARGET = 0.95
TOLERANCE = 0.00002
LOW = ("ACE", "KING", "QUEEN", "JACK", "TEN", "NINE")

OUTER = {"EMPEROR": 1, "DRAGON": 3, "PHOENIX": 3, "TIGER": 4, "KOI": 4,
         "ACE": 5, "KING": 5, "QUEEN": 6, "JACK": 6, "TEN": 6, "NINE": 6}
INNER = {**OUTER, "EMPEROR": 2, "SEAL": 5}
FREE_OUTER = {**OUTER, "ACE": 6, "KING": 6, "QUEEN": 7, "JACK": 7, "TEN": 7, "NINE": 7}
FREE_INNER = {**FREE_OUTER, "EMPEROR": 2, "SEAL": 8}

START = {
    "base": [dict(OUTER), dict(INNER), dict(INNER), dict(INNER), dict(OUTER)],
    "free": [dict(FREE_OUTER), dict(FREE_INNER), dict(FREE_INNER), dict(FREE_INNER), dict(FREE_OUTER)],
}


def rtp(counts: dict[str, list[dict[str, int]]], raw: dict) -> float:
    raw = {**raw, "reels": strips(counts)}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(raw, handle)
    return maths_of(Dynasty(Path(handle.name))).rtp_report()["rtp"]


def tune(counts: dict[str, list[dict[str, int]]], raw: dict) -> dict[str, list[dict[str, int]]]:
    current = rtp(counts, raw)
    while abs(current - TARGET) > TOLERANCE:
        best = None
        for mode in counts:
            for reel in range(5):
                for code in LOW:
                    for step in (-1, 1):
                        trial = json.loads(json.dumps(counts))
                        trial[mode][reel][code] += step
                        if trial[mode][reel][code] < 1:
                            continue
                        value = rtp(trial, raw)
                        if best is None or abs(value - TARGET) < abs(best[0] - TARGET):
                            best = (value, trial)
        if abs(best[0] - TARGET) >= abs(current - TARGET):
            raise RuntimeError(f"stuck at {current:.6f}")
        current, counts = best
        print(f"rtp {current:.6f}", flush=True)
    return counts


def main() -> None:
    raw = json.loads(MODEL.read_text())
    counts = tune(START, raw)
    raw["reels"] = strips(counts)
    raw["design"] = {
        "method": "tools/design_dynasty.py: counts per reel, seeded layout, low symbols tuned to the exact RTP",
        "seal_stack": SEAL_STACK,
        "counts": counts,
    }
    MODEL.write_text(json.dumps(raw, indent=1) + "\n")
    print(f"wrote {MODEL} at RTP {rtp(counts, raw):.6f}")


if __name__ == "__main__":
    main()
