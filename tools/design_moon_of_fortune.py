"""How Moon of Fortune's weights were designed.

Run ``python tools/design_moon_of_fortune.py`` to write the model file from the choices below:
for every Chance Level and Volatility Level it solves the base game's bonus-symbol weight so
that the exact RTP (``slotforge.games.moon_of_fortune.maths``) is 94.18%, and prints each
configuration's figures. Everything is exact, so the same choices always give the same model.

Design choices:
- Every cell shares one weight table per mode, which is what makes the maths exact: the base
  game is a Markov chain over (stickies, CASH held) and the bonus game one over cells filled.
- Base game: the paying symbols lean heavily on the low ones, so that 10 of a kind is a regular
  small win; the bonus symbols (CASH, MYSTERY, RABBIT_MYSTERY in fixed proportions) share one
  weight, solved per configuration. A higher Chance Level only makes bonus symbols likelier,
  so the bonus game comes at least N times as often at xN as at x1 (checked below).
- Volatility Levels differ in the bonus game only: `low` fills often with small CASH and rare
  big prizes; `high` fills less often, with larger CASH, more MAJOR and more generous COLLECTOR
  multipliers; the base game's solved weight brings each back to 94.18%, so `high` starts the
  bonus game less often and pays more when it does.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from slotforge.games.moon_of_fortune.maths import base_chain  # noqa: E402
from slotforge.games.moon_of_fortune.rules import VOLATILITY_LEVELS, MoonOfFortune  # noqa: E402

MODEL = ROOT / "src/slotforge/games/moon_of_fortune/model.json"
TARGET = 0.9418
WEIGHT_TOTAL = 1_000_000  # every cell's weights are whole numbers out of this total
CHANCE_LEVELS = (1, 2, 4, 6)
BASE_BETS = ["0.10", "0.20", "0.50", "1.00", "2.00", "5.00", "10.00", "20.00", "50.00", "100.00"]

PAYTABLE = {
    "LANTERN": ["2", "3", "5", "10", "25", "75", "200"],
    "MOONCAKE": ["1.5", "2.5", "4", "8", "20", "50", "150"],
    "FAN": ["1", "2", "3", "6", "15", "40", "100"],
    "TEAPOT": ["1", "1.5", "2.5", "5", "12", "30", "75"],
    "ACE": ["0.5", "1", "2", "4", "8", "20", "50"],
    "KING": ["0.5", "1", "1.5", "3", "6", "15", "40"],
    "QUEEN": ["0.4", "0.8", "1.2", "2.5", "5", "12", "30"],
    "JACK": ["0.4", "0.6", "1", "2", "4", "10", "20"],
}
# Relative weights of the paying symbols and WILD in the base game.
PAYING = {"WILD": 25, "LANTERN": 3, "MOONCAKE": 3, "FAN": 4, "TEAPOT": 4, "ACE": 6, "KING": 8, "QUEEN": 12,
          "JACK": 35}
# How the base game's bonus weight splits between its bonus symbols.
BONUS_SPLIT = {"CASH": 80, "MYSTERY": 15, "RABBIT_MYSTERY": 5}
CASH_VALUES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15]

# Per Volatility Level: the bonus game's weights (BLANK = nothing lands) and values.
VOLATILITY = {
    "low": {
        "bonus": {"BLANK": 20000, "CASH": 800, "MYSTERY": 60, "RABBIT_MYSTERY": 10, "MINI": 60, "MINOR": 20,
                  "MAJOR": 1},
        "base_cash": [30, 26, 20, 14, 9, 6, 4, 3, 2, 1, 1, 1],
        "bonus_cash": [28, 25, 20, 14, 10, 7, 5, 3, 2, 1, 1, 1],
        "mystery": {"CASH": 85, "MINI": 8, "MINOR": 4, "MAJOR": 1, "COLLECTOR": 2},
        "rabbit_mystery": {"COLLECTOR": 15, "MINI": 60, "MINOR": 22, "MAJOR": 3},
        "collector_multipliers": [30, 25, 18, 12, 7, 4, 2, 1, 1, 1],
    },
    "standard": {
        "bonus": {"BLANK": 24000, "CASH": 800, "MYSTERY": 80, "RABBIT_MYSTERY": 20, "MINI": 50, "MINOR": 20,
                  "MAJOR": 3},
        "base_cash": [24, 22, 18, 14, 10, 7, 5, 4, 3, 2, 2, 1],
        "bonus_cash": [22, 20, 18, 14, 10, 8, 6, 4, 3, 2, 2, 1],
        "mystery": {"CASH": 80, "MINI": 9, "MINOR": 5, "MAJOR": 2, "COLLECTOR": 4},
        "rabbit_mystery": {"COLLECTOR": 25, "MINI": 45, "MINOR": 22, "MAJOR": 8},
        "collector_multipliers": [20, 18, 16, 13, 10, 8, 6, 4, 3, 2],
    },
    "high": {
        "bonus": {"BLANK": 22300, "CASH": 550, "MYSTERY": 100, "RABBIT_MYSTERY": 30, "MINI": 30, "MINOR": 20,
                  "MAJOR": 8},
        "base_cash": [16, 16, 15, 13, 11, 9, 7, 5, 4, 2, 1, 1],
        "bonus_cash": [14, 14, 14, 13, 11, 9, 8, 6, 5, 3, 2, 1],
        "mystery": {"CASH": 70, "MINI": 10, "MINOR": 8, "MAJOR": 5, "COLLECTOR": 7},
        "rabbit_mystery": {"COLLECTOR": 35, "MINI": 30, "MINOR": 20, "MAJOR": 15},
        "collector_multipliers": [10, 11, 12, 12, 12, 11, 10, 9, 7, 6],
    },
}


def base_weights(bonus_weight: int, cash_shift: int = 0) -> dict[str, int]:
    """A base cell's weights with ``bonus_weight`` of the total on the bonus symbols, CASH moved
    by ``cash_shift`` (the fine tuning: MYSTERY and RABBIT_MYSTERY weigh far more per unit)."""
    split = sum(BONUS_SPLIT.values())
    weights = {code: bonus_weight * share // split for code, share in BONUS_SPLIT.items()}
    weights["CASH"] += cash_shift
    paying_total = WEIGHT_TOTAL - sum(weights.values())
    shares = sum(PAYING.values())
    for code, share in PAYING.items():
        weights[code] = paying_total * share // shares
    weights["JACK"] += WEIGHT_TOTAL - sum(weights.values())  # rounding: the total stays exact
    return weights


def model(bonus_weights: dict[tuple[int, str], tuple[int, int]]) -> dict:
    """The model file for a (bonus weight, CASH shift) per configuration."""
    symbols = [{"code": c, "kind": "wild"} for c in ("WILD",)]
    symbols += [{"code": c, "kind": "high"} for c in ("LANTERN", "MOONCAKE", "FAN", "TEAPOT")]
    symbols += [{"code": c, "kind": "low"} for c in ("ACE", "KING", "QUEEN", "JACK")]
    symbols += [{"code": c, "kind": "bonus"} for c in ("CASH", "MINI", "MINOR", "MAJOR", "COLLECTOR")]
    symbols += [{"code": c, "kind": "mystery"} for c in ("MYSTERY", "RABBIT_MYSTERY")]
    symbols += [{"code": "BLANK", "kind": "special"}]
    cell_weights = {f"base_x{n}_{v}": [base_weights(*w)] for (n, v), w in bonus_weights.items()}
    for level in VOLATILITY_LEVELS:
        cell_weights[f"bonus_{level}"] = [{c: w for c, w in VOLATILITY[level]["bonus"].items() if w > 0}]
    return {
        "game": "moon-of-fortune",
        "name": "Moon of Fortune",
        "version": "94.18",
        "rtp": "0.9418",
        "grid": {"reels": 4, "rows": 4},
        "symbols": symbols,
        "wild": {"symbol": "WILD", "substitutes_except": ["CASH", "MINI", "MINOR", "MAJOR", "COLLECTOR", "MYSTERY",
                                                         "RABBIT_MYSTERY", "BLANK"], "needs_paying_symbol": True},
        "count_pays": {code: {str(10 + i): pay for i, pay in enumerate(pays)} for code, pays in PAYTABLE.items()},
        "count_rule": "highest",
        "pay_scale": 10,
        "cell_weights": cell_weights,
        "bet": {
            "bets": {"values": BASE_BETS, "default": "1.00"},
            "chance_levels": list(CHANCE_LEVELS),
            "default_chance_level": 1,
            "default_volatility": "standard",
        },
        "features": {
            "trigger": 6,
            "cash_held": [4, 5],
            "respins": 3,
            "cash_values": CASH_VALUES,
            "jackpots": {"MINI": 10, "MINOR": 25, "MAJOR": 150, "GRAND": 1500},
            "max_win": 1500,
            "volatility": {
                level: {
                    "base_cash_weights": v["base_cash"],
                    "bonus_cash_weights": v["bonus_cash"],
                    "mystery": v["mystery"],
                    "rabbit_mystery": v["rabbit_mystery"],
                    "collector_multipliers": v["collector_multipliers"],
                }
                for level, v in VOLATILITY.items()
            },
            "gamble": {"max_gambles": 7, "default_operator_cap": "7500.00"},
        },
        "design": {"tool": "tools/design_moon_of_fortune.py", "target_rtp": TARGET},
    }


def load(raw: dict) -> MoonOfFortune:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(raw, handle)
    return MoonOfFortune(Path(handle.name))


def rtp_of(weights: dict, config: tuple[int, str], choice: tuple[int, int]) -> float:
    return base_chain(load(model({**weights, config: choice})), *config).rtp


def solve(weights: dict[tuple[int, str], tuple[int, int]], config: tuple[int, str]) -> tuple[int, int]:
    """The (bonus weight, CASH shift) of ``config`` whose exact RTP is closest to the target:
    bisection on the bonus weight (the RTP rises with it), then on the CASH shift."""
    low, high = 1_000, 400_000
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if rtp_of(weights, config, (middle, 0)) < TARGET else (low, middle)
    shift_low, shift_high = -2_000, 2_000
    while shift_high - shift_low > 1:
        middle = (shift_low + shift_high) // 2
        below = rtp_of(weights, config, (low, middle)) < TARGET
        shift_low, shift_high = (middle, shift_high) if below else (shift_low, middle)
    return min(((low, shift_low), (low, shift_high)), key=lambda c: abs(rtp_of(weights, config, c) - TARGET))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the figures, do not write the model")
    args = parser.parse_args()
    configs = [(n, v) for n in CHANCE_LEVELS for v in VOLATILITY_LEVELS]
    weights = dict.fromkeys(configs, (60_000, 0))
    for config in configs:
        weights[config] = solve(weights, config)
    game = load(model(weights))
    triggers = {}
    for n, v in configs:
        chain = base_chain(game, n, v)
        triggers[n, v] = chain.trigger
        bonus_weight, cash_shift = weights[n, v]
        print(f"x{n} {v:8} bonus weight {bonus_weight:>7} {cash_shift:+5}  RTP {chain.rtp:.6f}  "
              f"bonus 1 in {1 / chain.trigger:7.1f}"
              f"  count wins {chain.parts['count_wins']:.4f}")
    for n, v in configs:
        if triggers[n, v] < n * triggers[1, v]:
            raise SystemExit(f"x{n} {v}: the bonus game comes less than {n} times as often as at x1")
    if not args.dry_run:
        MODEL.write_text(json.dumps(model(weights), indent=1) + "\n")
        print(f"wrote {MODEL.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
