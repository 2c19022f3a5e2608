"""Dynasty: 5x3, 20 selectable lines, stacked SEAL wilds, EMPEROR scatters, free spins with
doubled wins and unlimited retriggers, and a card gamble.

Units: a win unit is one coin at one coin per line; a bet of ``lines`` lines stakes ``lines``
units, and ``coins_per_line`` coins make one unit.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from pydantic import Field

from slotforge.engine import events, gamble
from slotforge.engine.bet import Bet, parse_choice, parse_int, reject_unknown
from slotforge.engine.evaluate import PayTable, ReelSet, compile_paytable, compile_reelset
from slotforge.engine.game import Decision, Game, Operator, RtpOptions, ScriptError
from slotforge.engine.jit import kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.model import Choice, IntRange, ModelError, Strict
from slotforge.engine.spin import Scratch, enabled_lines, line_spin, make_scratch
from slotforge.maths import exact


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


class Tables(NamedTuple):
    pay: PayTable
    base: ReelSet
    free: ReelSet
    params: np.ndarray  # int64: see the P_* indexes


P_AWARD, P_TRIGGER, P_MULTIPLIER, P_RETRIGGER, P_MAX_GAMBLES = range(5)
# Bet arguments of the round function.
B_LINES, B_TOTAL_UNITS, B_GAMBLE_LIMIT = range(3)
# What the simulator tallies.
TALLY = ("base_win", "free_win", "free_spins_triggered", "free_spins_played", "retriggers")
T_BASE_WIN, T_FREE_WIN, T_TRIGGERED, T_PLAYED, T_RETRIGGERS = range(5)
DECISION_GAMBLE = 0
DRAW_CARD = 0
MODE_BASE, MODE_FREE = 0, 1


@kernel
def play_round(tables, bet, state, outcomes, log, scratch, tally):
    """One complete Dynasty round; returns (status, win units)."""
    params = tables.params
    enabled = enabled_lines(bet[B_LINES])
    total_units = bet[B_TOTAL_UNITS]
    win, scatters = line_spin(
        tables.pay, tables.base, events.BASE, MODE_BASE, 0, 0, enabled, total_units, 1, outcomes, log, scratch
    )
    tally[T_BASE_WIN] += win
    left = 0
    if scatters >= params[P_TRIGGER]:
        left = params[P_AWARD]
        tally[T_TRIGGERED] += 1
        events.emit(log, events.FREE_SPINS, left, left, 0)
    played = 0
    while left > 0:
        left -= 1
        played += 1
        spin_win, scatters = line_spin(
            tables.pay, tables.free, events.FREE, MODE_FREE, played, left,
            enabled, total_units, params[P_MULTIPLIER], outcomes, log, scratch,
        )
        win += spin_win
        tally[T_FREE_WIN] += spin_win
        if scatters >= params[P_TRIGGER]:
            left += params[P_RETRIGGER]
            tally[T_RETRIGGERS] += 1
            events.emit(log, events.FREE_SPINS, params[P_RETRIGGER], left, 1)
    tally[T_PLAYED] += played
    return gamble.card_gamble(
        outcomes, log, win, bet[B_GAMBLE_LIMIT], params[P_MAX_GAMBLES], DECISION_GAMBLE, DRAW_CARD
    )


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """The simulator's loop compiled around this game's round."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


class Dynasty(Game):
    code = "dynasty"
    model_file = Path(__file__).with_name("model.json")
    draw_names = ("card",)
    decisions = (Decision("gamble", gamble.CHOICE_NAMES),)
    strategies = gamble.CARD_STRATEGIES
    rtp_uses_strategy = True
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

    def describe_draw(self, name: int, value: int) -> Any:
        return gamble.CARD_NAMES[value]

    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
        stake = rounds * bet.total_units
        triggered = tally["free_spins_triggered"]
        return {
            "base_game": {"rtp": tally["base_win"] / stake},
            "free_spins": {
                "rtp": tally["free_win"] / stake,
                "frequency": triggered / rounds,
                "one_in": rounds / triggered if triggered else None,
                "triggered": triggered,
                "spins_played": tally["free_spins_played"],
                "spins_per_trigger": tally["free_spins_played"] / triggered if triggered else None,
                "retriggers": tally["retriggers"],
            },
        }

    # -- maths ------------------------------------------------------------------------------
    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """The RTP by combinatorics (base game) and closed form (retriggering free spins).

        It is the same at every bet: reels are independent with uniform stops, so every payline
        has the same expected win, and scatters pay on the total bet. ``options.bet`` is checked
        and named in the report; nothing is simulated. Every gamble strategy has this RTP: the
        card gamble pays exactly what it stakes on average.
        """
        bet = self.parse_bet(options.bet)
        strategy = self.strategies[self.strategy_index(options.strategy)]
        symbols = len(self.spec.symbols)
        fs = self.features.free_spins
        base = exact.screen_maths(self.tables.pay, self.tables.base, symbols)
        free = exact.screen_maths(self.tables.pay, self.tables.free, symbols)
        trigger = base.at_least(fs.trigger)
        retrigger = free.at_least(fs.trigger)
        spins = exact.retrigger_spins(fs.award, retrigger, fs.retrigger)
        free_spin_rtp = fs.multiplier * (free.line_rtp + free.scatter_rtp)
        parts = {
            "base_lines": base.line_rtp,
            "base_scatter": base.scatter_rtp,
            "free_spins": trigger * spins * free_spin_rtp,
        }
        return {
            "game": self.code,
            "model": self.model_id,
            "method": "exact",
            "bet": bet.as_json(),
            "strategy": strategy,
            "rtp": sum(parts.values()),
            "parts": parts,
            "published_rtp": float(self.spec.rtp),
            "gamble": "a fair gamble: every strategy returns what it stakes, so the RTP is the same for all",
            "free_spins_frequency": trigger,
            "free_spins_per_trigger": spins,
            "retrigger_chance_per_free_spin": retrigger,
            "free_spin_rtp_per_spin": free_spin_rtp,
        }
