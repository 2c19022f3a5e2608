"""Golden Grimoire: 5x4, 40 fixed lines, Mystery symbols that transform and fill rows toward
reel 1, and 8 free spins with Sticky Mystery symbols that stay until the free spins end.

Units: a win unit is one coin at bet level 1, so a line pays its paytable value in units and
``bet_level`` coins make one unit; the stake is 20 units (20 coins per level).

A spin lands a screen, turns every Mystery on it into one drawn symbol, fills rows toward reel
1 (see :func:`transform`) and only then pays its lines. The free-spins trigger is made by the
SCATTER symbols as they land (exactly one on each of reels 1, 3 and 5): SCATTER pays nothing,
and a fill that passes over a SCATTER changes it like any other symbol between.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from slotforge.engine import events
from slotforge.engine.bet import Bet, format_money, parse_choice, parse_int, reject_unknown
from slotforge.engine.evaluate import compile_paytable, compile_reelset
from slotforge.engine.game import Game, Operator, Presentation, ScriptError
from slotforge.engine.masks import compile_row_masks
from slotforge.engine.model import Choice, IntRange, ModelError, Strict, check_weights
from slotforge.games.golden_grimoire.kernels import (
    F_FREE_TOTAL,
    F_LANDED,
    F_MYSTERY,
    F_STICKY,
    FEATURE_FIELDS,
    POOL,
    TALLY,
    Tables,
    Work,
    cumulative,
    make_work,
    play_round,  # noqa: F401  (exported)
    simulate_rounds,
    wrapped_strips,
)


class BetOptions(Strict):
    bet_level: IntRange
    coins_per_level: int = Field(gt=0)
    coin_values: Choice


class FreeSpins(Strict):
    award: int = Field(gt=0)
    trigger_reels: list[int] = Field(min_length=1)


class MysteryRules(Strict):
    symbol: str
    reels: list[int] = Field(min_length=1)
    weights: dict[str, int]

    @field_validator("weights")
    @classmethod
    def _pool(cls, weights: dict[str, int]) -> dict[str, int]:
        if set(weights) != set(POOL):
            raise ValueError(
                f"a Mystery becomes WILD, a medium or a low symbol: expected a weight for each of "
                f"{list(POOL)}, got {sorted(weights)}"
            )
        return check_weights(weights)


class Features(Strict):
    free_spins: FreeSpins
    mystery: MysteryRules
    sticky_mystery: MysteryRules


def cells_of(mask: int, reels: int) -> list[dict[str, int]]:
    """A cell bitmask as 1-based rows and reels, top to bottom, left to right."""
    return [{"row": bit // reels + 1, "reel": bit % reels + 1} for bit in range(64) if (mask >> bit) & 1]


class GoldenGrimoirePresentation(Presentation):
    """How Golden Grimoire's rounds read in the record."""

    game: GoldenGrimoire

    def describe_draw(self, name: int, value: int) -> Any:
        return POOL[value]

    def describe_feature(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        rows, reels = self.game.grid
        (code, f), codes = events.feature_fields(row, FEATURE_FIELDS), self.game.codes
        if code == F_LANDED:
            cells = row[events.CELLS : events.CELLS + rows * reels].reshape(rows, reels)
            return {"type": "landed", "screen": [[codes[int(c)] for c in line] for line in cells]}
        if code == F_MYSTERY:
            return {
                "type": "sticky_mystery" if f["sticky"] else "mystery",
                "symbol": codes[f["symbol"]],
                "positions": cells_of(f["cells"], reels),
                "filled": cells_of(f["filled"], reels),
            }
        if code == F_STICKY:
            return {"type": "sticky_landed", "positions": cells_of(f["landed"], reels),
                    "held": cells_of(f["held"], reels)}
        if code == F_FREE_TOTAL:
            return {"type": "free_spins_total", "amount": format_money(bet.amount(f["units"]))}
        return super().describe_feature(row, bet)


class GoldenGrimoire(Game):
    code = "golden-grimoire"
    presentation_class = GoldenGrimoirePresentation
    model_file = Path(__file__).with_name("model.json")
    draw_names = ("mystery_symbol",)
    tally_names = TALLY
    simulate_rounds = staticmethod(simulate_rounds)

    def compile(self) -> None:
        self.bet_options: BetOptions = self.section(BetOptions, "bet")
        self.features: Features = self.section(Features, "features")
        self._check_model()
        spec, f = self.spec, self.features
        pay = compile_paytable(spec)
        base = compile_reelset(spec, "base", pay)
        self.tables = Tables(
            pay=pay,
            base=base,
            free=compile_reelset(spec, "free", pay),
            rows=compile_row_masks(pay, spec.grid.rows),
            base_cells=wrapped_strips(base, spec.grid.rows),
            pool=np.array([spec.symbol_id(code) for code in POOL], dtype=np.int64),
            base_weights=cumulative(f.mystery.weights),
            free_weights=cumulative(f.sticky_mystery.weights),
            params=np.array(
                [
                    f.free_spins.award,
                    spec.symbol_id(f.mystery.symbol),
                    spec.symbol_id(f.sticky_mystery.symbol),
                    spec.symbol_id(spec.wild.symbol),
                    spec.symbol_id("SCATTER"),
                    sum(1 << (reel - 1) for reel in f.free_spins.trigger_reels),
                ],
                dtype=np.int64,
            ),
        )

    def _check_model(self) -> None:
        """What the rules need of a model beyond the shared schema."""
        where = str(self.path)
        codes = set(self.spec.codes)
        for needed in (*POOL, "SCATTER", self.features.mystery.symbol, self.features.sticky_mystery.symbol):
            if needed not in codes:
                raise ModelError(f"{where}: symbols: Golden Grimoire needs the symbol {needed}")
        if not self.spec.wild or self.spec.wild.symbol != "WILD":
            raise ModelError(f"{where}: wild.symbol: expected 'WILD'")
        for mode in ("base", "free"):
            if mode not in self.spec.reels:
                raise ModelError(f"{where}: reels.{mode}: Golden Grimoire needs {mode} reel strips")
        if self.spec.grid.rows * self.spec.grid.reels > 62:
            raise ModelError(f"{where}: grid: at most 62 cells fit the cell bitmasks of the events")
        rules = (("base", self.features.mystery, {"WILD", self.features.sticky_mystery.symbol}),
                 ("free", self.features.sticky_mystery, {"WILD", "SCATTER", self.features.mystery.symbol}))
        for mode, mystery, never in rules:
            for index, strip in enumerate(self.spec.reels[mode], start=1):
                for code in set(strip) & never:
                    raise ModelError(f"{where}: reels.{mode}[{index}]: {code} never lands in the {mode} game")
                if mystery.symbol in strip and index not in mystery.reels:
                    raise ModelError(
                        f"{where}: reels.{mode}[{index}]: {mystery.symbol} only lands on reels {mystery.reels}"
                    )

    def scratch(self) -> Work:
        rows, reels = self.grid
        return make_work(rows, reels, len(self.spec.symbols))

    # -- bets -------------------------------------------------------------------------------
    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        raw = raw or {}
        reject_unknown(raw, {"bet_level", "coin_value"})
        options = self.bet_options
        level = parse_int("bet_level", raw.get("bet_level"), options.bet_level)
        coin_value = parse_choice("coin_value", raw.get("coin_value"), options.coin_values)
        return Bet(
            fields={"bet_level": level, "coin_value": coin_value},
            unit_coins=level,
            total_units=options.coins_per_level,
            coin_value=coin_value,
            lines=len(self.tables.pay.line_rows),
        )

    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        return np.array([bet.lines, bet.total_units], dtype=np.int64)

    # -- rounds -----------------------------------------------------------------------------
    def check_script(self, outcomes) -> None:
        """The first screen is the base game's, the others free spins': each within its strips."""
        screens, codes = outcomes.screens, self.codes
        for n, screen in enumerate(screens):
            mode = "base" if n == 0 else "free"
            for reel, strip in enumerate(self.spec.reels[mode]):
                carried = set(strip)
                for row in range(screen.shape[0]):
                    code = codes[int(screen[row, reel])]
                    if code not in carried:
                        raise ScriptError(
                            f"screens[{n}][{row}][{reel}]: reel {reel + 1} cannot carry {code} in the {mode} "
                            f"game; it carries {sorted(carried)}"
                        )

    def parse_draw(self, name: str, raw: Any) -> int:
        if name != "mystery_symbol":
            return super().parse_draw(name, raw)
        if raw not in POOL:
            raise ScriptError(f"draws.mystery_symbol: expected one of {list(POOL)}, got {raw!r}")
        return POOL.index(raw)
