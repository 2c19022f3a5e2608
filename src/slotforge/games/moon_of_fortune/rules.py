"""Moon of Fortune: sixteen independent one-cell reels on a 4x4 grid paying 10 or more of a kind
anywhere (only the highest win), CASH held for a spin, Sticky to Infinity mysteries carried from
round to round per bet configuration, the Hold the Jackpot bonus game, Chance and Volatility
Levels, and a pick-one-of-two gamble.

The compiled round is in :mod:`.kernels`; this module is the game's Python face: the model's
sections, bets, the carried state, scripts and the round record's game-specific events. The
maths is in :mod:`.maths`.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, model_validator

from slotforge.engine import events, gamble
from slotforge.engine.bet import Bet, BetError, format_money, parse_choice, reject_unknown
from slotforge.engine.evaluate import compile_cells, compile_count_table
from slotforge.engine.game import Decision, GambleCapError, Game, Operator, Presentation, ScriptError
from slotforge.engine.model import Choice, ModelError, Strict
from slotforge.engine.roles import Capabilities
from slotforge.engine.spin import REFUSAL_FIELDS
from slotforge.games.moon_of_fortune import kernels as k
from slotforge.games.moon_of_fortune.kernels import play_round, simulate_rounds  # noqa: F401  (exported)

UNITS_PER_BET = 10  # a win unit is a tenth of the base bet: 0.4x is 4 units
VOLATILITY_LEVELS = ("low", "standard", "high")
HELD_SYMBOLS = ("MYSTERY", "RABBIT_MYSTERY", "CASH")


class BetOptions(Strict):
    bets: Choice = Field(description="base bet options (currency)")
    chance_levels: list[int] = Field(min_length=1)
    default_chance_level: int
    default_volatility: str

    @model_validator(mode="after")
    def _defaults(self) -> BetOptions:
        if self.default_chance_level not in self.chance_levels:
            raise ValueError(f"default_chance_level: expected one of {self.chance_levels}")
        if self.default_volatility not in VOLATILITY_LEVELS:
            raise ValueError(f"default_volatility: expected one of {list(VOLATILITY_LEVELS)}")
        return self


def _positive_total(name: str, weights: list[int] | dict[Any, int]) -> None:
    values = list(weights.values()) if isinstance(weights, dict) else list(weights)
    if any(w < 0 for w in values) or sum(values) <= 0:
        raise ValueError(f"{name}: expected whole numbers >= 0 with a positive total")


class VolatilityLevel(Strict):
    """What a Volatility Level changes besides the reels' weights: values and reveals."""

    base_cash_weights: list[int] = Field(description="weights of the CASH values in the base game")
    bonus_cash_weights: list[int] = Field(description="weights of the CASH values in the bonus game")
    mystery: dict[str, int] = Field(description="what a MYSTERY becomes: CASH, MINI, MINOR, MAJOR, COLLECTOR")
    rabbit_mystery: dict[str, int] = Field(description="what a RABBIT_MYSTERY becomes: COLLECTOR, MINI, MINOR, MAJOR")
    collector_multipliers: list[int] = Field(min_length=10, max_length=10, description="weights of 1..10")

    @model_validator(mode="after")
    def _weights(self) -> VolatilityLevel:
        if set(self.mystery) != set(k.MYSTERY_OUTCOMES):
            raise ValueError(f"mystery: expected a weight for each of {list(k.MYSTERY_OUTCOMES)}")
        if set(self.rabbit_mystery) != set(k.RABBIT_OUTCOMES):
            raise ValueError(f"rabbit_mystery: expected a weight for each of {list(k.RABBIT_OUTCOMES)}")
        for name in ("base_cash_weights", "bonus_cash_weights", "mystery", "rabbit_mystery", "collector_multipliers"):
            _positive_total(name, getattr(self, name))
        return self


class GambleRules(Strict):
    max_gambles: int = Field(ge=0)
    default_operator_cap: Decimal = Field(gt=0, description="the published cap on a doubled win, in cap_currency")
    cap_currency: str = Field("GBP", pattern=r"^[A-Z]{3}$", description="the currency the published cap is in")


class Features(Strict):
    trigger: int = Field(gt=0, description="bonus symbols on a base screen that start Hold the Jackpot")
    cash_held: tuple[int, int] = Field(description="freshly landed CASH counts (from, to) held for one spin")
    respins: int = Field(gt=0)
    cash_values: list[int] = Field(min_length=1, description="CASH values, x base bet")
    jackpots: dict[str, int] = Field(description="MINI, MINOR, MAJOR and GRAND, x base bet")
    max_win: int = Field(gt=0, description="the most a round pays, x base bet")
    volatility: dict[str, VolatilityLevel]
    gamble: GambleRules

    @model_validator(mode="after")
    def _complete(self) -> Features:
        if set(self.jackpots) != {"MINI", "MINOR", "MAJOR", "GRAND"}:
            raise ValueError("jackpots: expected MINI, MINOR, MAJOR and GRAND")
        if set(self.volatility) != set(VOLATILITY_LEVELS):
            raise ValueError(f"volatility: expected the levels {list(VOLATILITY_LEVELS)}")
        for name, level in self.volatility.items():
            for field in ("base_cash_weights", "bonus_cash_weights"):
                if len(getattr(level, field)) != len(self.cash_values):
                    raise ValueError(f"volatility.{name}.{field}: expected one weight per CASH value")
        return self


def base_mode(chance_level: int, volatility: str) -> str:
    """The cell-weights mode of the base game at a configuration."""
    return f"base_x{chance_level}_{volatility}"


def bonus_mode(volatility: str) -> str:
    return f"bonus_{volatility}"


def cumulative(weights) -> np.ndarray:
    return np.cumsum(np.array(list(weights), dtype=np.int64))


class MoonOfFortunePresentation(Presentation):
    """How Moon of Fortune's rounds read in the record, and its strategies."""

    game: MoonOfFortune

    def describe_strategy(self, name: str) -> str:
        return {"collect": "always take the win", "always_sun": "pick SUN whenever a gamble is offered"}[name]

    def describe_draw(self, name: int, value: int) -> Any:
        return gamble.PICK_SYMBOLS[value] if name == k.DRAW_GAMBLE else value

    def describe_feature(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        code, f = events.feature_fields(row, k.FEATURE_FIELDS)
        money = lambda units: format_money(bet.amount(units))  # noqa: E731
        if code == k.F_CASH:
            return {"type": "cash", "cell": f["cell"], "value": money(f["value"])}
        if code == k.F_STICKY:
            return {"type": "sticky", "cell": f["cell"], "symbol": self.game.codes[f["symbol"]],
                    "until": "bonus_game_end"}
        if code == k.F_CASH_HELD:
            return {"type": "cash_held", "count": f["count"], "spins": 1}
        if code == k.F_TRIGGER:
            return {"type": "hold_the_jackpot", "bonus_symbols": f["bonus_symbols"]}
        if code == k.F_RESPINS:
            return {"type": "respins", "left": f["left"], "filled": f["filled"]}
        if code == k.F_REVEAL:
            codes = self.game.codes
            becomes = codes[f["revealed"]]
            reveal = {"type": "mystery_open", "cell": f["cell"], "symbol": codes[f["mystery"]], "becomes": becomes}
            if becomes == "CASH":
                reveal["value"] = money(f["value"])
            return reveal
        if code == k.F_COLLECTOR:
            return {"type": "collector", "cell": f["cell"], "cash": money(f["cash"]), "multiplier": f["multiplier"],
                    "value": money(f["value"])}
        if code == k.F_CAPPED:
            return {"type": "max_win", "won": money(f["won"]), "paid": money(f["paid"])}
        return super().describe_feature(row, bet)

    def describe_win(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        kind, count, units = events.fields(row).values()
        symbol = ("CASH", "COLLECTOR", "MINI", "MINOR", "MAJOR", "GRAND")[kind]
        win = {"kind": "bonus" if kind <= k.W_COLLECTOR else "jackpot", "symbol": symbol, "count": count,
               "amount": format_money(bet.amount(units))}
        if kind > k.W_COLLECTOR:
            win["jackpot"] = symbol
        return win


class MoonOfFortune(Game):
    code = "moon-of-fortune"
    presentation_class = MoonOfFortunePresentation
    model_file = Path(__file__).with_name("model.json")
    draw_names = ("cash_value", "mystery", "rabbit_mystery", "collector_multiplier", "gamble")
    decisions = (Decision("gamble", gamble.PICK_NAMES),)
    strategies = gamble.PICK_STRATEGIES
    capabilities = Capabilities(carries_state=True, rtp_follows_strategy=True)
    tally_names = k.TALLY
    simulate_rounds = staticmethod(simulate_rounds)

    # -- model ------------------------------------------------------------------------------
    def compile(self) -> None:
        self.bet_options: BetOptions = self.section(BetOptions, "bet")
        self.features: Features = self.section(Features, "features")
        spec, features = self.spec, self.features
        if (spec.grid.rows, spec.grid.reels) != (4, 4) or spec.count_rule != "highest":
            raise ModelError(f"{self.path}: grid: Moon of Fortune is a 4x4 grid paying only the highest count win")
        if spec.pay_scale != UNITS_PER_BET:
            raise ModelError(f"{self.path}: pay_scale: expected {UNITS_PER_BET} (a unit is a tenth of the base bet)")
        self.configurations = [(n, v) for n in self.bet_options.chance_levels for v in VOLATILITY_LEVELS]
        modes = [base_mode(n, v) for n, v in self.configurations] + [bonus_mode(v) for v in VOLATILITY_LEVELS]
        for mode in modes:
            if mode not in spec.cell_weights:
                raise ModelError(f"{self.path}: cell_weights.{mode}: Moon of Fortune needs weights for {mode}")
        ids = {code: spec.symbol_id(code) for code in spec.codes}
        levels = [features.volatility[v] for v in VOLATILITY_LEVELS]
        self.tables = k.Tables(
            count=compile_count_table(spec),
            base=tuple(compile_cells(spec, base_mode(n, v)) for n, v in self.configurations),
            bonus=tuple(compile_cells(spec, bonus_mode(v)) for v in VOLATILITY_LEVELS),
            cash_values=np.array(features.cash_values, dtype=np.int64) * UNITS_PER_BET,
            base_cash=np.array([cumulative(lv.base_cash_weights) for lv in levels]),
            bonus_cash=np.array([cumulative(lv.bonus_cash_weights) for lv in levels]),
            mystery=np.array([cumulative(lv.mystery[o] for o in k.MYSTERY_OUTCOMES) for lv in levels]),
            rabbit=np.array([cumulative(lv.rabbit_mystery[o] for o in k.RABBIT_OUTCOMES) for lv in levels]),
            multipliers=np.array([cumulative(lv.collector_multipliers) for lv in levels]),
            mystery_symbols=np.array([ids[o] for o in k.MYSTERY_OUTCOMES], dtype=np.int64),
            rabbit_symbols=np.array([ids[o] for o in k.RABBIT_OUTCOMES], dtype=np.int64),
            base_symbols=self._may_land([base_mode(n, v) for n, v in self.configurations]),
            bonus_symbols=self._may_land([bonus_mode(v) for v in VOLATILITY_LEVELS]),
            params=self._params(ids),
        )

    def _may_land(self, modes: list[str]) -> np.ndarray:
        allowed = np.zeros(len(self.spec.symbols), dtype=np.bool_)
        for mode in modes:
            for weights in self.spec.cell_weights[mode]:
                for code in weights:
                    allowed[self.spec.symbol_id(code)] = True
        return allowed

    def _params(self, ids: dict[str, int]) -> np.ndarray:
        features = self.features
        params = np.zeros(k.P_LAST, dtype=np.int64)
        for index, code in ((k.P_WILD, "WILD"), (k.P_CASH, "CASH"), (k.P_MYSTERY, "MYSTERY"),
                            (k.P_RABBIT, "RABBIT_MYSTERY"), (k.P_MINI, "MINI"), (k.P_MINOR, "MINOR"),
                            (k.P_MAJOR, "MAJOR"), (k.P_COLLECTOR, "COLLECTOR"), (k.P_BLANK, "BLANK")):
            params[index] = ids[code]
        params[k.P_TRIGGER] = features.trigger
        params[k.P_HOLD_MIN], params[k.P_HOLD_MAX] = features.cash_held
        params[k.P_RESPINS] = features.respins
        for index, name in ((k.P_MINI_UNITS, "MINI"), (k.P_MINOR_UNITS, "MINOR"), (k.P_MAJOR_UNITS, "MAJOR"),
                            (k.P_GRAND_UNITS, "GRAND")):
            params[index] = features.jackpots[name] * UNITS_PER_BET
        params[k.P_MAX_GAMBLES] = features.gamble.max_gambles
        return params

    def scratch(self) -> k.Work:
        return k.make_work(len(self.spec.symbols))

    # -- bets -------------------------------------------------------------------------------
    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        raw = raw or {}
        reject_unknown(raw, {"bet", "chance_level", "volatility"})
        options = self.bet_options
        base = parse_choice("bet", raw.get("bet"), options.bets)
        chance = raw.get("chance_level", options.default_chance_level)
        if isinstance(chance, bool) or chance not in options.chance_levels:
            allowed = ", ".join(str(n) for n in options.chance_levels)
            raise BetError(f"bet.chance_level: expected one of {allowed}, got {chance!r}")
        volatility = raw.get("volatility", options.default_volatility)
        if volatility not in VOLATILITY_LEVELS:
            raise BetError(f"bet.volatility: expected one of {', '.join(VOLATILITY_LEVELS)}, got {volatility!r}")
        return Bet(
            fields={"bet": base, "chance_level": chance, "volatility": volatility},
            unit_coins=1,
            total_units=UNITS_PER_BET * chance,
            coin_value=base / UNITS_PER_BET,
            lines=0,
        )

    def configuration(self, bet: Bet) -> int:
        """The index of a bet's (Chance Level, Volatility Level) among the compiled ones."""
        return self.configurations.index((bet.fields["chance_level"], bet.fields["volatility"]))

    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        """The round function's bet array: the configuration, the stake, the most a round pays
        and the operator's cap on a doubled win, in units."""
        arguments = np.zeros(k.BET_ARGUMENTS, dtype=np.int64)
        arguments[k.B_CONFIG] = self.configuration(bet)
        arguments[k.B_VOLATILITY] = VOLATILITY_LEVELS.index(bet.fields["volatility"])
        arguments[k.B_STAKE_UNITS] = bet.total_units
        arguments[k.B_MAX_WIN] = self.features.max_win * UNITS_PER_BET
        arguments[k.B_GAMBLE_LIMIT] = int(self.operator_cap(operator) // bet.coin_value)
        return arguments

    def operator_cap(self, operator: Operator) -> Decimal:
        """The operator's cap on a doubled win: its own setting (the server's, already holding the
        published cap converted into the bet's currency: :meth:`gamble_cap`), else the model's
        default."""
        cap = operator.gamble_limit
        return cap if cap is not None else self.features.gamble.default_operator_cap

    def gamble_cap(self, currency: str, rate_of: Callable[[str], Decimal | None]) -> Decimal | None:
        """The published cap on a doubled win ("must not exceed GBP 7,500") in ``currency``,
        converted at the operator's rates (``rate_of``: EUR per unit of a currency, as the jackpot
        pools use) and rounded down to the cent so that it never exceeds the published amount.
        Raises GambleCapError when a rate is missing."""
        rules = self.features.gamble
        if currency == rules.cap_currency:
            return rules.default_operator_cap
        source, target = rate_of(rules.cap_currency), rate_of(currency)
        missing = [code for code, rate in ((rules.cap_currency, source), (currency, target)) if rate is None]
        if missing:
            raise GambleCapError(
                f"currency: {self.spec.name}'s doubled win must not exceed {rules.cap_currency} "
                f"{rules.default_operator_cap:,} and the operator's rate table has no rate for "
                f"{' or '.join(missing)}, so the gamble cannot start in {currency}"
            )
        return (rules.default_operator_cap * source / target).quantize(Decimal("0.01"), rounding=ROUND_DOWN)

    # -- carried state ----------------------------------------------------------------------
    def state_key(self, bet: Bet) -> str:
        """The entry of the player's state a bet configuration owns: "1.00/x2/standard"."""
        return f"{format_money(bet.fields['bet'])}/x{bet.fields['chance_level']}/{bet.fields['volatility']}"

    def state_array(self, state: dict, bet: Bet) -> np.ndarray:
        """The configuration's held cells as the round function's state array."""
        if not isinstance(state, dict):
            raise ScriptError("state: expected an object of bet configurations")
        array = k.empty_state()
        key = self.state_key(bet)
        entry = state.get(key) or {}
        held = entry.get("held", []) if isinstance(entry, dict) else None
        if not isinstance(held, list):
            raise ScriptError(f"state.{key}: expected {{\"held\": [{{\"cell\": 0-15, \"symbol\": ...}}]}}")
        if len(held) >= self.features.trigger:
            raise ScriptError(f"state.{key}.held: at most {self.features.trigger - 1} cells are held "
                              f"({self.features.trigger} bonus symbols start the bonus game), got {len(held)}")
        for n, item in enumerate(held):
            where = f"state.{key}.held[{n}]"
            cell = item.get("cell") if isinstance(item, dict) else None
            if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell < k.CELLS:
                raise ScriptError(f"{where}.cell: expected a cell 0-15 in reading order, got {cell!r}")
            symbol = item.get("symbol")
            if symbol not in HELD_SYMBOLS:
                raise ScriptError(f"{where}.symbol: expected one of {list(HELD_SYMBOLS)}, got {symbol!r}")
            if array[k.S_HELD + cell] >= 0:
                raise ScriptError(f"{where}.cell: cell {cell} is held twice")
            array[k.S_HELD + cell] = self.spec.symbol_id(symbol)
            array[k.S_HELD_COUNT] += 1
            if symbol == "CASH":
                array[k.S_CASH_COUNT] += 1
                value = item.get("value")
                if isinstance(value, bool) or value not in self.features.cash_values:
                    raise ScriptError(f"{where}.value: expected a CASH value x bet, one of "
                                      f"{self.features.cash_values}, got {value!r}")
                array[k.S_VALUE + cell] = value * UNITS_PER_BET
        return array

    def updated_state(self, state: dict, bet: Bet, array: np.ndarray) -> dict:
        """The player's state with this configuration's entry replaced by ``array``."""
        held = []
        for cell in range(k.CELLS):
            symbol = int(array[k.S_HELD + cell])
            if symbol < 0:
                continue
            item: dict[str, Any] = {"cell": cell, "symbol": self.codes[symbol]}
            if self.codes[symbol] == "CASH":
                item["value"] = int(array[k.S_VALUE + cell]) // UNITS_PER_BET
            held.append(item)
        updated = {key: value for key, value in state.items() if key != self.state_key(bet)}
        if held:
            updated[self.state_key(bet)] = {"held": held}
        return updated

    # -- rounds -----------------------------------------------------------------------------
    def refusal(self, scratch: k.Work) -> str | None:
        """Why a scripted screen cannot be played, naming the script field."""
        reason, screen, row, reel, symbol = (int(x) for x in scratch.info[:REFUSAL_FIELDS])
        if not reason:
            return None
        where = f"screens[{screen}][{row}][{reel}]"
        code = self.codes[symbol]
        if reason == k.R_HELD_CELL:
            return f"{where}: the cell holds {self.codes[int(scratch.info[k.I_EXPECTED])]}, got {code}"
        place = "the base game" if reason == k.R_BASE_SYMBOL else "the bonus game"
        return f"{where}: {code} does not land in {place}"

    def parse_draw(self, name: str, raw: Any) -> int:
        features = self.features
        if name == "cash_value":
            if isinstance(raw, bool) or raw not in features.cash_values:
                raise ScriptError(f"draws.cash_value: expected a CASH value x bet, one of {features.cash_values}, "
                                  f"got {raw!r}")
            return features.cash_values.index(raw)
        if name in ("mystery", "rabbit_mystery"):
            allowed = k.MYSTERY_OUTCOMES if name == "mystery" else k.RABBIT_OUTCOMES
            if raw not in allowed:
                raise ScriptError(f"draws.{name}: expected one of {list(allowed)}, got {raw!r}")
            return allowed.index(raw)
        if name == "collector_multiplier":
            if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= 10:
                raise ScriptError(f"draws.collector_multiplier: expected a whole number from 1 to 10, got {raw!r}")
            return raw - 1
        if name == "gamble":
            if raw not in gamble.PICK_SYMBOLS:
                raise ScriptError(f"draws.gamble: expected one of {list(gamble.PICK_SYMBOLS)}, got {raw!r}")
            return gamble.PICK_SYMBOLS.index(raw)
        return super().parse_draw(name, raw)
