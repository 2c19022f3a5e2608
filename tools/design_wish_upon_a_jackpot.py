"""How Wish Upon a Jackpot's model was designed: strips from symbol counts, the features'
tables, and two numbers tuned so that the exact RTP is 95.26% with the Deal Maker's best
strategy and 92.46% with its worst.

Run ``python tools/design_wish_upon_a_jackpot.py`` to write the model file again (the layout is
seeded, so the same choices give the same strips); ``--dry-run`` prints the figures only.

Design choices:
- BONUS stands on reels 1, 3 and 5, at least 3 stops from the next one, so a reel shows at
  most one; PRINCE likewise on reel 5 of the Rapunzel reels, so a spin climbs one level at most.
- The Deal Maker's spread is what the player's choices move: every offer draws from one list of
  multipliers, later offers leaning to larger ones. Its feature weight sets the distance between
  the best and the worst strategy (2.80 points); the chance that the Fairy Godmother's bonus
  follows her appearance then sets the level.
- The Fairy Godmother appears on 1 spin in 20, base and free alike; her bonus follows with the
  tuned chance, drawn then. The Gingerbread Man turns any of the five reels WILD.
- The Rapunzel reels are enriched: more WILDs and high symbols than the base reels, so a Rapunzel
  spin at x1 returns more than a base spin; the tower's ladder is kept modest so that the
  feature's value stays in line with the others.
- Both are tuned by the secant method on the exact RTP (``slotforge.games.wish_upon_a_jackpot.maths``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from slotforge.games.wish_upon_a_jackpot.maths import strategy_rtps  # noqa: E402
from slotforge.games.wish_upon_a_jackpot.rules import WishUponAJackpot  # noqa: E402

MODEL = ROOT / "src/slotforge/games/wish_upon_a_jackpot/model.json"
BEST, WORST = 0.9526, 0.9246
GODMOTHER_CHANCE = [1, 20]
BONUS_DEN = 1_000_000
FEATURE_TOTAL = 100_000

LOW = {"ACE": 5, "KING": 5, "QUEEN": 6, "JACK": 6, "TEN": 6}
HIGH = {"LOGO": 3, "HARP": 3, "PALACE": 4, "SLIPPER": 4}
BASE_INNER = {"WILD": 3, **HIGH, **LOW}
BASE_OUTER = {**BASE_INNER, "BONUS": 3}
BASE_MIDDLE = BASE_OUTER
PIGS = {"WILD": 1, **HIGH, **LOW, "QUEEN": 7, "JACK": 7, "TEN": 8}
RAPUNZEL = {"WILD": 3, "LOGO": 4, "HARP": 4, "PALACE": 5, "SLIPPER": 5, **LOW}
LADDER = [1, 2, 3, 4, 6, 10]
RAPUNZEL_LAST = {**RAPUNZEL, "PRINCE": 4}
COUNTS = {
    "base": [BASE_OUTER, BASE_INNER, BASE_MIDDLE, BASE_INNER, BASE_OUTER],
    "pigs": [PIGS] * 5,
    "rapunzel": [RAPUNZEL, RAPUNZEL, RAPUNZEL, RAPUNZEL, RAPUNZEL_LAST],
}
SPACED = ("BONUS", "PRINCE")

PAYS = {
    "WILD": {2: 5, 3: 50, 4: 200, 5: 500},
    "LOGO": {2: 2, 3: 25, 4: 100, 5: 400},
    "HARP": {3: 20, 4: 75, 5: 250},
    "PALACE": {3: 15, 4: 50, 5: 200},
    "SLIPPER": {3: 15, 4: 40, 5: 150},
    "ACE": {3: 10, 4: 25, 5: 100},
    "KING": {3: 10, 4: 20, 5: 80},
    "QUEEN": {3: 5, 4: 15, 5: 60},
    "JACK": {3: 5, 4: 15, 5: 50},
    "TEN": {3: 5, 4: 10, 5: 40},
}
KINDS = {
    "WILD": "wild",
    "BONUS": "scatter",
    "PRINCE": "scatter",
    "LOGO": "high",
    "HARP": "high",
    "PALACE": "high",
    "SLIPPER": "high",
    "ACE": "low",
    "KING": "low",
    "QUEEN": "low",
    "JACK": "low",
    "TEN": "low",
}

DEAL_VALUES = [1, 2, 3, 5, 8, 12, 20, 30, 50, 100]
DEAL_WEIGHTS = [
    [30, 25, 20, 15, 10, 8, 5, 3, 2, 1],
    [25, 22, 20, 16, 12, 9, 6, 4, 2, 1],
    [20, 20, 18, 16, 14, 10, 7, 5, 3, 1],
    [16, 18, 18, 16, 14, 12, 8, 6, 3, 2],
    [12, 15, 16, 16, 15, 13, 10, 7, 4, 2],
]


def layout(counts: dict[str, int], seed: int) -> list[str]:
    """A strip with the given counts, shuffled until BONUS/PRINCE stand 3 stops apart and no
    symbol shows three times in a row."""
    strip = [code for code, n in counts.items() for _ in range(n)]
    chooser = random.Random(seed)
    for _ in range(200_000):
        chooser.shuffle(strip)
        if _acceptable(strip):
            return list(strip)
    raise RuntimeError(f"no layout found for {counts}")


def _acceptable(strip: list[str]) -> bool:
    length = len(strip)
    for i, code in enumerate(strip):
        following = [strip[(i + k) % length] for k in (1, 2)]
        if code in SPACED and code in following:
            return False
        if following == [code, code]:
            return False
    return True


def model(deal_weight: int, bonus: int) -> dict:
    """The whole model file for two tuned numbers: the Deal Maker's feature weight and the
    chance (in BONUS_DEN) that the Fairy Godmother's bonus follows her appearance."""
    others = (FEATURE_TOTAL - deal_weight) // 3
    return {
        "game": "wish-upon-a-jackpot",
        "name": "Wish Upon a Jackpot",
        "version": "95.26",
        "rtp": "0.9526",
        "rtp_range": {"min": "0.9246", "max": "0.9526", "min_strategy": "worst", "max_strategy": "best"},
        "grid": {"reels": 5, "rows": 3},
        "paylines": "lines_20_5x3",
        "symbols": [
            {
                "code": code,
                "kind": kind,
                **({"reels": [1, 3, 5]} if code == "BONUS" else {}),
                **({"reels": [5]} if code == "PRINCE" else {}),
            }
            for code, kind in KINDS.items()
        ],
        "wild": {"symbol": "WILD", "substitutes_except": ["BONUS", "PRINCE"]},
        "line_pays": {code: {str(k): v for k, v in pays.items()} for code, pays in PAYS.items()},
        "reels": {
            mode: [layout(c, seed=11 * reel + len(mode)) for reel, c in enumerate(reels)]
            for mode, reels in COUNTS.items()
        },
        "bet": {
            "stakes": {
                "values": [
                    "0.20",
                    "0.40",
                    "1.00",
                    "2.00",
                    "5.00",
                    "10.00",
                    "20.00",
                    "50.00",
                    "100.00",
                    "200.00",
                    "500.00",
                ],
                "default": "1.00",
            },
        },
        "features": {
            "godmother": {
                "chance": GODMOTHER_CHANCE,
                "bonus_chance": [bonus, BONUS_DEN],
                "wishes": {"puss_in_boots": 50, "pinocchio": 30, "gingerbread_man": 20},
                "pinocchio_wilds": {"3": 50, "4": 30, "5": 15, "6": 5},
                "gingerbread_reels": [1, 2, 3, 4, 5],
            },
            "fairy_tale": {
                "features": {
                    "deal_maker": deal_weight,
                    "beanstalk": others,
                    "three_little_pigs": others,
                    "rapunzel": FEATURE_TOTAL - deal_weight - 2 * others,
                },
            },
            "deal_maker": {"values": DEAL_VALUES, "weights": DEAL_WEIGHTS},
            "beanstalk": {
                "trail": [10, 15, 20, 25, 30, 40, 50, 75],
                "grow": [[70, 30], [68, 32], [66, 34], [64, 36], [62, 38], [60, 40], [55, 45], [50, 50]],
                "eggs": {"values": [150, 250, 400, 800], "weights": [50, 30, 15, 5]},
            },
            "three_little_pigs": {
                "spins": 10,
                "events": {"none": 60, "pig_1": 18, "pig_2": 10, "pig_3": 5, "wolf": 7},
            },
            "rapunzel": {"multipliers": LADDER},
        },
        "design": {"tool": "tools/design_wish_upon_a_jackpot.py", "targets": {"best": BEST, "worst": WORST}},
    }


def figures(raw: dict) -> dict[str, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(raw, handle)
    return strategy_rtps(WishUponAJackpot(Path(handle.name)))


def tune() -> tuple[int, int, dict[str, float]]:
    """Deal weight for the gap, then the Fairy Godmother's bonus chance for the level, repeated,
    until both are within a millionth of their targets."""
    deal, godmother = 22_000, 150_000
    for _ in range(10):
        deal = secant(lambda d, g=godmother: gap(figures(model(d, g))), deal, int(deal * 1.1), BEST - WORST)
        godmother = secant(lambda g, d=deal: figures(model(d, g))["best"], godmother, int(godmother * 1.1), BEST)
        found = figures(model(deal, godmother))
        print(f"deal {deal} bonus {godmother}: {found}", flush=True)
        if abs(found["best"] - BEST) < 1e-6 and abs(found["worst"] - WORST) < 1e-6:
            break
    return deal, godmother, found


def gap(found: dict[str, float]) -> float:
    return found["best"] - found["worst"]


def secant(f, x0: int, x1: int, target: float) -> int:
    f0, f1 = f(x0) - target, f(x1) - target
    for _ in range(20):
        if f1 == f0:
            break
        x2 = round(x1 - f1 * (x1 - x0) / (f1 - f0))
        if x2 == x1:
            break
        x0, f0, x1, f1 = x1, f1, x2, f(x2) - target
    return x1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the figures, do not write the model")
    args = parser.parse_args()
    deal, godmother, found = tune()
    print(json.dumps(found, indent=1))
    if not args.dry_run:
        MODEL.write_text(json.dumps(model(deal, godmother), indent=1) + "\n")
        print(f"wrote {MODEL}")


if __name__ == "__main__":
    main()
