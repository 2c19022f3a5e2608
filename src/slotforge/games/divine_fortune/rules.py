"""Divine Fortune: 5x3, 20 fixed lines, Falling Wilds Re-Spins, Wild on Wild, Free Spins and a
Jackpot Bonus game with Minor, Major and a progressive Mega.

The compiled round is in :mod:`.kernels`; this module is the game's Python face: the model's
sections, bets, scripts, the round record's game-specific events, and the maths (in
:mod:`.maths`). The Mega's amount is not part of a round: the record says the Mega was won and
the jackpot pool (:mod:`slotforge.jackpot`) pays it, see :func:`mega_won`.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from slotforge.engine import events
from slotforge.engine.bet import Bet, format_money, parse_choice, parse_int, reject_unknown
from slotforge.engine.evaluate import compile_paytable, compile_reelset
from slotforge.engine.game import Decision, Game, Operator, Presentation, ScriptError
from slotforge.engine.model import Choice, IntRange, ModelError, Strict, paylines
from slotforge.engine.roles import Capabilities
from slotforge.engine.spin import REFUSAL_FIELDS
from slotforge.games.divine_fortune.kernels import common, play_round, simulate_rounds  # noqa: F401  (exported)
from slotforge.jackpot import JackpotPool, PoolConfig, Settlement, settle


class BetOptions(Strict):
    bet_level: IntRange
    coin_values: Choice


class FreeSpins(Strict):
    trigger: int = Field(gt=0)
    awards: dict[int, int] = Field(description="free spins by FREESPINS count")


class StakeReels(Strict):
    """The Jackpot Bonus game's cell reels and BONUS values at one stake."""

    stake: Decimal = Field(gt=0, description="the total bet these weights are played at")
    land_chance: tuple[int, int] = Field(description="each empty cell's reel lands a BONUS with num/den per spin")
    value_weights: list[int] = Field(min_length=1, description="one weight per BONUS value")


class BonusGame(Strict):
    trigger: int = Field(gt=0, description="BONUS collected in a main-game round to start it")
    spins: int = Field(gt=0)
    values: list[int] = Field(min_length=1, description="BONUS values, coins per bet level")
    by_stake: list[StakeReels] = Field(min_length=1, description="one entry per stake the bet options offer")
    minor_x_total_bet: int = Field(gt=0)
    major_x_total_bet: int = Field(gt=0)


class Mega(Strict):
    contribution: Decimal = Field(gt=0, lt=1, description="share of every real-money bet")
    reserve_share: Decimal = Field(ge=0, lt=1, description="share of a contribution set aside for the next Mega")
    seed_eur: Decimal = Field(gt=0)


class Features(Strict):
    free_spins: FreeSpins
    bonus_game: BonusGame
    mega: Mega


# What the compiled round can hold: bonus-grid cells and Falling Wild rows as int64 bit masks.
MAX_CELLS = 62
MIN_ROWS = 3  # the Minor, the Major and the Mega need one, two and every row
WEIGHT_LIMIT = 2**32  # weights and chances are drawn with 32-bit bounded integers


class DivineFortunePresentation(Presentation):
    """How Divine Fortune's rounds read in the record."""

    game: DivineFortune

    def describe_draw(self, name: int, value: int) -> Any:
        if name == common.DRAW_VALUE:
            return self.game.features.bonus_game.values[value]
        return value

    def cells_of(self, mask: int) -> list[list[int]]:
        """A cell mask as [row, reel] pairs, 1-based."""
        rows, reels = self.game.grid
        return [[c // reels + 1, c % reels + 1] for c in range(rows * reels) if (mask >> c) & 1]

    def describe_feature(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        code, f = events.feature_fields(row, common.FEATURE_FIELDS)
        if code == common.F_WILD_ON_WILD:
            return {"type": "wild_on_wild", "reel": f["reel"] + 1}
        if code == common.F_FALLING_WILDS:
            return {"type": "falling_wilds", "cells": self.cells_of(f["cells"]), "count": f["count"], "respin": True}
        if code == common.F_BONUS_COLLECTED:
            return {"type": "bonus_collected", "count": f["count"], "collected": f["collected"]}
        if code == common.F_RESPINS_OWED:
            return {"type": "respins_owed", "falling_wilds": self.cells_of(f["cells"])}
        if code == common.F_BONUS_TRIGGERED:
            return {"type": "jackpot_bonus_triggered", "collected": f["collected"], "placed": f["placed"]}
        if code in (common.F_BONUS_PLACED, common.F_BONUS_LANDED):
            kind = "bonus_placed" if code == common.F_BONUS_PLACED else "bonus_landed"
            value = f["value"]
            return {"type": kind, "cell": f["cell"], "value": value, "amount": format_money(bet.amount(value))}
        if code == common.F_MEGA_WON:
            if f["paid_by_pool"]:
                return {"type": "jackpot", "jackpot": "MEGA", "progressive": True, "paid_by": "jackpot_pool"}
            return {"type": "jackpot", "jackpot": "MEGA", "progressive": True, "paid_by": None, "fun_play": True}
        if code == common.F_BONUS_END:
            return {"type": "jackpot_bonus_end", "cells": f["filled"], "full_rows": f["full_rows"]}
        if code == common.F_FREE_RESPIN:
            return {"type": "free_spins_respin", "uses_free_spin": False}
        return super().describe_feature(row, bet)

    def describe_win(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        kind, count, units = events.fields(row).values()
        if kind == common.W_BONUS_COINS:
            return {"kind": "bonus", "symbol": "BONUS", "count": count, "amount": format_money(bet.amount(units))}
        name = "MINOR" if kind == common.W_MINOR else "MAJOR"
        return {
            "kind": "jackpot",
            "symbol": name,
            "jackpot": name,
            "count": count,
            "amount": format_money(bet.amount(units)),
        }


class DivineFortune(Game):
    code = "divine-fortune"
    presentation_class = DivineFortunePresentation
    model_file = Path(__file__).with_name("model.json")
    draw_names = ("bonus_value", "bonus_cell")
    decisions = (Decision("start_bonus", ("start_bonus",)),)
    strategies = ("start",)
    capabilities = Capabilities(jackpot_pool=True)
    simulate_rounds = staticmethod(simulate_rounds)

    # -- model ------------------------------------------------------------------------------
    def compile(self) -> None:
        self.bet_options: BetOptions = self.section(BetOptions, "bet")
        self.features: Features = self.section(Features, "features")
        self.check_model()
        bonus = self.features.bonus_game
        self.tally_names = common.TALLY + common.collected_tally_names(bonus.trigger, self.cells)
        self.stake_rows = {entry.stake: row for row, entry in enumerate(bonus.by_stake)}
        pay = compile_paytable(self.spec)
        self.tables = common.Tables(
            pay=pay,
            base=compile_reelset(self.spec, "base", pay),
            free=compile_reelset(self.spec, "free", pay),
            **self._stacked(pay),
            **self._feature_tables(pay),
        )

    @property
    def cells(self) -> int:
        """Cells of the Jackpot Bonus game's grid (one independent reel each)."""
        rows, reels = self.grid
        return rows * reels

    def offered_stakes(self) -> list[Decimal]:
        """Every total bet the bet options offer, smallest first."""
        options, lines = self.bet_options, len(paylines(self.spec.paylines))
        levels = range(options.bet_level.min, options.bet_level.max + 1)
        return sorted({lines * level * value for level in levels for value in options.coin_values.values})

    def check_model(self) -> None:
        """Refuse a model the compiled round cannot play as the rules say."""
        rows, reels = self.grid
        where = f"{self.path}"
        for mode in common.MODE_NAMES:
            if mode not in self.spec.reels:
                raise ModelError(f"{where}: reels.{mode}: Divine Fortune needs {mode} reel strips")
        for code in ("WILD", "FREESPINS", "BONUS", "BLANK"):
            if code not in self.codes:
                raise ModelError(f"{where}: symbols: Divine Fortune needs a {code} symbol")
        if rows < MIN_ROWS or self.cells > MAX_CELLS:
            raise ModelError(
                f"{where}: grid: expected at least {MIN_ROWS} rows (Minor, Major and Mega need one, two and "
                f"every row full) and at most {MAX_CELLS} cells, got {rows} x {reels}"
            )
        fs, bonus = self.features.free_spins, self.features.bonus_game
        if fs.trigger not in fs.awards or min(fs.awards) < fs.trigger or max(fs.awards) > self.cells:
            raise ModelError(
                f"{where}: features.free_spins.awards: expected awards from the trigger ({fs.trigger}) to at most "
                f"{self.cells} FREESPINS"
            )
        if not bonus.trigger <= self.cells:
            raise ModelError(f"{where}: features.bonus_game.trigger: expected 1 to {self.cells} (the grid's cells)")
        if min(bonus.values) <= 0:
            raise ModelError(f"{where}: features.bonus_game.values: expected positive coin values")
        self.check_stakes(bonus)

    def check_stakes(self, bonus: BonusGame) -> None:
        """One entry of cell reels and value weights for every stake offered, and none else."""
        where = f"{self.path}: features.bonus_game.by_stake"
        listed = [entry.stake for entry in bonus.by_stake]
        offered = self.offered_stakes()
        if sorted(listed) != offered:
            missing = sorted(set(offered) - set(listed))
            extra = sorted(set(listed) - set(offered)) + sorted({s for s in listed if listed.count(s) > 1})
            raise ModelError(
                f"{where}: expected one entry per offered stake ({len(offered)}); "
                f"missing {[format_money(s) for s in missing]}, "
                f"unexpected or repeated {[format_money(s) for s in extra]}"
            )
        for row, entry in enumerate(bonus.by_stake):
            num, den = entry.land_chance
            if not 0 < num < den < WEIGHT_LIMIT:
                raise ModelError(f"{where}[{row}].land_chance: expected 0 < num < den < 2**32, got {[num, den]}")
            weights = entry.value_weights
            if len(weights) != len(bonus.values) or min(weights) <= 0 or sum(weights) >= WEIGHT_LIMIT:
                raise ModelError(
                    f"{where}[{row}].value_weights: expected {len(bonus.values)} positive weights "
                    f"(one per value) summing below 2**32"
                )

    def _stacked(self, pay) -> dict[str, np.ndarray]:
        """Base, held and free strips as one table indexed by mode, with per-stop lookups."""
        sets = [compile_reelset(self.spec, mode, pay) for mode in common.MODE_NAMES]
        rows, reels = self.grid
        symbols = len(self.spec.symbols)
        longest = max(s.strips.shape[1] for s in sets)
        modes = len(sets)
        strips = np.zeros((modes, reels, longest), dtype=np.int64)
        masks = np.zeros((modes, reels, longest, symbols), dtype=np.uint64)
        wild_rows, freespins, bonus = (np.zeros((modes, reels, longest), dtype=np.int64) for _ in range(3))
        wild, scatter, coin = (self.spec.symbol_id(c) for c in ("WILD", "FREESPINS", "BONUS"))
        for mode, reelset in enumerate(sets):
            width = reelset.strips.shape[1]
            strips[mode, :, :width] = reelset.strips
            masks[mode, :, :width] = reelset.masks
            freespins[mode, :, :width] = reelset.counts[:, :, scatter]
            bonus[mode, :, :width] = reelset.counts[:, :, coin]
            for reel in range(reels):
                length = reelset.lengths[reel]
                for stop in range(length):
                    for row in range(rows):
                        if reelset.strips[reel, (stop + row) % length] == wild:
                            wild_rows[mode, reel, stop] |= 1 << row
        lengths = np.array([s.lengths for s in sets], dtype=np.int64)
        return dict(strips=strips, lengths=lengths, masks=masks, wild_rows=wild_rows, freespins=freespins, bonus=bonus)

    def _feature_tables(self, pay) -> dict[str, np.ndarray]:
        rows, reels = self.grid
        symbols = len(self.spec.symbols)
        ids = {code: self.spec.symbol_id(code) for code in ("WILD", "FREESPINS", "BONUS", "BLANK")}
        line_bits = np.zeros((reels, 1 << rows), dtype=np.uint64)
        for line, shape in enumerate(pay.line_rows):
            for reel, row in enumerate(shape):
                for bits in range(1 << rows):
                    if (bits >> row) & 1:
                        line_bits[reel, bits] |= np.uint64(1) << np.uint64(line)
        substitutes = np.where(pay.counts_as[ids["WILD"]], ~np.uint64(0), np.uint64(0)).astype(np.uint64)
        carries = np.zeros((len(common.MODE_NAMES), reels, symbols), dtype=np.bool_)
        for mode, name in enumerate(common.MODE_NAMES):
            for reel, strip in enumerate(self.spec.reels[name]):
                for code in strip:
                    carries[mode, reel, self.spec.symbol_id(code)] = True
        fs, bonus = self.features.free_spins, self.features.bonus_game
        awards = np.zeros(self.cells + 1, dtype=np.int64)
        for count, award in sorted(fs.awards.items()):
            awards[count:] = award
        total_units = len(pay.line_rows)  # one unit per line
        params = np.zeros(common.P_LAST, dtype=np.int64)
        params[[common.P_WILD, common.P_FREESPINS, common.P_BONUS, common.P_BLANK]] = [
            ids[c] for c in ("WILD", "FREESPINS", "BONUS", "BLANK")
        ]
        params[common.P_FS_TRIGGER], params[common.P_BONUS_TRIGGER], params[common.P_BONUS_SPINS] = (
            fs.trigger,
            bonus.trigger,
            bonus.spins,
        )
        params[common.P_MINOR] = bonus.minor_x_total_bet * total_units
        params[common.P_MAJOR] = bonus.major_x_total_bet * total_units
        params[common.P_FULL_REEL] = (1 << rows) - 1
        stakes = bonus.by_stake
        return dict(
            line_bits=line_bits,
            substitutes=substitutes,
            carries=carries,
            awards=awards,
            values=np.array(bonus.values, dtype=np.int64),
            land_num=np.array([s.land_chance[0] for s in stakes], dtype=np.int64),
            land_den=np.array([s.land_chance[1] for s in stakes], dtype=np.int64),
            value_weights=np.cumsum(np.array([s.value_weights for s in stakes], dtype=np.int64), axis=1),
            params=params,
        )

    def scratch(self) -> common.Work:
        rows, reels = self.grid
        return common.make_work(rows, reels, len(self.spec.symbols))

    def extra_screen_symbols(self) -> set[str]:
        """BLANK: an empty cell of a Jackpot Bonus game screen."""
        return {"BLANK"}

    # -- bets -------------------------------------------------------------------------------
    @property
    def stake_units(self) -> int:
        """The stake in win units: one per line."""
        return len(self.tables.pay.line_rows)

    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        raw = raw or {}
        reject_unknown(raw, {"bet_level", "coin_value"})
        level = parse_int("bet_level", raw.get("bet_level"), self.bet_options.bet_level)
        coin_value = parse_choice("coin_value", raw.get("coin_value"), self.bet_options.coin_values)
        return Bet(
            fields={"bet_level": level, "coin_value": coin_value},
            unit_coins=level,
            total_units=self.stake_units,
            coin_value=coin_value,
            lines=self.stake_units,
        )

    def stake_row(self, bet: Bet) -> int:
        """The row of ``features.bonus_game.by_stake`` the bet is played with."""
        return self.stake_rows[bet.total_bet]

    def stake_reels(self, bet: Bet) -> StakeReels:
        """The bonus game's cell reels and value weights at the bet's stake."""
        return self.features.bonus_game.by_stake[self.stake_row(bet)]

    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        """The round function's bet array: a Mega is paid by the pool as for real money, except
        in fun play."""
        arguments = np.zeros(common.BET_ARGUMENTS, dtype=np.int64)
        arguments[common.B_LEVEL] = bet.unit_coins
        arguments[common.B_TOTAL_UNITS] = bet.total_units
        arguments[common.B_STAKE] = self.stake_row(bet)
        arguments[common.B_MEGA_LIVE] = not operator.fun_play
        return arguments

    def pool_config(self) -> PoolConfig:
        """The Mega pool's arithmetic as the model states it (3.7%, 20% set aside, 10,000 EUR)."""
        mega = self.features.mega
        return PoolConfig(contribution=mega.contribution, reserve_share=mega.reserve_share, seed=mega.seed_eur)

    # -- rounds -----------------------------------------------------------------------------
    def refusal(self, work) -> str | None:
        """Why a scripted round cannot be played, naming the script field."""
        reason, screen, row, reel, symbol = (int(x) for x in work.info[:REFUSAL_FIELDS])
        if not reason:
            return None
        where = f"screens[{screen}][{row}][{reel}]"
        code = self.codes[symbol] if 0 <= symbol < len(self.codes) else symbol
        messages = {
            common.R_HELD_REEL: f"{where}: {code} cannot land on reel {reel + 1} while a Falling Wild is active on it",
            common.R_FREE_SPIN: f"{where}: {code} does not appear in free spins",
            common.R_MAIN_SCREEN: f"{where}: {code} does not appear in the main game",
            common.R_BONUS_SCREEN: f"{where}: a Jackpot Bonus game screen shows only BONUS or BLANK, got {code}",
            common.R_CELL_TAKEN: f"draws.bonus_cell: cell {symbol} already holds a BONUS",
        }
        return messages[reason]

    def parse_draw(self, name: str, raw: Any) -> int:
        bonus = self.features.bonus_game
        if name == "bonus_value":
            if isinstance(raw, bool) or raw not in bonus.values:
                raise ScriptError(
                    f"draws.bonus_value: expected one of {bonus.values} (coins per bet level), got {raw!r}"
                )
            return bonus.values.index(raw)
        if name == "bonus_cell":
            last = self.cells - 1
            if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= last:
                raise ScriptError(f"draws.bonus_cell: expected a cell 0-{last} in reading order, got {raw!r}")
            return raw
        return super().parse_draw(name, raw)

def settle_round(record: dict[str, Any], pool: JackpotPool, round_id: str, fun_play: bool = False) -> Settlement:
    """Settle a played round with the Mega pool: contribute its stake, claim the Mega if won.

    Stakes are taken as EUR, the pool's currency.
    """
    return settle(pool, round_id, Decimal(record["total_bet"]), mega_won(record), fun_play)


def mega_won(record: dict[str, Any]) -> bool:
    """Whether a round record won the Mega for real money (its amount is claimed from the
    jackpot pool; a full grid in fun play wins nothing)."""
    return any(
        event.get("type") == "jackpot" and event.get("jackpot") == "MEGA" and event.get("paid_by") == "jackpot_pool"
        for step in record.get("steps", [])
        for event in step.get("events", [])
    )
