"""How Divine Fortune's reel strips and Jackpot Bonus game were designed.

Run ``python tools/design_divine_fortune.py [ROUNDS]`` to lay the strips out again from the
counts below, measure the main game with the RTP report (exact first spin, simulated re-spins,
free spins and BONUS collection), design the bonus game's cell reels and BONUS values for every
stake, and write the model file. The layout is seeded, so the same counts always give the same
strips.

Design choices:
- One WILD per strip, so a reel shows at most one WILD per spin and Falling Wilds Re-Spins
  follow about one first spin in five (about 3 re-spins each).
- FREESPINS and BONUS stand at least 3 stops apart from their own kind (one per reel per
  spin). The "held" strips, used by a reel holding a Falling Wild in the main game, are the
  base strips without BONUS and FREESPINS: that is how they "cannot appear" on such a reel.
- Free spins carry a WILD a little more often: every WILD there is a Wild on Wild.
- The Jackpot Bonus game: 3 spins; every one of the 15 cells is an independent reel that lands
  a BONUS with the same chance at every spin, so any cell can fill at any time and the Mega
  (the grid full) comes from the reels alone. The rules say the Mega's chance "correlates
  positively with the bet size": each stake has its own cell chance, solved so that the Mega's
  chance per bonus game is ``MEGA_PER_EUR`` x the stake (averaged over the BONUS a bonus game
  starts with). Its rate per EUR staked, and so the jackpot pool's share of RTP, is then the
  same at every stake; the Mega averages 10,000 EUR + 3.7% / that rate, about 210,000 EUR.
- A larger cell chance fills more cells and more rows (Minor, Major) too; the BONUS value
  weights of each stake are re-tuned (an exponential tilt of the values, solved for the mean
  value) so that the total RTP is 96.59% at every stake.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import numpy as np

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
MEGA_PER_EUR = 0.00002  # the Mega's chance per bonus game per EUR of stake
LAND_DEN = 1_000_000  # cell chances are num / LAND_DEN
WEIGHT_TOTAL = 1_000_000  # value weights per stake sum to about this
DESIGN_SEED = 7  # the RTP report checks the design with its own seed (2024)
BONUS = {"trigger": 3, "spins": 3, "minor_x_total_bet": 20, "major_x_total_bet": 100}
BET = {
    "bet_level": {"min": 1, "max": 10, "default": 1},
    "coin_values": {"values": ["0.01", "0.02", "0.05", "0.10", "0.20", "0.50"], "default": "0.01"},
}
# Before the design: every stake with one cell chance and flat weights (the main game's
# measurement does not depend on them).
PROVISIONAL = {"land_chance": [1, 30], "value_weights": [1] * len(VALUES)}


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


def stakes() -> list[Decimal]:
    """Every total bet the bet options offer (20 lines x bet level x coin value)."""
    levels = range(BET["bet_level"]["min"], BET["bet_level"]["max"] + 1)
    return sorted({20 * level * Decimal(value) for level in levels for value in BET["coin_values"]["values"]})


def model(counts: dict, by_stake: list[dict], design: dict | None = None) -> dict:
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
        "bet": BET,
        "features": {
            "free_spins": {"trigger": 3, "awards": {"3": 5, "4": 8, "5": 12}},
            "bonus_game": {**BONUS, "values": VALUES, "by_stake": by_stake},
            "mega": {"contribution": "0.037", "reserve_share": "0.2", "seed_eur": "10000"},
        },
        "design": {
            "method": "tools/design_divine_fortune.py: counts per reel, seeded layout, held strips = base without "
            "BONUS and FREESPINS; per stake, the bonus game's cell chance solved for a Mega chance of "
            f"{MEGA_PER_EUR} per EUR of stake per bonus game, and the BONUS value weights (an exponential tilt) "
            "solved for the published RTP",
            "mega_chance_per_bonus_game_per_eur": str(MEGA_PER_EUR),
            "counts": counts,
            **(design or {}),
        },
        "reels": strips(counts),
    }


def measure(raw: dict, rounds: int) -> dict:
    """The RTP report of a model (at the smallest stake), with the design's own seed."""
    from slotforge.engine.roles import RtpOptions
    from slotforge.games.divine_fortune.maths import rtp_report
    from slotforge.games.divine_fortune.rules import DivineFortune

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(raw, handle)
    return rtp_report(DivineFortune(Path(handle.name)), RtpOptions(rounds=rounds), seed=DESIGN_SEED)


def bonus_figures(land: float, chances: dict[int, float]) -> dict[str, float]:
    """Per round: expected cells, Minor and Major chances, and Mega chance, at a cell chance."""
    from slotforge.games.divine_fortune.maths import final_cells, full_row_chances

    ends = final_cells(land, BONUS["spins"], 15)
    rows = np.array([full_row_chances(f, 3, 5) for f in range(16)])
    figures = dict.fromkeys(("cells", "minor", "major", "mega"), 0.0)
    for n, p in chances.items():
        end = ends[n]
        by_rows = end @ rows
        figures["cells"] += p * float(end @ np.arange(16))
        figures["minor"] += p * by_rows[1]
        figures["major"] += p * by_rows[2]
        figures["mega"] += p * by_rows[3]
    return figures


def cell_chance(stake: Decimal, chances: dict[int, float]) -> int:
    """The numerator (over LAND_DEN) whose Mega chance per bonus game is MEGA_PER_EUR x stake."""
    games = sum(chances.values())
    wanted = MEGA_PER_EUR * float(stake)
    low, high = 1, LAND_DEN - 1
    while high - low > 1:
        middle = (low + high) // 2
        if bonus_figures(middle / LAND_DEN, chances)["mega"] / games < wanted:
            low = middle
        else:
            high = middle
    return high


def tilted_weights(mean: float) -> list[int]:
    """Integer weights w_i ~ exp(-t v_i) whose mean value is ``mean`` (t solved by bisection)."""
    values = np.array(VALUES, dtype=float)

    def weights(t: float) -> np.ndarray:
        raw = np.exp(-t * (values - values.mean()))
        return np.maximum(1, np.round(raw / raw.sum() * WEIGHT_TOTAL))

    low, high = -0.1, 0.5
    for _ in range(200):
        middle = (low + high) / 2
        w = weights(middle)
        if (w @ values) / w.sum() > mean:
            low = middle
        else:
            high = middle
    return [int(x) for x in weights((low + high) / 2)]


def design_stakes(report: dict) -> list[dict]:
    """Cell chance and value weights of every stake, for the total RTP target at each."""
    parts = report["parts"]
    chances = {int(n): p for n, p in report["bonus_collected"].items()}
    fixed = parts["base_game"] + parts["respins"] + parts["free_spins"] + parts["mega_contribution"]
    units = 20
    by_stake = []
    for stake in stakes():
        num = cell_chance(stake, chances)
        figures = bonus_figures(num / LAND_DEN, chances)
        seed_share = 10_000 * figures["mega"] / float(stake)
        bonus_share = TARGET - fixed - seed_share
        minor, major = figures["minor"] * BONUS["minor_x_total_bet"], figures["major"] * BONUS["major_x_total_bet"]
        jackpots = units * (minor + major)
        mean = (bonus_share * units - jackpots) / figures["cells"]
        weights = tilted_weights(mean)
        by_stake.append({"stake": format(stake, "f"), "land_chance": [num, LAND_DEN], "value_weights": weights})
        print(f"stake {stake}: cell chance 1/{LAND_DEN / num:.2f}, mean value {mean:.3f}", flush=True)
    return by_stake


def main(rounds: int = 400_000_000) -> None:
    """Measure the main game once, then design the bonus game of every stake (it is exact)."""
    provisional = [{"stake": format(s, "f"), **PROVISIONAL} for s in stakes()]
    report = measure(model(COUNTS, provisional), rounds)
    print(f"measured {report['simulation']['rounds']:,} rounds:",
          {k: round(v, 5) for k, v in report["parts"].items()}, flush=True)
    by_stake = design_stakes(report)
    measured = {
        "rounds": report["simulation"]["rounds"],
        "free_spins": report["simulation"]["free_spins"],
        "seed": DESIGN_SEED,
        "parts": {k: report["parts"][k] for k in ("base_game", "respins", "free_spins")},
        "bonus_collected": report["bonus_collected"],
    }
    MODEL.write_text(json.dumps(model(COUNTS, by_stake, {"measured": measured}), indent=1) + "\n")
    print(f"wrote {MODEL}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
