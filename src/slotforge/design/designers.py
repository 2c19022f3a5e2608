"""What each game leaves to its designer, as levers a search can move (:mod:`.search`).

A :class:`Designer` knows one game: the levers its rules leave free (strip composition, a
symbol's weight, a feature's chance), how lever values become a model (:meth:`Designer.build`,
always the published model with the designer's fields changed) and how to compute that model's
RTP, exactly where the game's maths is exact, else with the game's own seeded simulation
(common random numbers: every candidate is measured with the same draws, so the search sees
the change a lever makes, not the noise). A game whose label must hold in several
configurations (Moon of Fortune's Chance and Volatility Levels) is designed part by part.
"""

from __future__ import annotations

import json
import math
import random
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable
from copy import deepcopy
from functools import cached_property
from pathlib import Path
from typing import Any

from slotforge.design.search import Lever, Unreachable, Values
from slotforge.engine.game import Game
from slotforge.engine.model import load_json
from slotforge.games import load_game, maths_of


class Designer(ABC):
    """The levers of one game and how they make a model; the published model is the start."""

    code: str
    # Whether --keep-feature-rate leaves levers to move (the levers that keep the trigger chance).
    keeps_feature_rate = True
    # Whether the game's RTP report is exact (quick); a simulated one is run by certify only.
    report_is_exact = True

    def __init__(self, keep_feature_rate: bool = False) -> None:
        self.keep_feature_rate = keep_feature_rate
        self.published = load_game(self.code)
        self.raw = load_json(self.published.path)
        self.folder = Path(tempfile.mkdtemp(prefix=f"slotforge-design-{self.code}-"))
        self.made = 0

    # -- what each game says ------------------------------------------------------------------
    def parts(self) -> list[str]:
        """The configurations whose RTP the label must hold, each designed by its own levers."""
        return [""]

    def shapes(self) -> list[float]:
        """Alternative ways to spread the change (for hit-rate and volatility targets): the
        first is the default."""
        return [1.0]

    @abstractmethod
    def levers(self, part: str, shape: float) -> list[Lever]:
        """The levers of ``part``, coarse first."""

    @abstractmethod
    def apply(self, raw: dict[str, Any], values: Values, shape: float) -> None:
        """Write the lever values into ``raw`` (a copy of the published model)."""

    def rtp(self, game: Game, part: str) -> float:
        """The RTP of a candidate in ``part``: the game's own report (exact where it is)."""
        return float(maths_of(game).rtp_report()["rtp"])

    def label(self, raw: dict[str, Any], game: Game) -> None:  # noqa: B027 (most games' label is the rtp alone)
        """Set what the version's label holds beyond ``rtp`` (Wish Upon a Jackpot's range)."""

    # -- shared -------------------------------------------------------------------------------
    def build(self, values: Values, shape: float) -> dict[str, Any]:
        raw = deepcopy(self.raw)
        self.apply(raw, values, shape)
        return raw

    def load(self, raw: dict[str, Any]) -> Game:
        """A candidate model as a game (written to the design's scratch folder)."""
        self.made += 1
        path = self.folder / f"candidate-{self.made}.json"
        path.write_text(json.dumps(raw))
        return type(self.published)(path)

    def rtp_of(self, values: Values, shape: float, part: str) -> float:
        return self.rtp(self.load(self.build(values, shape)), part)

    def check_keep(self) -> None:
        if self.keep_feature_rate and not self.keeps_feature_rate:
            raise Unreachable(f"--keep-feature-rate: {self.code}'s only lever is a feature's frequency; "
                              "drop the option to move it")


def pad(counts: dict[str, int], codes: tuple[str, ...], steps: int, order: int) -> None:
    """Add ``steps`` symbols of ``codes`` (remove them when negative), one code after another
    starting at ``order``, never below one of each."""
    for step in range(abs(steps)):
        if steps > 0:
            code = codes[(order + step) % len(codes)]
            counts[code] += 1
        else:
            code = codes[(order - 1 - step) % len(codes)]
            counts[code] = max(1, counts[code] - 1)


def rebalance(weights: dict[str, int], group: tuple[str, ...], group_total: int) -> dict[str, int]:
    """Weights with ``group`` weighing ``group_total`` in all (split as before) and the other
    symbols sharing the rest as before; the total stays, rounding goes to the heaviest symbol."""
    total = sum(weights.values())
    inside = sum(weights[c] for c in group)
    outside = total - inside
    result = {c: max(1, weights[c] * group_total // inside) if c in group else 0 for c in weights}
    rest = total - sum(result[c] for c in group)
    for code in weights:
        if code not in group:
            result[code] = max(1, weights[code] * rest // outside)
    heaviest = max((c for c in weights if c not in group), key=weights.get)
    result[heaviest] += total - sum(result.values())
    return result


# -- Dynasty ------------------------------------------------------------------------------------
SEAL_STACK = 4
DYNASTY_LOW = ("NINE", "TEN", "JACK", "QUEEN", "KING", "ACE")
# The fine levers, coarse to fine: a low symbol on reel 5 changes five-of-a-kind wins alone,
# on reel 4 four- and five-of-a-kind; the free strips' weigh by the free spins' share.
DYNASTY_FINE = (("base", 4), ("free", 3), ("free", 4))


def dynasty_layout(counts: dict[str, int], seed: int) -> list[str]:
    """A strip with the given counts: SEAL in stacks, EMPEROR spread, the rest shuffled
    (seeded: the same counts always give the same strip)."""
    blocks: list[list[str]] = []
    for code, n in counts.items():
        if code == "SEAL":
            blocks += [["SEAL"] * SEAL_STACK] * (n // SEAL_STACK)
            if n % SEAL_STACK:
                blocks.append(["SEAL"] * (n % SEAL_STACK))
        else:
            blocks += [[code]] * n
    chooser = random.Random(seed)
    for _ in range(100_000):
        chooser.shuffle(blocks)
        strip = [code for block in blocks for code in block]
        if dynasty_acceptable(strip):
            return strip
    raise RuntimeError(f"no layout found for {counts}")


def dynasty_acceptable(strip: list[str]) -> bool:
    """EMPEROR at least 3 stops from the next (a reel shows one at most), no two SEAL stacks
    back to back, and no other symbol three times in a row."""
    length = len(strip)
    emperors = [i for i, code in enumerate(strip) if code == "EMPEROR"]
    for a in emperors:
        for b in emperors:
            if a != b and (b - a) % length < 3:
                return False
    for i in range(length):
        window = [strip[(i + k) % length] for k in range(SEAL_STACK + 1)]
        if window.count("SEAL") > SEAL_STACK:
            return False
        if strip[i] != "SEAL" and strip[i] == strip[(i + 1) % length] == strip[(i + 2) % length]:
            return False
    return True


def dynasty_strips(counts: dict[str, list[dict[str, int]]]) -> dict[str, list[list[str]]]:
    """Every mode's strips laid out from its counts per reel."""
    return {
        mode: [dynasty_layout(c, seed=7 * reel + len(mode)) for reel, c in enumerate(reels)]
        for mode, reels in counts.items()
    }


class DynastyDesigner(Designer):
    """Dynasty: low symbols added to (or taken from) the strips, base and free spins; the
    base strips' EMPEROR share sets the free spins' frequency, so --keep-feature-rate pads the
    free-spin strips alone. The shape is the free strips' padding per base-strip symbol."""

    code = "dynasty"

    def shapes(self) -> list[float]:
        return [0.0] if self.keep_feature_rate else [1.0, 0.0, 0.5, 2.0, 4.0]

    def levers(self, part: str, shape: float) -> list[Lever]:
        fine = [(mode, reel) for mode, reel in DYNASTY_FINE if mode == "free" or not self.keep_feature_rate]
        return [Lever("padding", -25, 400, 0)] + [Lever(f"{mode}_reel_{reel + 1}", -25, 60, 0) for mode, reel in fine]

    def apply(self, raw: dict[str, Any], values: Values, shape: float) -> None:
        counts = deepcopy(raw["design"]["counts"])
        padding = values.get("padding", 0)
        base_padding, free_padding = (0, padding) if self.keep_feature_rate else (padding, round(shape * padding))
        for mode, spread in (("base", base_padding), ("free", free_padding)):
            for reel in range(5):
                share = abs(spread) // 5 + (1 if reel < abs(spread) % 5 else 0)
                pad(counts[mode][reel], DYNASTY_LOW, share if spread >= 0 else -share, reel)
        for mode, reel in DYNASTY_FINE:
            pad(counts[mode][reel], DYNASTY_LOW, values.get(f"{mode}_reel_{reel + 1}", 0), 0)
        raw["reels"] = dynasty_strips(counts)
        raw["design"] = {**raw["design"], "counts": counts}


# -- Moon of Fortune ----------------------------------------------------------------------------
MOON_BONUS = ("CASH", "MYSTERY", "RABBIT_MYSTERY")


class MoonDesigner(Designer):
    """Moon of Fortune: per Chance Level and Volatility Level, the base game's bonus symbols'
    weight (the paying symbols share the rest as published), then CASH against MYSTERY and
    RABBIT_MYSTERY within it (the fine lever, which keeps the bonus game's frequency: the
    only lever under --keep-feature-rate). Every configuration's RTP is exact.

    The published tables weigh a million in all, where one unit of a bonus symbol's weight moves
    the RTP by up to 0.02 points: coarser than a label's tolerance. A version's tables weigh
    :data:`FINER` times as much (the same chances at the start), so each unit moves a tenth."""

    code = "moon-of-fortune"
    FINER = 10

    def parts(self) -> list[str]:
        return [f"base_x{level}_{volatility}" for level, volatility in self.published.configurations]

    def finer(self, part: str) -> dict[str, int]:
        """The published weights of ``part``'s cells, scaled by :data:`FINER`."""
        return {code: weight * self.FINER for code, weight in self.raw["cell_weights"][part][0].items()}

    def levers(self, part: str, shape: float) -> list[Lever]:
        bonus = sum(self.finer(part)[c] for c in MOON_BONUS)
        shift = Lever(f"{part}.cash_shift", -bonus // 2, bonus // 2, 0)
        bounds = (1_000 * self.FINER, 400_000 * self.FINER)
        return [shift] if self.keep_feature_rate else [Lever(f"{part}.bonus", *bounds, bonus), shift]

    def apply(self, raw: dict[str, Any], values: Values, shape: float) -> None:
        for part in self.parts():
            published = self.finer(part)
            bonus = values.get(f"{part}.bonus", sum(published[c] for c in MOON_BONUS))
            cell = rebalance(published, MOON_BONUS, bonus)
            shift = values.get(f"{part}.cash_shift", 0)
            cell["CASH"] += shift
            cell["MYSTERY"] -= shift
            if cell["CASH"] < 1 or cell["MYSTERY"] < 1:
                cell["CASH"], cell["MYSTERY"] = max(1, cell["CASH"]), max(1, cell["MYSTERY"])
                cell[max(cell, key=cell.get)] += sum(published.values()) - sum(cell.values())
            raw["cell_weights"][part] = [cell]

    def rtp(self, game: Game, part: str) -> float:
        from slotforge.games.moon_of_fortune.maths import base_chain

        level, volatility = part.removeprefix("base_x").split("_", 1)
        return float(base_chain(game, int(level), volatility).rtp)


# -- Wish Upon a Jackpot ------------------------------------------------------------------------
class WishDesigner(Designer):
    """Wish Upon a Jackpot: the chance that the Fairy Godmother's bonus follows her appearance.
    The label is the range's top (the Deal Maker's best strategy); the bottom (its worst
    strategy) moves with it and is computed for the label."""

    code = "wish-upon-a-jackpot"
    keeps_feature_rate = False

    def levers(self, part: str, shape: float) -> list[Lever]:
        numerator, denominator = self.raw["features"]["godmother"]["bonus_chance"]
        return [Lever("bonus_chance", 1, denominator - 1, numerator)]

    def apply(self, raw: dict[str, Any], values: Values, shape: float) -> None:
        chance = raw["features"]["godmother"]["bonus_chance"]
        raw["features"]["godmother"]["bonus_chance"] = [values["bonus_chance"], chance[1]]

    def label(self, raw: dict[str, Any], game: Game) -> None:
        from slotforge.games.wish_upon_a_jackpot.maths import strategy_rtps

        spread = strategy_rtps(game)
        low_end = raw["rtp_range"]["min_strategy"]
        raw["rtp_range"] = {**raw["rtp_range"], "min": f"{spread[low_end]:.4f}", "max": raw["rtp"]}


# -- Golden Grimoire ----------------------------------------------------------------------------
class GrimoireDesigner(Designer):
    """Golden Grimoire: the base game's Mystery draws WILD with the lever's weight (out of the
    table's total; the other symbols keep their shares). The RTP is linear in the weights: the
    exact base game and the seeded free-spin simulation are computed once per symbol drawn, so
    every candidate is priced with the same draws. The free spins' trigger does not move."""

    code = "golden-grimoire"
    report_is_exact = False

    def levers(self, part: str, shape: float) -> list[Lever]:
        weights = self.raw["features"]["mystery"]["weights"]
        return [Lever("wild_weight", 1, sum(weights.values()) - len(weights), weights["WILD"])]

    def apply(self, raw: dict[str, Any], values: Values, shape: float) -> None:
        weights = raw["features"]["mystery"]["weights"]
        raw["features"]["mystery"]["weights"] = rebalance(weights, ("WILD",), values["wild_weight"])

    @cached_property
    def by_draw(self) -> tuple[dict[str, Any], dict[str, Any], float]:
        from slotforge.games.golden_grimoire.maths import base_by_draw, free_by_draw, trigger_chance

        return base_by_draw(self.published), free_by_draw(self.published), trigger_chance(self.published)

    def rtp(self, game: Game, part: str) -> float:
        from slotforge.games.golden_grimoire.maths import mix

        base, free, trigger = self.by_draw
        return float(mix(base, game.tables.base_weights) + trigger * mix(free, game.tables.free_weights))


# -- Divine Fortune -----------------------------------------------------------------------------
TILT_UNIT = 100_000  # a value tilt lever of n is an exponential tilt of n / TILT_UNIT per coin of value


def tilted(weights: list[int], values: list[int], tilt: float) -> list[int]:
    """Weights leaned toward small values (``tilt`` > 0) or large ones (< 0): each times
    exp(-tilt x (value - the values' mean)), whole numbers, none below one."""
    centre = sum(values) / len(values)
    return [max(1, round(w * math.exp(-tilt * (v - centre)))) for w, v in zip(weights, values, strict=True)]


class FortuneDesigner(Designer):
    """Divine Fortune: per stake, the Jackpot Bonus game's BONUS value weights, tilted toward
    small or large values. The cell chances stay, so the Mega's chance per EUR (the rules tie
    it to the stake) and the bonus game's frequency do not move. The bonus game is exact; the
    main game's re-spins, free spins and BONUS collection are the published design's measurement
    (in its ``design.measured``, common to every candidate), so the search is exact given them
    and ``slotforge certify`` checks the result by the game's own simulation."""

    code = "divine-fortune"
    report_is_exact = False

    def parts(self) -> list[str]:
        return [entry["stake"] for entry in self.raw["features"]["bonus_game"]["by_stake"]]

    def levers(self, part: str, shape: float) -> list[Lever]:
        return [Lever(f"{part}.value_tilt", -2_000, 5_000, 0)]

    def apply(self, raw: dict[str, Any], values: Values, shape: float) -> None:
        bonus = raw["features"]["bonus_game"]
        for entry in bonus["by_stake"]:
            tilt = values.get(f"{entry['stake']}.value_tilt", 0) / TILT_UNIT
            entry["value_weights"] = tilted(entry["value_weights"], bonus["values"], tilt)

    def rtp(self, game: Game, part: str) -> float:
        from slotforge.games.divine_fortune.maths import BonusMaths, bonus_parts, mega_rate_per_eur

        measured = self.raw["design"]["measured"]
        chances = {int(n): p for n, p in measured["bonus_collected"].items()}
        mega = game.features.mega
        bonus = BonusMaths(game, self.parts().index(part))
        paid = sum(bonus_parts(bonus, chances, game.stake_units).values())
        pool = float(mega.contribution) + float(mega.seed_eur) * mega_rate_per_eur(bonus, chances)
        return sum(measured["parts"].values()) + paid + pool


DESIGNERS: dict[str, Callable[[bool], Designer]] = {
    "divine-fortune": FortuneDesigner,
    "dynasty": DynastyDesigner,
    "moon-of-fortune": MoonDesigner,
    "wish-upon-a-jackpot": WishDesigner,
    "golden-grimoire": GrimoireDesigner,
}


def designer_for(code: str, keep_feature_rate: bool) -> Designer:
    """The designer of game ``code``; a game without one is named with those that have one."""
    if code not in DESIGNERS:
        raise ValueError(f"GAME: {code} has no designer's levers yet; expected one of {sorted(DESIGNERS)}")
    designer = DESIGNERS[code](keep_feature_rate)
    designer.check_keep()
    return designer

