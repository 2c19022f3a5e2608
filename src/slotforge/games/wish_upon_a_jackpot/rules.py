"""Wish Upon a Jackpot: 5x3, 20 fixed lines, the Fairy Godmother's wishes on any spin (base and
free), and the Fairy Tale Bonus revealing Rumpelstiltskin's Deal Maker, Jack and the Beanstalk, 3 Little
Pigs Free Spins or Rapunzel Free Spins.

The compiled round is in :mod:`.kernels`; this module is the game's Python face: the model's
sections, bets, scripts and the round record's game-specific events. The maths is in
:mod:`.maths`; the Deal Maker's strategies read thresholds it computes exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, field_validator, model_validator

from slotforge.engine import events
from slotforge.engine.bet import Bet, format_money, parse_choice, reject_unknown
from slotforge.engine.evaluate import compile_paytable, compile_reelset
from slotforge.engine.game import Decision, Game, Operator, Presentation, ScriptError
from slotforge.engine.masks import compile_row_masks
from slotforge.engine.model import Choice, ModelError, Strict, check_weights
from slotforge.engine.roles import Capabilities
from slotforge.engine.spin import REFUSAL_FIELDS
from slotforge.games.wish_upon_a_jackpot.kernels import common, fields, play_round, simulate_rounds  # noqa: F401  (exported)

LINES = 20  # fixed lines; a win unit is the line bet, a twentieth of the stake


class BetOptions(Strict):
    stakes: Choice = Field(description="total stake options (currency)")


class Godmother(Strict):
    chance: tuple[int, int] = Field(description="she appears on any spin (base and free) with num/den")
    bonus_chance: tuple[int, int] = Field(description="her bonus follows an appearance with num/den, drawn then")
    wishes: dict[str, int] = Field(description="weights of puss_in_boots, pinocchio, gingerbread_man")
    pinocchio_wilds: dict[int, int] = Field(description="weights of how many cells Pinocchio turns WILD")
    gingerbread_reels: list[int] = Field(min_length=1, description="the reels (1-based) he may turn WILD, equally")

    @model_validator(mode="after")
    def _valid(self) -> Godmother:
        for name in ("chance", "bonus_chance"):
            num, den = getattr(self, name)
            if not 0 < num <= den < 2**32:
                raise ValueError(f"{name}: expected 0 < num <= den < 2**32, got {[num, den]}")
        if set(self.wishes) != set(fields.WISHES):
            raise ValueError(f"wishes: expected a weight for each of {list(fields.WISHES)}")
        check_weights(self.wishes)
        check_weights(self.pinocchio_wilds)
        return self


class FairyTale(Strict):
    features: dict[str, int] = Field(description="weights of the four features")

    @field_validator("features")
    @classmethod
    def _four(cls, features: dict[str, int]) -> dict[str, int]:
        if set(features) != set(fields.FEATURES):
            raise ValueError(f"expected a weight for each of {list(fields.FEATURES)}")
        return check_weights(features)


class DealMaker(Strict):
    values: list[int] = Field(min_length=1, description="offer multipliers of the stake")
    weights: list[list[int]] = Field(description="one weight per value, for each of the 5 offers")

    @model_validator(mode="after")
    def _valid(self) -> DealMaker:
        if len(self.weights) != fields.OFFERS or any(len(w) != len(self.values) for w in self.weights):
            raise ValueError(f"weights: expected {fields.OFFERS} rows of {len(self.values)} weights (one per value)")
        for row in self.weights:
            check_weights(row)
        if min(self.values) <= 0:
            raise ValueError("values: expected positive multipliers")
        return self


class Eggs(Strict):
    values: list[int] = Field(min_length=1, description="the Golden Goose's prizes, x stake")
    weights: list[int]

    @model_validator(mode="after")
    def _valid(self) -> Eggs:
        if len(self.weights) != len(self.values):
            raise ValueError("weights: expected one weight per value")
        check_weights(self.weights)
        return self


class Beanstalk(Strict):
    trail: list[int] = Field(min_length=1, description="the prize at each level, x stake")
    grow: list[tuple[int, int]] = Field(description="weights of grows and COLLECT at each level")
    eggs: Eggs

    @model_validator(mode="after")
    def _valid(self) -> Beanstalk:
        if len(self.grow) != len(self.trail):
            raise ValueError("grow: expected one [grows, COLLECT] pair per level of the trail")
        for pair in self.grow:
            check_weights(list(pair))
        return self


class ThreeLittlePigs(Strict):
    spins: int = Field(gt=0)
    events: dict[str, int] = Field(description="weights of none, pig_1, pig_2, pig_3 (k cells WILD), wolf")

    @field_validator("events")
    @classmethod
    def _all(cls, found: dict[str, int]) -> dict[str, int]:
        if set(found) != set(common.PIG_EVENTS):
            raise ValueError(f"expected a weight for each of {list(common.PIG_EVENTS)}")
        return check_weights(found)


class Rapunzel(Strict):
    multipliers: list[int] = Field(min_length=2, description="the multiplier at each tower level; the last is the top")


class Features(Strict):
    godmother: Godmother
    fairy_tale: FairyTale
    deal_maker: DealMaker
    beanstalk: Beanstalk
    three_little_pigs: ThreeLittlePigs
    rapunzel: Rapunzel


def cumulative(weights) -> np.ndarray:
    return np.cumsum(np.array(list(weights), dtype=np.int64))


def options(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}_{n}" for n in range(1, count + 1))


# -- the Deal Maker's thresholds: part of the rules (the strategies take by them) ------------
def deal_values(game) -> dict[str, Fraction]:
    """The Deal Maker's expected prize (x stake) under each strategy, and the continuation
    values of the best and the worst strategy after each offer (``best_after``/``worst_after``)."""
    deal = game.features.deal_maker
    offers = [
        [(Fraction(w, sum(row)), Fraction(v)) for v, w in zip(deal.values, row, strict=True)] for row in deal.weights
    ]
    mean = [sum(p * v for p, v in offer) for offer in offers]
    best_after = [mean[-1]]
    worst_after = [mean[-1]]
    for offer in reversed(offers[1:-1]):
        best_after.insert(0, sum(p * max(v, best_after[0]) for p, v in offer))
        worst_after.insert(0, sum(p * min(v, worst_after[0]) for p, v in offer))
    best = sum(p * max(v, best_after[0]) for p, v in offers[0])
    worst = sum(p * min(v, worst_after[0]) for p, v in offers[0])
    return {
        "best": best,
        "worst": worst,
        "first": mean[0],
        "last": mean[-1],
        "best_after": best_after,
        "worst_after": worst_after,
    }


def deal_thresholds(game) -> tuple[list[int], list[int]]:
    """For offers 1-4, in units: the least offer the best strategy takes (worth at least what
    leaving brings) and the bound below which the worst strategy takes (worth less)."""
    values = deal_values(game)
    stake = game.parse_bet({}).total_units
    take_from = [math.ceil(v * stake) for v in values["best_after"]]
    take_below = [math.ceil(v * stake) for v in values["worst_after"]]
    return take_from, take_below



class WishUponAJackpotPresentation(Presentation):
    """How Wish Upon a Jackpot's rounds read in the record, and its strategies."""

    game: WishUponAJackpot

    def describe_strategy(self, name: str) -> str:
        return {
            "best": "the Deal Maker: take an offer worth at least what leaving it is expected to bring",
            "worst": "the Deal Maker: take an offer worth less than what leaving it is expected to bring",
            "first": "the Deal Maker: take the first offer",
            "last": "the Deal Maker: leave every offer (the fifth is paid)",
        }[name]

    def cells_of(self, mask: int) -> list[int]:
        """A cell mask as the cells' numbers (reading order, from 0)."""
        return [cell for cell in range(self.game.cells) if (mask >> cell) & 1]

    def describe_feature(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        code, f = events.feature_fields(row, common.FEATURE_FIELDS)
        money = lambda units: format_money(bet.amount(units))  # noqa: E731
        if code == common.F_APPEARS:
            return {"type": "fairy_godmother_appears", "bonus": bool(f["bonus_follows"]),
                    "during": common.MODE_NAMES[f["mode"]]}
        if code == common.F_GODMOTHER:
            return {"type": "fairy_godmother", "orb": self.game.decisions[fields.DECISION_ORB].options[f["orb"]]}
        if code == common.F_WISH:
            wish, detail = f["wish"], f["detail"]
            found = {"type": "wish", "wish": fields.WISHES[wish], "wild_cells": self.cells_of(f["cells"])}
            found[("cell", "wilds", "reel")[wish]] = detail + 1 if wish == fields.GINGERBREAD else detail
            return found
        if code == common.F_FAIRY_TALE:
            return {
                "type": "fairy_tale_bonus",
                "storybook": self.game.decisions[fields.DECISION_STORYBOOK].options[f["storybook"]],
                "feature": fields.FEATURES[f["feature"]],
            }
        if code == common.F_OFFER:
            value = f["value"]
            return {"type": "offer", "offer": f["offer"], "multiplier": value // LINES, "amount": money(value),
                    "scrolls_left": f["scrolls_left"]}
        if code == common.F_DEAL:
            return {"type": "deal", "offer": f["offer"], "amount": money(f["value"])}
        if code == common.F_BEAN:
            return {
                "type": "bean",
                "bean": self.game.decisions[fields.DECISION_BEAN].options[f["bean"]],
                "revealed": "grow" if f["grew"] else "collect",
                "level": f["level"],
            }
        if code == common.F_EGG:
            return {"type": "golden_egg", "egg": self.game.decisions[fields.DECISION_EGG].options[f["egg"]],
                    "amount": money(f["prize"])}
        if code == common.F_PIG:
            event = f["event"]
            return {
                "type": "wolf" if event == common.WOLF else "pig",
                "event": common.PIG_EVENTS[event],
                "wild_cells": self.cells_of(f["cells"]),
                "wilds_standing": f["wilds_standing"],
            }
        if code == common.F_PRINCE:
            return {"type": "prince_climbs", "level": f["level"], "multiplier": f["multiplier"]}
        if code == common.F_FREE_SPINS:
            feature = f["feature"]
            return {"type": "free_spins", "feature": fields.FEATURES[feature],
                    "spins": f["spins"] if feature == fields.PIGS else "until_the_top"}
        if code == common.F_BONUS_WINNINGS:
            return {"type": "bonus_winnings", "feature": fields.FEATURES[f["feature"]], "amount": money(f["units"])}
        return super().describe_feature(row, bet)

    def describe_win(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        kind, count, units = events.fields(row).values()
        symbol = ("DEAL", "BEANSTALK", "GOLDEN_EGG")[kind]
        return {"kind": "bonus", "symbol": symbol, "count": count, "amount": format_money(bet.amount(units))}


class WishUponAJackpot(Game):
    code = "wish-upon-a-jackpot"
    presentation_class = WishUponAJackpotPresentation
    model_file = Path(__file__).with_name("model.json")
    draw_names = fields.DRAWS
    decisions = (
        Decision("storybook", options("book", 4)),
        Decision("orb", options("orb", 3)),
        Decision("bean", options("bean", 3)),
        Decision("egg", options("egg", 3)),
        Decision("deal", ("take", "leave")),
    )
    strategies = fields.STRATEGIES
    capabilities = Capabilities(rtp_follows_strategy=True)
    tally_names = fields.TALLY
    simulate_rounds = staticmethod(simulate_rounds)

    # -- model ------------------------------------------------------------------------------
    def compile(self) -> None:
        self.bet_options: BetOptions = self.section(BetOptions, "bet")
        self.features: Features = self.section(Features, "features")
        self.check_model()
        spec, f = self.spec, self.features
        pay = compile_paytable(spec)
        stake = LINES
        ids = {code: spec.symbol_id(code) for code in ("WILD", "BONUS", "PRINCE")}
        params = np.zeros(len(fields.PARAMS), dtype=np.int64)
        for index, code in ((fields.P_WILD, "WILD"), (fields.P_BONUS, "BONUS"), (fields.P_PRINCE, "PRINCE")):
            params[index] = ids[code]
        picks = (fields.P_STORYBOOKS, fields.P_ORBS, fields.P_BEANS, fields.P_EGGS)
        for index, decision in zip(picks, self.decisions, strict=False):
            params[index] = len(decision.options)
        params[fields.P_PIG_SPINS] = f.three_little_pigs.spins
        params[fields.P_TOP] = len(f.rapunzel.multipliers) - 1
        godmother, beans = f.godmother, f.beanstalk
        self.tables = common.Tables(
            pay=pay,
            base=compile_reelset(spec, "base", pay),
            pigs=compile_reelset(spec, "pigs", pay),
            rapunzel=compile_reelset(spec, "rapunzel", pay),
            rows=compile_row_masks(pay, spec.grid.rows),
            carries=self._carries(),
            godmother=cumulative([godmother.chance[0], godmother.chance[1] - godmother.chance[0]]),
            godmother_bonus=cumulative(
                [godmother.bonus_chance[0], godmother.bonus_chance[1] - godmother.bonus_chance[0]]
            ),
            wishes=cumulative(godmother.wishes[w] for w in fields.WISHES),
            puss=self._puss_cells(),
            pinocchio_wilds=np.array(list(godmother.pinocchio_wilds), dtype=np.int64),
            pinocchio_weights=cumulative(godmother.pinocchio_wilds.values()),
            gingerbread_reels=np.array([r - 1 for r in godmother.gingerbread_reels], dtype=np.int64),
            features=cumulative(f.fairy_tale.features[name] for name in fields.FEATURES),
            offers=np.array(f.deal_maker.values, dtype=np.int64) * stake,
            offer_weights=np.array([cumulative(row) for row in f.deal_maker.weights]),
            take_from=np.zeros(fields.OFFERS - 1, dtype=np.int64),
            take_below=np.zeros(fields.OFFERS - 1, dtype=np.int64),
            trail=np.array(beans.trail, dtype=np.int64) * stake,
            grow=np.array([cumulative(pair) for pair in beans.grow]),
            eggs=np.array(beans.eggs.values, dtype=np.int64) * stake,
            egg_weights=cumulative(beans.eggs.weights),
            pig_events=cumulative(f.three_little_pigs.events[e] for e in common.PIG_EVENTS),
            ladder=np.array(f.rapunzel.multipliers, dtype=np.int64),
            params=params,
        )
        take_from, take_below = deal_thresholds(self)
        self.tables.take_from[:] = take_from
        self.tables.take_below[:] = take_below

    @property
    def cells(self) -> int:
        rows, reels = self.grid
        return rows * reels

    def check_model(self) -> None:
        """Refuse a model the compiled round cannot play as the rules say."""
        where = str(self.path)
        spec = self.spec
        for code in ("WILD", "BONUS", "PRINCE"):
            if code not in self.codes:
                raise ModelError(f"{where}: symbols: Wish Upon a Jackpot needs a {code} symbol")
        for mode in common.MODE_NAMES:
            if mode not in spec.reels:
                raise ModelError(f"{where}: reels.{mode}: Wish Upon a Jackpot needs {mode} reel strips")
        if (spec.grid.rows, spec.grid.reels) != (3, 5) or spec.line_count != LINES:
            raise ModelError(f"{where}: grid: Wish Upon a Jackpot is 5 reels x 3 rows with {LINES} lines")
        for mode, symbol in (("base", "BONUS"), ("rapunzel", "PRINCE")):
            for reel, strip in enumerate(spec.reels[mode], start=1):
                if self._shows_two(strip, symbol):
                    raise ModelError(
                        f"{where}: reels.{mode}[{reel}]: {symbol} must stand 3 stops from the next one "
                        "(a reel shows at most one)"
                    )
        if "PRINCE" not in spec.reels["rapunzel"][4]:
            raise ModelError(
                f"{where}: reels.rapunzel[5]: PRINCE must stand on reel 5 (Rapunzel's spins end at the "
                "top of the tower)"
            )
        g = self.features.godmother
        if any(n < 1 or n > self.cells for n in g.pinocchio_wilds):
            raise ModelError(f"{where}: features.godmother.pinocchio_wilds: expected counts from 1 to {self.cells}")
        if sorted(g.gingerbread_reels) != [1, 2, 3, 4, 5]:
            # "Reveal the Gingerbread Man and turn any reel WILD": every reel, each once.
            raise ModelError(
                f"{where}: features.godmother.gingerbread_reels: expected [1, 2, 3, 4, 5] (any reel), "
                f"got {g.gingerbread_reels}"
            )

    @staticmethod
    def _shows_two(strip: list[str], symbol: str) -> bool:
        length = len(strip)
        return any(
            strip[i] == symbol and symbol in (strip[(i + 1) % length], strip[(i + 2) % length]) for i in range(length)
        )

    def _carries(self) -> np.ndarray:
        rows, reels = self.grid
        carries = np.zeros((len(common.MODE_NAMES), reels, len(self.spec.symbols)), dtype=np.bool_)
        for mode, name in enumerate(common.MODE_NAMES):
            for reel, strip in enumerate(self.spec.reels[name]):
                for code in strip:
                    carries[mode, reel, self.spec.symbol_id(code)] = True
        return carries

    def _puss_cells(self) -> np.ndarray:
        """For each cell Puss in Boots lands on: that cell and the ones next to it (up, down,
        left, right), as a mask."""
        rows, reels = self.grid
        masks = np.zeros(self.cells, dtype=np.int64)
        for cell in range(self.cells):
            row, reel = divmod(cell, reels)
            for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
                r, c = row + dr, reel + dc
                if 0 <= r < rows and 0 <= c < reels:
                    masks[cell] |= 1 << (r * reels + c)
        return masks

    def scratch(self) -> common.Work:
        rows, reels = self.grid
        return common.make_work(rows, reels, len(self.spec.symbols))

    # -- bets -------------------------------------------------------------------------------
    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        raw = raw or {}
        reject_unknown(raw, {"stake"})
        stake = parse_choice("stake", raw.get("stake"), self.bet_options.stakes)
        return Bet(fields={"stake": stake}, unit_coins=1, total_units=LINES, coin_value=stake / LINES, lines=LINES)

    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        """The round function's bet array: the lines (all 20) and the stake in units."""
        return np.array([bet.lines, bet.total_units], dtype=np.int64)

    # -- rounds -----------------------------------------------------------------------------
    def refusal(self, work: common.Work) -> str | None:
        """Why a scripted round cannot be played, naming the script field."""
        reason, screen, row, reel, symbol = (int(x) for x in work.info[:REFUSAL_FIELDS])
        if not reason:
            return None
        if reason == common.R_CELL_TAKEN:
            return f"draws.wild_cell: cell {symbol} is WILD already"
        spin = ("the base game", "3 Little Pigs Free Spins", "Rapunzel Free Spins")[int(work.info[common.I_MODE])]
        return f"screens[{screen}][{row}][{reel}]: {self.codes[symbol]} does not land on reel {reel + 1} in {spin}"

    def parse_draw(self, name: str, raw: Any) -> int:
        f = self.features
        named = {"wish": fields.WISHES, "feature": fields.FEATURES, "pig": common.PIG_EVENTS}
        if name in named:
            if raw not in named[name]:
                raise ScriptError(f"draws.{name}: expected one of {list(named[name])}, got {raw!r}")
            return named[name].index(raw)
        if name in ("godmother", "godmother_bonus", "bean"):
            if not isinstance(raw, bool):
                what = {
                    "godmother": "true (she appears) or false",
                    "godmother_bonus": "true (her bonus follows) or false",
                    "bean": "true (it grows) or false (COLLECT)",
                }[name]
                raise ScriptError(f"draws.{name}: expected {what}, got {raw!r}")
            return 0 if raw else 1
        listed = {
            "pinocchio_wilds": list(f.godmother.pinocchio_wilds),
            "gingerbread_reel": f.godmother.gingerbread_reels,
            "offer": f.deal_maker.values,
            "egg": f.beanstalk.eggs.values,
        }
        if name in listed:
            if isinstance(raw, bool) or raw not in listed[name]:
                raise ScriptError(f"draws.{name}: expected one of {listed[name]}, got {raw!r}")
            return listed[name].index(raw)
        if name in ("puss_cell", "wild_cell"):
            last = self.cells - 1
            if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= last:
                raise ScriptError(f"draws.{name}: expected a cell 0-{last} in reading order, got {raw!r}")
            return raw
        return super().parse_draw(name, raw)
