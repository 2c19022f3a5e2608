"""Moon of Fortune's exact maths: Markov chains over counts, since every cell shares its weights.

**A count win** depends on how many of each paying symbol and WILD the non-bonus cells show.
Only the highest win pays, so the chance that the paid win reaches ``v`` is one minus the
chance that every symbol stays below ``v``; for ``w`` WILDs that is a product of per-symbol
limits, summed over the multinomial by a generating-function product (:func:`count_win_chances`).

**The base game** carries stickies from spin to spin: its state is (MYSTERY stuck, RABBIT_MYSTERY
stuck, CASH held for one spin). From a state the free cells spin; what lands either starts the
bonus game (6 or more bonus symbols) or moves the chain to its next state. A player who keeps
playing one configuration spends the stationary distribution's share of spins in each state,
so the RTP is the stationary average of a spin's expected win (:func:`base_chain`).

**Hold the Jackpot** fills cells independently: the number filled at the end follows a chain
over (cells filled, re-spins left). Given the final count, every cell's content after the
mysteries open is independent of the others, so the expected CASH, jackpots and COLLECTOR values
have closed forms: a COLLECTOR pays the CASH of every *other* cell times its mean multiplier.

The one thing not computed exactly is the 1500x cap on a round's total (it binds on the rare
round that wins more), which the RTP report measures by simulation, with its 99% interval.

**The gamble** is fair (a right pick doubles, a wrong one loses, half and half), and offered
only while the doubled win stays within the caps, so it returns exactly what is gambled: the
exact parts are the same under every strategy; the report's simulated session plays the
strategy asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.bet import Bet
from slotforge.engine.game import Operator
from slotforge.engine.loop import TOTALS
from slotforge.engine.rng import xoshiro_stream
from slotforge.engine.roles import RtpOptions
from slotforge.games.moon_of_fortune import kernels as k
from slotforge.games.moon_of_fortune.rules import MoonOfFortune
from slotforge.maths import stats
from slotforge.maths.game_maths import GameMaths

CELLS = k.CELLS
BONUS_PARTS = ("cash", "collector", "mini", "minor", "major", "grand")


def cell_chances(game, mode: str) -> dict[str, float]:
    """The chance of each symbol on a cell of ``mode`` (every cell shares the weights)."""
    tables = game.spec.cell_weights[mode]
    if len(tables) != 1:
        raise ValueError(f"cell_weights.{mode}: the exact maths needs one weight table shared by every cell")
    total = sum(tables[0].values())
    return {code: weight / total for code, weight in tables[0].items()}


# -- count wins --------------------------------------------------------------------------------
def count_win_chances(game, chances: dict[str, float], cells: int) -> dict[int, float]:
    """The distribution of the paid count win (units) on ``cells`` cells that show no bonus
    symbol, each showing a paying symbol or WILD with ``chances`` (renormalised)."""
    spec = game.spec
    paying = list(spec.count_pays)
    pays = game.tables.count.pays
    total = sum(chances.get(code, 0.0) for code in [*paying, "WILD"])
    if cells == 0 or total == 0:
        return {0: 1.0}
    wild = chances.get("WILD", 0.0) / total
    own = {code: chances.get(code, 0.0) / total for code in paying}
    ids = {code: spec.symbol_id(code) for code in paying}
    levels = sorted({int(pays[ids[c], n]) for c in paying for n in range(cells + 1)} - {0})
    below = []
    for level in levels:
        chance = 0.0
        for w in range(cells + 1):
            rest = cells - w
            ways = math.comb(cells, w) * wild**w * (1 - wild) ** rest
            if ways == 0:
                continue
            chance += ways * _all_below(own, wild, ids, pays, w, rest, level)
        below.append(chance)
    distribution = {0: below[0] if levels else 1.0}
    for i, level in enumerate(levels):
        above = 1 - below[i]
        next_above = 1 - below[i + 1] if i + 1 < len(levels) else 0.0
        distribution[level] = max(above - next_above, 0.0)
    return distribution


def _all_below(own, wild, ids, pays, w, rest, level) -> float:
    """Given ``w`` WILDs, the chance that ``rest`` non-wild cells leave every symbol paying
    less than ``level`` (a symbol with none of its own cells pays nothing)."""
    if rest == 0:
        return 1.0
    scale = 1 - wild
    poly = np.zeros(rest + 1)
    poly[0] = 1.0
    for code, p in own.items():
        q = p / scale
        term = np.zeros(rest + 1)
        for c in range(rest + 1):
            if c == 0 or pays[ids[code], c + w] < level:
                term[c] = q**c / math.factorial(c)
        poly = np.convolve(poly, term)[: rest + 1]
    return float(poly[rest] * math.factorial(rest))


# -- Hold the Jackpot -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CellValue:
    """One cell's expected contributions after the mysteries open (x base bet)."""

    cash: float = 0.0  # mean CASH value counted on the cell (0 unless it is CASH)
    collector: float = 0.0  # chance it is a COLLECTOR
    mini: float = 0.0
    minor: float = 0.0
    major: float = 0.0

    def __add__(self, other: CellValue) -> CellValue:
        return CellValue(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def times(self, n: float) -> CellValue:
        return CellValue(*(a * n for a in self.astuple()))

    def astuple(self) -> tuple[float, ...]:
        return (self.cash, self.collector, self.mini, self.minor, self.major)


class BonusMaths:
    """The bonus game of one Volatility Level."""

    def __init__(self, game, volatility: str) -> None:
        features = game.features
        level = features.volatility[volatility]
        self.jackpots = features.jackpots
        self.respins = features.respins
        values = np.array(features.cash_values, dtype=float)
        self.base_cash = float(values @ np.array(level.base_cash_weights) / sum(level.base_cash_weights))
        self.bonus_cash = float(values @ np.array(level.bonus_cash_weights) / sum(level.bonus_cash_weights))
        weights = np.arange(1, 11) * np.array(level.collector_multipliers)
        self.multiplier = float(weights.sum() / sum(level.collector_multipliers))
        mystery = {o: w / sum(level.mystery.values()) for o, w in level.mystery.items()}
        rabbit = {o: w / sum(level.rabbit_mystery.values()) for o, w in level.rabbit_mystery.items()}
        self.cell = {
            "CASH_BASE": CellValue(cash=self.base_cash),
            "CASH": CellValue(cash=self.bonus_cash),
            "MINI": CellValue(mini=1.0),
            "MINOR": CellValue(minor=1.0),
            "MAJOR": CellValue(major=1.0),
            "COLLECTOR": CellValue(collector=1.0),
        }
        self.cell["MYSTERY"] = self.opened(mystery)
        self.cell["RABBIT_MYSTERY"] = self.opened(rabbit)
        landing = cell_chances(game, f"bonus_{volatility}")
        self.land = 1 - landing.get("BLANK", 0.0)
        new = CellValue()
        for code, chance in landing.items():
            if code != "BLANK":
                new = new + self.cell[code].times(chance / self.land)
        self.new = new
        # A COLLECTOR collects the CASH of the *other* cells: the product of a cell's own
        # marginals is what the sum over all pairs counts too much.
        self.new_overlap = new.cash * new.collector

    def opened(self, outcomes: dict[str, float]) -> CellValue:
        value = CellValue()
        for outcome, chance in outcomes.items():
            value = value + self.cell[outcome].times(chance)
        return value

    @cache  # noqa: B019  (one instance per game and level, kept for the report)
    def filled(self, start: int) -> tuple[float, ...]:
        """The distribution of cells filled at the end of a bonus game started with ``start``."""
        final = np.zeros(CELLS + 1)

        @cache
        def spread(filled: int, left: int) -> tuple[float, ...]:
            out = np.zeros(CELLS + 1)
            if filled == CELLS or left == 0:
                out[filled] = 1.0
                return tuple(out)
            empty = CELLS - filled
            for landed in range(empty + 1):
                chance = math.comb(empty, landed) * self.land**landed * (1 - self.land) ** (empty - landed)
                after = spread(filled + landed, self.respins) if landed else spread(filled, left - 1)
                out += chance * np.array(after)
            return tuple(out)

        final += spread(start, self.respins)
        return tuple(final)

    @cache  # noqa: B019
    def expected(self, cash: int, mystery: int, rabbit: int) -> dict[str, float]:
        """The bonus game's expected prize by part (x base bet), started with ``cash`` base
        CASH, ``mystery`` MYSTERY and ``rabbit`` RABBIT_MYSTERY."""
        start = cash + mystery + rabbit
        initial = (self.cell["CASH_BASE"].times(cash) + self.cell["MYSTERY"].times(mystery)
                   + self.cell["RABBIT_MYSTERY"].times(rabbit))
        overlap0 = sum(n * self.cell[c].cash * self.cell[c].collector
                       for c, n in (("MYSTERY", mystery), ("RABBIT_MYSTERY", rabbit)))
        parts = dict.fromkeys(BONUS_PARTS, 0.0)
        for final, chance in enumerate(self.filled(start)):
            if chance == 0:
                continue
            if final == CELLS:
                parts["grand"] += chance * self.jackpots["GRAND"]
                continue
            added = final - start
            cells = initial + self.new.times(added)
            others = cells.collector * cells.cash - overlap0 - added * self.new_overlap
            parts["cash"] += chance * cells.cash
            parts["collector"] += chance * self.multiplier * others
            parts["mini"] += chance * cells.mini * self.jackpots["MINI"]
            parts["minor"] += chance * cells.minor * self.jackpots["MINOR"]
            parts["major"] += chance * cells.major * self.jackpots["MAJOR"]
        return parts


# -- the base game ---------------------------------------------------------------------------------
@dataclass
class ChainResult:
    """A configuration's exact figures, per spin and in base bets."""

    rtp: float  # of the stake
    parts: dict[str, float]  # of the stake
    trigger: float  # bonus games per spin
    sticky_mean: float  # stickies on the grid per spin
    sticky_share: float  # share of spins with at least one sticky
    held_share: float  # share of spins with CASH held
    states: int


def base_states(trigger: int) -> list[tuple[int, int, int]]:
    """(MYSTERY, RABBIT_MYSTERY, CASH held) a spin can start from."""
    states = []
    for held in (0, 4, 5):
        for m in range(trigger):
            for r in range(trigger - m):
                if m + r + held < trigger:
                    states.append((m, r, held))
    return states


def base_chain(game, chance_level: int, volatility: str) -> ChainResult:
    """The exact RTP of a player who keeps playing one configuration."""
    features = game.features
    trigger, (hold_min, hold_max) = features.trigger, features.cash_held
    chances = cell_chances(game, f"base_x{chance_level}_{volatility}")
    pc, pm, pr = (chances.get(c, 0.0) for c in ("CASH", "MYSTERY", "RABBIT_MYSTERY"))
    bonus = BonusMaths(game, volatility)
    wins = {n: count_win_chances(game, chances, n) for n in range(CELLS + 1)}
    mean_win = {n: sum(u * p for u, p in d.items()) / 10 for n, d in wins.items()}
    states = base_states(trigger)
    index = {s: i for i, s in enumerate(states)}
    move = np.zeros((len(states), len(states)))
    per_state = np.zeros((len(states), 1 + len(BONUS_PARTS)))
    triggers = np.zeros(len(states))
    for s, (m, r, held) in enumerate(states):
        spun = CELLS - m - r - held
        for c in range(spun + 1):
            for a in range(spun - c + 1):
                for b in range(spun - c - a + 1):
                    rest = spun - c - a - b
                    chance = (math.factorial(spun) / (math.factorial(c) * math.factorial(a) * math.factorial(b)
                              * math.factorial(rest)) * pc**c * pm**a * pr**b * (1 - pc - pm - pr) ** rest)
                    if chance == 0:
                        continue
                    per_state[s, 0] += chance * mean_win[rest]
                    if m + r + held + c + a + b >= trigger:
                        triggers[s] += chance
                        parts = bonus.expected(held + c, m + a, r + b)
                        per_state[s, 1:] += chance * np.array([parts[p] for p in BONUS_PARTS])
                        move[s, index[(0, 0, 0)]] += chance
                    else:
                        kept = c if hold_min <= c <= hold_max else 0
                        move[s, index[(m + a, r + b, kept)]] += chance
    stationary = stationary_distribution(move)
    stake = chance_level
    per_spin = stationary @ per_state
    parts = {"count_wins": per_spin[0] / stake}
    parts.update({part: value / stake for part, value in zip(BONUS_PARTS, per_spin[1:], strict=True)})
    stuck = np.array([m + r for m, r, _ in states])
    return ChainResult(
        rtp=sum(parts.values()),
        parts=parts,
        trigger=float(stationary @ triggers),
        sticky_mean=float(stationary @ stuck),
        sticky_share=float(stationary @ (stuck > 0)),
        held_share=float(stationary @ np.array([h > 0 for _, _, h in states])),
        states=len(states),
    )


def stationary_distribution(move: np.ndarray) -> np.ndarray:
    """The distribution ``x`` with ``x @ move == x`` and total 1."""
    n = move.shape[0]
    system = np.vstack([move.T - np.eye(n), np.ones(n)])
    target = np.zeros(n + 1)
    target[-1] = 1.0
    solution, *_ = np.linalg.lstsq(system, target, rcond=None)
    return solution


# -- simulation ----------------------------------------------------------------------------------
def simulate_session(game, bet: Bet, rounds: int, seed: int = 1, strategy: str | None = None) -> dict[str, Any]:
    """A player's session of ``rounds`` rounds at one configuration, stickies carried."""
    outcomes = game.outcomes(xoshiro_stream([seed, 0]), strategy=game.strategy_index(strategy))
    tally = np.zeros(len(k.TALLY), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    squares = game.simulate_rounds(game.tables, game.bet_arguments(bet, Operator()), game.state_array({}, bet),
                                   outcomes, events.off(), game.scratch(), rounds, tally, totals)
    summary = stats.summarise(int(totals[0]), int(totals[1]), float(squares), bet.total_units)
    return {"rounds": rounds, **summary, "tally": dict(zip(k.TALLY, (int(x) for x in tally), strict=True))}


# -- reports ---------------------------------------------------------------------------------------
def rtp_report(game, options: RtpOptions) -> dict[str, Any]:
    """The RTP of one configuration: exact chains, and the cap's effect simulated."""
    bet = game.parse_bet(options.bet)
    chance_level, volatility = bet.fields["chance_level"], bet.fields["volatility"]
    chain = base_chain(game, chance_level, volatility)
    rounds = options.rounds or 2_000_000
    if options.seconds:
        rounds = max(100_000, int(options.seconds * 1_000_000))
    strategy = game.strategies[game.strategy_index(options.strategy)]
    session = simulate_session(game, bet, rounds, strategy=strategy)
    if options.progress:
        options.progress(rounds, rounds)
    cap = cap_effect(session["tally"], rounds, bet.total_units)
    parts = {**chain.parts, "max_win_cap": -cap["mean"]}
    return {
        "game": game.code,
        "model": game.model_id,
        "bet": bet.as_json(),
        "method": (f"exact: Markov chains over sticky and held counts (base game, {chain.states} states) and over "
                   f"cells filled (bonus game); the 1500x cap's effect simulated over {rounds:,} rounds "
                   f"(ci99 its 99% interval)"),
        "strategy": strategy,
        "gamble": "fair: it returns exactly what is gambled, so the exact parts hold under every strategy; "
                  f"the simulated session plays {strategy!r} ({game.presentation.describe_strategy(strategy)})",
        "rtp": sum(parts.values()),
        "ci99": cap["ci99"],
        "parts": parts,
        "max_win_cap_ci99": cap["ci99"],
        "max_win_cap_rounds": cap["rounds"],
        "published_rtp": float(game.spec.rtp),
        "bonus_frequency": chain.trigger,
        "bonus_one_in": 1 / chain.trigger if chain.trigger else None,
        "sticky_mean_per_spin": chain.sticky_mean,
        "spins_with_stickies": chain.sticky_share,
        "spins_with_cash_held": chain.held_share,
        "simulated_rtp": session["rtp"],
        "simulated_ci99": session["ci99"],
        "simulated_std": session["std"],
    }


def cap_effect(tally: dict[str, int], rounds: int, stake_units: int) -> dict[str, float]:
    """What the 1500x cap takes per round (x stake), with its 99% interval (the normal
    approximation over the rounds: z = 2.5758), from a session's tallies."""
    mean = tally["capped"] / rounds
    variance = max(tally["capped_squares"] / rounds - mean * mean, 0.0)
    return {
        "mean": mean / stake_units,
        "ci99": 2.5758 * math.sqrt(variance / rounds) / stake_units,
        "rounds": tally["capped_rounds"],
    }


def feature_report(game, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
    """Feature frequencies and RTP parts from the simulator's tallies."""
    stake = rounds * bet.total_units
    games = tally.get("bonus_games", 0)
    return {
        "base_game": {"rtp": tally["base_win"] / stake},
        "hold_the_jackpot": {
            "frequency": games / rounds,
            "one_in": rounds / games if games else None,
            **{part: tally[part] / stake for part in BONUS_PARTS},
            "cells_per_game": tally["bonus_cells"] / games if games else None,
            "spins_per_game": tally["bonus_spins"] / games if games else None,
        },
        "max_win_cap": -tally["capped"] / stake,
        "mysteries_stuck_per_round": tally["mysteries_stuck"] / rounds,
        "rounds_starting_with_cells_held": tally["held_spins"] / rounds,
        "cash_held_frequency": tally["cash_held"] / rounds,
        "win_distribution": {name[5:]: tally[name] / rounds for name in k.TALLY if name.startswith("wins_")},
    }


def par_sections(game, rounds: int = 2_000_000, seed: int = 1) -> list[str]:
    """The PAR sheet's figures per configuration: the exact RTP and its parts, the bonus game's
    frequency, how stickies persist; and per Volatility Level (at Chance Level off) the spread
    and the distribution of round wins from a simulated session of ``rounds`` rounds."""
    lines = [
        "## Every configuration (exact)",
        "",
        "RTP and parts in percent of the stake; the bonus game's frequency per spin; stickies: the",
        "mean number of MYSTERY and RABBIT_MYSTERY standing on the grid per spin and the share of",
        "spins with at least one.",
        "",
        "| Chance Level | Volatility | RTP | count wins | CASH | COLLECTOR | MINI | MINOR | MAJOR | GRAND | "
        "bonus game | stickies per spin | spins with stickies |",
        "|---" * 13 + "|",
    ]
    for chance, volatility in game.configurations:
        chain = base_chain(game, chance, volatility)
        parts = " | ".join(f"{chain.parts[p] * 100:.3f}%" for p in ("count_wins", *BONUS_PARTS))
        lines.append(f"| x{chance} | {volatility} | {chain.rtp * 100:.4f}% | {parts} | 1 in {1 / chain.trigger:.1f} | "
                     f"{chain.sticky_mean:.2f} | {chain.sticky_share * 100:.1f}% |")
    lines += [
        "",
        f"## Volatility Levels: spread and win distribution (Chance Level off, {rounds:,} rounds each, seed {seed})",
        "",
        "Round wins in multiples of the stake; shares of rounds.",
        "",
        "| Volatility | RTP (simulated, 99%) | std per round | no win | up to 1x | 1-5x | 5-20x | 20-100x | "
        "100-500x | over 500x |",
        "|---" * 10 + "|",
    ]
    for volatility in ("low", "standard", "high"):
        bet = game.parse_bet({"volatility": volatility})
        session = simulate_session(game, bet, rounds, seed)
        shares = " | ".join(f"{session['tally'][name] / rounds * 100:.4f}%" for name in k.TALLY
                            if name.startswith("wins_"))
        lines.append(f"| {volatility} | {session['rtp'] * 100:.3f}% ± {session['ci99'] * 100:.3f} | "
                     f"{session['std']:.2f} | {shares} |")
    return [*lines, ""]


class Maths(GameMaths):
    """Moon of Fortune's reports: exact chains per configuration, the cap's effect simulated."""

    game: MoonOfFortune

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """The RTP of one configuration (Chance and Volatility Level)."""
        return rtp_report(self.game, options)

    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
        """The features' simulated frequencies and RTP parts."""
        return feature_report(self.game, tally, rounds, bet)

    def rtp_configurations(self) -> list[dict[str, Any]]:
        """Every Chance Level at every Volatility Level (the base bet only scales the wins)."""
        return [{"chance_level": level, "volatility": volatility} for level, volatility in self.game.configurations]

    def par_sections(self) -> list[str]:
        """Every configuration's figures."""
        return par_sections(self.game)
