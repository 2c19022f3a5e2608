"""How Divine Fortune's reel strips and bonus weights were designed.

Run ``python tools/design_divine_fortune.py`` to lay the strips out again from the counts
below, measure the game with the RTP report (exact first spin and bonus game, simulated
re-spins and free spins), tune the BONUS value weights so that the total RTP is 96.59%, and
write the model file. The layout is seeded, so the same counts always give the same strips.

Design choices:
- One WILD per strip, so a reel shows at most one WILD per spin and Falling Wilds Re-Spins
  follow about one first spin in five (about 3 re-spins each).
- FREESPINS and BONUS stand at least 3 stops apart from their own kind (one per reel per
  spin). The "held" strips, used by a reel holding a Falling Wild in the main game, are the
  base strips without BONUS and FREESPINS: that is how they "cannot appear" on such a reel.
- Free spins carry a WILD a little more often: every WILD there is a Wild on Wild.
- The Jackpot Bonus game: 3 spins, an empty cell lands a BONUS with chance 1/16 per spin,
  values 10-200 coins per bet level. The value weights are the tuning knob: the bonus game
  is exact, so its share can be set to close the gap to the published RTP precisely.
- The Mega: drawn when the bonus game starts with a chance of 2e-5 per EUR of stake, so the
  Mega rate per EUR staked is (bonus frequency, about 1/110) x 2e-5, about 1.8e-7, and the
  Mega averages about 10,000 + 0.037 / 1.8e-7, a little over 200,000 EUR.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

MODEL = ROOT / "src/slotforge/games/divine_fortune/model.json"
TARGET = 0.9659
SPACED = ("WILD", "FREESPINS", "BONUS")
GAP = 3

PAYS = {
    "MEDUSA": {3: 25, 4: 100, 5: 400},
    "LION": {3: 20, 4: 75, 5: 250},
    "MINOTAUR": {3: 15, 4: 50, 5: 200},
    "EAGLE": {3: 12, 4: 40, 5: 150},
    "ACE": {3: 8, 4: 25, 5: 100},
    "KING": {3: 8, 4: 20, 5: 80},
    "QUEEN": {3: 5, 4: 15, 5: 60},
    "JACK": {3: 5, 4: 15, 5: 50},
    "TEN": {3: 4, 4: 10, 5: 40},
}
SYMBOLS = [
    ("WILD", "wild"),
    ("FREESPINS", "scatter"),
    ("BONUS", "bonus"),
    ("MEDUSA", "high"),
    ("LION", "high"),
    ("MINOTAUR", "high"),
    ("EAGLE", "high"),
    ("ACE", "low"),
    ("KING", "low"),
    ("QUEEN", "low"),
    ("JACK", "low"),
    ("TEN", "low"),
    ("BLANK", "special"),
]

HIGH, LOW = 6, 7
BASE = {
    "WILD": 1,
    "FREESPINS": 2,
    "BONUS": 1,
    "MEDUSA": HIGH,
    "LION": HIGH + 1,
    "MINOTAUR": HIGH + 2,
    "EAGLE": HIGH + 3,
    "ACE": LOW,
    "KING": LOW,
    "QUEEN": LOW,
    "JACK": LOW,
    "TEN": LOW,
}
FREESPINS_PER_REEL = (2, 2, 3, 2, 2)  # the middle reel carries one more: free spins about 1 in 100
FREE = {
    "WILD": 1,
    "MEDUSA": 5,
    "LION": 5,
    "MINOTAUR": 6,
    "EAGLE": 6,
    "ACE": 6,
    "KING": 6,
    "QUEEN": 6,
    "JACK": 6,
    "TEN": 6,
}
COUNTS = {"base": [dict(BASE, FREESPINS=n) for n in FREESPINS_PER_REEL], "free": [dict(FREE) for _ in range(5)]}

VALUES = [10, 20, 30, 40, 50, 75, 100, 150, 200]
WEIGHTS = [300, 260, 200, 150, 100, 60, 30, 12, 6]


def layout(counts: dict[str, int], seed: int) -> list[str]:
    """A strip with the given counts, WILD, FREESPINS and BONUS spread apart."""
    symbols = [code for code, n in counts.items() for _ in range(n)]
    chooser = random.Random(seed)
    for _ in range(200_000):
        chooser.shuffle(symbols)
        if _acceptable(symbols):
            return list(symbols)
    raise RuntimeError(f"no layout found for {counts}")


def _acceptable(strip: list[str]) -> bool:
    length = len(strip)
    for i, code in enumerate(strip):
        if code in SPACED and any(strip[(i + d) % length] == code for d in range(1, GAP)):
            return False
        if strip[i] == strip[(i + 1) % length] == strip[(i + 2) % length]:
            return False
    return True


def strips(counts: dict[str, list[dict[str, int]]]) -> dict[str, list[list[str]]]:
    base = [layout(c, seed=11 * reel + 1) for reel, c in enumerate(counts["base"])]
    held = [[code for code in strip if code not in ("FREESPINS", "BONUS")] for strip in base]
    free = [layout(c, seed=13 * reel + 5) for reel, c in enumerate(counts["free"])]
    return {"base": base, "held": held, "free": free}


def model(counts: dict, weights: list[int], report: dict | None = None) -> dict:
    return {
        "game": "divine-fortune",
        "name": "Divine Fortune",
        "version": "96.59",
        "rtp": "0.9659",
        "grid": {"reels": 5, "rows": 3},
        "paylines": "lines_20_5x3",
        "symbols": [{"code": code, "kind": kind} for code, kind in SYMBOLS],
        "wild": {"symbol": "WILD", "substitutes_except": ["FREESPINS", "BONUS"]},
        "line_pays": PAYS,
        "scatter_pays": {},
        "bet": {
            "bet_level": {"min": 1, "max": 10, "default": 1},
            "coin_values": {"values": ["0.01", "0.02", "0.05", "0.10", "0.20", "0.50"], "default": "0.01"},
        },
        "features": {
            "free_spins": {"trigger": 3, "awards": {"3": 5, "4": 8, "5": 12}},
            "bonus_game": {
                "trigger": 3,
                "spins": 3,
                "land_chance": [1, 16],
                "values": VALUES,
                "value_weights": weights,
                "minor_x_total_bet": 20,
                "major_x_total_bet": 100,
            },
            "mega": {"chance_per_eur": "0.00002", "contribution": "0.037", "reserve_share": "0.2", "seed_eur": "10000"},
        },
        "design": {
            "method": "tools/design_divine_fortune.py: counts per reel, seeded layout, held strips = base without "
            "BONUS and FREESPINS, BONUS value weights tuned to the RTP report",
            "counts": counts,
            **({"measured": report} if report else {}),
        },
        "reels": strips(counts),
    }


def measure(raw: dict, rounds: int, free_spins: int) -> dict:
    from slotforge.games.divine_fortune.maths import rtp_report
    from slotforge.games.divine_fortune.rules import DivineFortune

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(raw, handle)
    return rtp_report(DivineFortune(Path(handle.name)), rounds=rounds, free_spins=free_spins)


def mean_value(weights: list[int]) -> float:
    return sum(v * w for v, w in zip(VALUES, weights, strict=True)) / sum(weights)


def tune_weights(report: dict, weights: list[int]) -> list[int]:
    """Weights whose mean BONUS value closes the gap to the target.

    Only the bonus coins depend on the values, and linearly in their mean; the weights are
    scaled by 10 for resolution and the weight of the smallest value solves for the mean.
    """
    coins = report["parts"]["bonus_coins"]
    wanted = mean_value(weights) * (coins + TARGET - report["rtp"]) / coins
    scaled = [10 * w for w in weights]
    others = scaled[1:]
    top = sum(v * w for v, w in zip(VALUES[1:], others, strict=True)) - wanted * sum(others)
    smallest = round(top / (wanted - VALUES[0]))
    if smallest < 1:
        raise RuntimeError(f"a mean value of {wanted:.3f} needs other weights; change WEIGHTS")
    return [smallest, *others]


def main(rounds: int = 2_000_000_000, free_spins: int = 200_000_000) -> None:
    """One long measurement, then the weights solved for the target (the bonus game is exact)."""
    report = measure(model(COUNTS, WEIGHTS), rounds, free_spins)
    print(
        f"rtp {report['rtp']:.5f} +/-{report['ci99']:.5f}",
        {k: round(v, 5) for k, v in report["parts"].items()},
        flush=True,
    )
    weights = tune_weights(report, WEIGHTS)
    print(f"weights {weights}: mean value {mean_value(WEIGHTS):.4f} -> {mean_value(weights):.4f}", flush=True)
    raw = model(COUNTS, weights)
    MODEL.write_text(json.dumps(raw, indent=1) + "\n")
    print(f"wrote {MODEL}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
