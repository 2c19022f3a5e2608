"""Two Doors' rules: its model sections, tables, bets, carried state and draws."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine.bet import Bet, parse_int, reject_unknown
from slotforge.engine.evaluate import compile_paytable, compile_reelset
from slotforge.engine.game import Decision, Game, Operator, Presentation
from slotforge.engine.model import IntRange, Strict
from slotforge.engine.roles import Capabilities
from slotforge.engine.spin import make_scratch

from .kernels import S_METER, STAKE_UNITS, STRATEGIES, Tables, play_round, simulate_rounds  # noqa: F401  (exported)


class BetOptions(Strict):
    level: IntRange


class Features(Strict):
    meter_every: int
    meter_pay: int
    left_pay: int
    right_pay: int


class TwoDoorsPresentation(Presentation):
    """How Two Doors' rounds read in the record: the coin."""

    game: TwoDoors

    def describe_draw(self, name: int, value: int) -> Any:
        return ("tails", "heads")[value]


class TwoDoors(Game):
    code = "two-doors"
    presentation_class = TwoDoorsPresentation
    model_file = Path(__file__).with_name("model.json")
    draw_names = ("coin",)
    decisions = (Decision("door", ("left", "right")), Decision("double", ("keep", "double")))
    strategies = STRATEGIES
    capabilities = Capabilities(carries_state=True, rtp_follows_strategy=True)
    simulate_rounds = staticmethod(simulate_rounds)

    def compile(self) -> None:
        self.bet_options: BetOptions = self.section(BetOptions, "bet")
        self.features: Features = self.section(Features, "features")
        f = self.features
        pay = compile_paytable(self.spec)
        self.tables = Tables(pay, compile_reelset(self.spec, "base", pay),
                             np.array([f.meter_every, f.meter_pay, f.left_pay, f.right_pay], dtype=np.int64))

    def scratch(self):
        return make_scratch(3, 5, len(self.spec.symbols))

    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        raw = raw or {}
        reject_unknown(raw, {"level"})
        level = parse_int("level", raw.get("level"), self.bet_options.level)
        return Bet(fields={"level": level}, unit_coins=level, total_units=STAKE_UNITS, coin_value=Decimal(1), lines=20)

    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        return np.zeros(1, dtype=np.int64)

    def state_array(self, state: dict[str, Any], bet: Bet) -> np.ndarray:
        meters = state.get("meters", {})
        return np.array([meters.get(str(bet.fields["level"]), 0)], dtype=np.int64)

    def updated_state(self, state: dict[str, Any], bet: Bet, array: np.ndarray) -> dict[str, Any]:
        meters = {**state.get("meters", {}), str(bet.fields["level"]): int(array[S_METER])}
        return {"meters": meters}

    def parse_draw(self, name: str, raw: Any) -> int:
        return {"tails": 0, "heads": 1}[raw]
