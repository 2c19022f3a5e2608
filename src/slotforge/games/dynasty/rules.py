"""Dynasty: 5x3, 20 selectable lines, stacked SEAL wilds, EMPEROR scatters, free spins with
doubled wins and unlimited retriggers, and a card gamble.

The rules: the model's sections, the compiled tables, bets and scripted draws. The round itself
is in :mod:`.kernels`, the RTP report in :mod:`.maths`.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from slotforge.engine import gamble
from slotforge.engine.bet import Bet, parse_choice, parse_int, reject_unknown
from slotforge.engine.evaluate import compile_paytable, compile_reelset
from slotforge.engine.game import Decision, Game, Operator, Presentation, ScriptError
from slotforge.engine.model import Choice, IntRange, ModelError, Strict
from slotforge.engine.roles import Capabilities
from slotforge.engine.spin import Scratch, make_scratch
from slotforge.games.dynasty.kernels import TALLY, Tables, play_round, simulate_rounds  # noqa: F401  (exported)


class BetOptions(Strict):
    lines: IntRange
    coins_per_line: IntRange
    coin_values: Choice


class FreeSpins(Strict):
    award: int = Field(gt=0)
    trigger: int = Field(gt=0)
    multiplier: int = Field(gt=0)
    retrigger: int = Field(ge=0)


class GambleRules(Strict):
    max_gambles: int = Field(ge=0)
    default_amount_limit: Decimal


class Features(Strict):
    free_spins: FreeSpins
    gamble: GambleRules


class DynastyPresentation(Presentation):
    """How Dynasty's rounds read in the record: the gamble's cards."""

    game: Dynasty

    def describe_draw(self, name: int, value: int) -> Any:
        return gamble.CARD_NAMES[value]


class Dynasty(Game):
    code = "dynasty"
    presentation_class = DynastyPresentation
    model_file = Path(__file__).with_name("model.json")
    draw_names = ("card",)
    decisions = (Decision("gamble", gamble.CHOICE_NAMES),)
    strategies = gamble.CARD_STRATEGIES
    capabilities = Capabilities(rtp_follows_strategy=True)
    tally_names = TALLY
    simulate_rounds = staticmethod(simulate_rounds)

    def compile(self) -> None:
        self.bet_options: BetOptions = self.section(BetOptions, "bet")
        self.features: Features = self.section(Features, "features")
        fs = self.features.free_spins
        pay = compile_paytable(self.spec)
        for mode in ("base", "free"):
            if mode not in self.spec.reels:
                raise ModelError(f"{self.path}: reels.{mode}: Dynasty needs {mode} reel strips")
        lines = self.bet_options.lines
        if not 1 <= lines.min <= lines.max <= self.spec.line_count:
            raise ModelError(
                f"{self.path}: bet.lines: the player may choose 1 to {self.spec.line_count} lines of "
                f"{self.spec.paylines}; got {lines.min} to {lines.max}"
            )
        self.tables = Tables(
            pay=pay,
            base=compile_reelset(self.spec, "base", pay),
            free=compile_reelset(self.spec, "free", pay),
            params=np.array(
                [fs.award, fs.trigger, fs.multiplier, fs.retrigger, self.features.gamble.max_gambles], dtype=np.int64
            ),
        )

    def scratch(self) -> Scratch:
        rows, reels = self.grid
        return make_scratch(rows, reels, len(self.spec.symbols))

    # -- bets -------------------------------------------------------------------------------
    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        raw = raw or {}
        reject_unknown(raw, {"lines", "coins_per_line", "coin_value"})
        options = self.bet_options
        lines = parse_int("lines", raw.get("lines"), options.lines)
        coins = parse_int("coins_per_line", raw.get("coins_per_line"), options.coins_per_line)
        coin_value = parse_choice("coin_value", raw.get("coin_value"), options.coin_values)
        return Bet(
            fields={"lines": lines, "coins_per_line": coins, "coin_value": coin_value},
            unit_coins=coins,
            total_units=lines,
            coin_value=coin_value,
            lines=lines,
        )

    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        """The round function's bet array: the lines, the stake and the gamble limit in units
        (the operator's limit, else the model's default)."""
        amount = operator.gamble_limit
        if amount is None:
            amount = self.features.gamble.default_amount_limit
        limit = int(amount // (bet.unit_coins * bet.coin_value))
        return np.array([bet.lines, bet.total_units, limit], dtype=np.int64)

    def parse_draw(self, name: str, raw: Any) -> int:
        if name == "card":
            if raw not in gamble.CARD_NAMES:
                raise ScriptError(f"draws.card: expected one of {list(gamble.CARD_NAMES)}, got {raw!r}")
            return gamble.CARD_NAMES.index(raw)
        return super().parse_draw(name, raw)
