"""Two Doors: a small test game for the engine's decisions, strategies and carried state.

A 5x3 line spin (A pays on lines; STAR and MOON are two scatters with pays of their own), then:

- carried state: a meter per bet level counts the rounds played at that level; every
  ``meter_every``-th round pays ``meter_pay`` units and empties it;
- decision ``door`` (options ``left``, ``right``): left pays ``left_pay`` units, right flips a
  fair coin (draw ``coin``) for ``right_pay`` units or nothing;
- decision ``double`` (options ``keep``, ``double``), offered on any win: double or nothing on a
  fair coin.

The two decisions' options overlap nowhere in their indexes with the game's list of all choice
names, so a record that labelled options by global ids would show the wrong names.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.bet import Bet, parse_int, reject_unknown
from slotforge.engine.evaluate import PayTable, ReelSet, compile_paytable, compile_reelset
from slotforge.engine.game import Decision, Game, Operator, RtpOptions
from slotforge.engine.jit import kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.model import IntRange, Strict
from slotforge.engine.outcomes import WAIT, decide, draw
from slotforge.engine.spin import enabled_lines, line_spin, make_scratch
from slotforge.maths import exact

STAKE_UNITS = 20
DOOR, DOUBLE = range(2)
LEFT, RIGHT = range(2)
KEEP, TWICE = range(2)
COIN = 0
P_EVERY, P_METER_PAY, P_LEFT_PAY, P_RIGHT_PAY = range(4)
S_METER = 0  # the carried state's one field
STRATEGIES = ("left_keep", "right_keep", "right_double")


class BetOptions(Strict):
    level: IntRange


class Features(Strict):
    meter_every: int
    meter_pay: int
    left_pay: int
    right_pay: int


class Tables(NamedTuple):
    pay: PayTable
    base: ReelSet
    params: np.ndarray


@kernel
def strategy(which, decision, offered, win):
    if decision == DOOR:
        return LEFT if which == 0 else RIGHT
    return TWICE if which == 2 else KEEP


@kernel
def play_round(tables, bet, state, outcomes, log, scratch, tally):
    params = tables.params
    win, _ = line_spin(tables.pay, tables.base, events.BASE, 0, 0, 0, enabled_lines(20), STAKE_UNITS, 1,
                       outcomes, log, scratch)
    state[S_METER] += 1
    if state[S_METER] == params[P_EVERY]:
        state[S_METER] = 0
        win += params[P_METER_PAY]
    door = decide(outcomes, log, DOOR, (1 << LEFT) | (1 << RIGHT), win, strategy)
    if door == WAIT:
        return events.AWAITING, win
    if door < 0:
        return events.REJECTED, win
    if door == LEFT:
        win += params[P_LEFT_PAY]
    elif draw(outcomes, COIN, 2) == 1:
        win += params[P_RIGHT_PAY]
    if win == 0:
        return events.COMPLETE, 0
    double = decide(outcomes, log, DOUBLE, (1 << KEEP) | (1 << TWICE), win, strategy)
    if double == WAIT:
        return events.AWAITING, win
    if double < 0:
        return events.REJECTED, win
    if double == TWICE:
        win = 2 * win if draw(outcomes, COIN, 2) == 1 else 0
    return events.COMPLETE, win


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


class TwoDoors(Game):
    code = "two-doors"
    model_file = Path(__file__).with_name("two_doors.json")
    draw_names = ("coin",)
    decisions = (Decision("door", ("left", "right")), Decision("double", ("keep", "double")))
    strategies = STRATEGIES
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

    def describe_draw(self, name: int, value: int) -> Any:
        return ("tails", "heads")[value]

    def feature_report(self, tally, rounds, bet):
        return {}

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """Exact: the spin, the meter's pay every n-th round, and the door the strategy opens
        (doubling is fair, so it changes nothing on average)."""
        f = self.features
        spin = exact.screen_maths(self.tables.pay, self.tables.base, len(self.spec.symbols))
        door = f.left_pay if self.strategy_index(options.strategy) == 0 else f.right_pay / 2
        parts = {
            "spin": spin.line_rtp + spin.scatter_rtp,
            "meter": f.meter_pay / f.meter_every / STAKE_UNITS,
            "door": door / STAKE_UNITS,
        }
        return {"game": self.code, "method": "exact", "rtp": sum(parts.values()), "parts": parts}
