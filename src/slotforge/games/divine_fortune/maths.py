"""Divine Fortune's maths: what is exact, what is simulated, and the RTP report.

Exact:
- the first spin of a round: a plain line game on the base strips (``maths.exact``);
- the Jackpot Bonus game, by dynamic programming over (cells filled, spins left): cells are
  exchangeable, so while the grid is not forced to stop short of full, the filled cells are a
  uniform subset of the grid and the chance of one or two full rows follows by counting;
  values are independent of positions, so the coins are E[cells] x the mean value;
- the Mega: its chance per bonus game is ``chance_per_eur`` x the stake in EUR, so its rate
  per EUR staked is (bonus frequency) x ``chance_per_eur`` at every stake; the pool returns
  the 3.7% contribution plus the 10,000 EUR seed at that rate.

Simulated (with 99% intervals): the Falling Wilds Re-Spins of the main game, the free spins
(as single free spins with their re-spins, i.i.d. because there is no retrigger), and the
frequencies of free spins awards and of BONUS collected per round. Rounds are simulated in
the RTP mode, in which the round function leaves out what is computed apart, so the interval
is that of the re-spins only.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.game import Operator
from slotforge.engine.loop import MAX_UNITS, TOTALS
from slotforge.games.divine_fortune import kernels as k
from slotforge.maths import exact, stats
from slotforge.maths.simulate import chunk_stream

RTP_ROUNDS = 420_000_000
FREE_SPINS = 80_000_000
CHUNK = 1 << 22


# -- the bonus game, exactly -----------------------------------------------------------------
@dataclass(frozen=True)
class BonusOutcome:
    """What a Jackpot Bonus game started with ``collected`` BONUS returns, on each path."""

    collected: int
    cells: Fraction  # expected cells filled without the Mega
    minor: Fraction  # chance of the Minor (exactly one full row) without the Mega
    major: Fraction  # chance of the Major (two full rows) without the Mega
    cells_distribution: dict[int, Fraction]


def final_cells(start: int, spins: int, land: Fraction, cells: int = 15) -> dict[int, Fraction]:
    """Distribution of the cells filled when a bonus game without the Mega ends.

    States (filled, spins left); every empty cell lands with chance ``land`` per spin, a spin
    that lands any BONUS resets the spins, and the last empty cell never fills.
    """
    cap = cells - 1
    states = {(min(start, cap), spins): Fraction(1)}
    ended: dict[int, Fraction] = {}
    while states:
        (filled, left), chance = max(states.items(), key=lambda item: (-item[0][0], item[0][1]))
        del states[(filled, left)]
        if left == 0:
            ended[filled] = ended.get(filled, Fraction(0)) + chance
            continue
        empty = cells - filled
        for landed in range(empty + 1):
            p = comb(empty, landed) * land**landed * (1 - land) ** (empty - landed)
            took = min(landed, cap - filled)
            target = (filled + took, spins) if took else (filled, left - 1)
            states[target] = states.get(target, Fraction(0)) + chance * p
    return ended


@cache
def full_row_chances(filled: int, rows: int = 3, reels: int = 5) -> tuple[Fraction, ...]:
    """P(exactly j full rows) when ``filled`` cells are a uniform subset of the grid."""
    ways = [0] * (rows + 1)
    for counts in np.ndindex(*([reels + 1] * rows)):
        if sum(counts) == filled:
            full = sum(1 for c in counts if c == reels)
            ways[full] += math.prod(comb(reels, c) for c in counts)
    total = comb(rows * reels, filled)
    return tuple(Fraction(w, total) for w in ways)


def bonus_outcome(collected: int, spins: int, land: Fraction) -> BonusOutcome:
    """The exact outcome of a bonus game without the Mega."""
    distribution = final_cells(collected, spins, land)
    minor = major = Fraction(0)
    for filled, chance in distribution.items():
        # 14 cells always leave exactly two rows full; below that no cell was held back, so
        # the filled cells are a uniform subset.
        rows = (Fraction(0), Fraction(0), Fraction(1), Fraction(0)) if filled == 14 else full_row_chances(filled)
        minor += chance * rows[1]
        major += chance * rows[2]
    cells = sum(f * c for f, c in distribution.items())
    return BonusOutcome(collected, cells, minor, major, distribution)


class BonusMaths:
    """The bonus game's expectations per BONUS collected, in win units."""

    def __init__(self, game) -> None:
        bonus = game.features.bonus_game
        self.mean_value = Fraction(
            sum(v * w for v, w in zip(bonus.values, bonus.value_weights, strict=True)), sum(bonus.value_weights)
        )
        land = Fraction(*bonus.land_chance)
        self.minor_units = bonus.minor_x_total_bet * game.stake_units
        self.major_units = bonus.major_x_total_bet * game.stake_units
        self.outcomes = {c: bonus_outcome(c, bonus.spins, land) for c in range(bonus.trigger, 16)}

    def coins(self, collected: int, mega: Fraction) -> Fraction:
        """Expected coin units; the Mega's path fills all 15 cells."""
        o = self.outcomes[min(collected, 15)]
        return (1 - mega) * o.cells * self.mean_value + mega * 15 * self.mean_value

    def jackpots(self, collected: int, mega: Fraction) -> tuple[Fraction, Fraction]:
        """Expected Minor and Major units (neither is paid on the Mega's path)."""
        o = self.outcomes[min(collected, 15)]
        return (1 - mega) * o.minor * self.minor_units, (1 - mega) * o.major * self.major_units

    def total(self, collected: int, mega: Fraction) -> Fraction:
        minor, major = self.jackpots(collected, mega)
        return self.coins(collected, mega) + minor + major


# -- simulation ------------------------------------------------------------------------------
_GAMES: dict[str, Any] = {}


def _game(model: str):
    if model not in _GAMES:
        from slotforge.games.divine_fortune.rules import DivineFortune

        _GAMES[model] = DivineFortune(Path(model))
    return _GAMES[model]


def _chunk(args: tuple[str, str, int, int, int, tuple[int, ...]]) -> tuple[np.ndarray, float, np.ndarray]:
    """One chunk of RTP-mode rounds (``kind`` "rounds") or of single free spins ("free")."""
    model, kind, seed, chunk, rounds, bet = args
    from slotforge.games.divine_fortune.kernels import simulate_free_spins, simulate_rounds

    game = _game(model)
    loop = simulate_rounds if kind == "rounds" else simulate_free_spins
    outcomes = game.outcomes(chunk_stream(seed, chunk), strategy=0)
    tally = np.zeros(len(k.TALLY), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    arguments = np.array(bet, dtype=np.int64)
    state = np.zeros(0, dtype=np.int64)
    squares = loop(game.tables, arguments, state, outcomes, events.off(), game.scratch(), rounds, tally, totals)
    return totals, float(squares), tally


def run(
    model: str, kind: str, rounds: int, seed: int, workers: int, bet: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray]:
    """Chunks of a simulation, summed; seeded per chunk so workers do not change figures."""
    sizes = [CHUNK] * (rounds // CHUNK) + ([rounds % CHUNK] if rounds % CHUNK else [])
    offset = 0 if kind == "rounds" else 1 << 20
    arguments = tuple(int(x) for x in bet)
    tasks = [(model, kind, seed, offset + i, n, arguments) for i, n in enumerate(sizes)]
    _chunk((model, kind, seed, 0, 1, arguments))  # compile or load the cache before forking
    if workers > 1 and len(tasks) > 1:
        with mp.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_chunk, tasks)
    else:
        parts = [_chunk(t) for t in tasks]
    totals = sum(p[0] for p in parts)
    totals[MAX_UNITS] = max(p[0][MAX_UNITS] for p in parts)
    return totals, sum(p[1] for p in parts), sum(p[2] for p in parts)


# -- reports ---------------------------------------------------------------------------------
def mega_chance(game, stake_eur: Decimal) -> Fraction:
    """The Mega's chance per bonus game at a stake."""
    return Fraction(game.mega_threshold(stake_eur), k.MEGA_SCALE)


def collected_chances(tally: np.ndarray, rounds: int) -> dict[int, Fraction]:
    """P(a round collects n BONUS and starts the bonus game), n = 3..15 (15 = 15 or more)."""
    return {3 + i: Fraction(int(tally[k.T_COLLECTED + i]), rounds) for i in range(13)}


@dataclass(frozen=True)
class FirstSpin:
    """The exact figures of a round's first spin (a plain line game on the base strips)."""

    line_rtp: float  # x total bet
    awarded_spins: float  # expected free spins awarded
    trigger: float  # chance of a free spins award
    bonus_units: float  # expected bonus game units of rounds whose first spin alone triggers


def first_spin(game, bonus: BonusMaths, mega: Fraction) -> FirstSpin:
    tables, symbols = game.tables, len(game.spec.symbols)
    line = exact.expected_line_win(tables.pay, tables.base, symbols)
    scatters = exact.count_distribution(tables.base, game.spec.symbol_id("FREESPINS"))
    coins = exact.count_distribution(tables.base, game.spec.symbol_id("BONUS"))
    trigger = game.features.free_spins.trigger
    awards = tables.awards
    spins = sum(float(p) * int(awards[min(n, len(awards) - 1)]) for n, p in enumerate(scatters) if n >= trigger)
    start = game.features.bonus_game.trigger
    units = sum(float(p) * float(bonus.total(n, mega)) for n, p in enumerate(coins) if n >= start)
    return FirstSpin(line, spins, float(scatters[trigger:].sum()), units)


def rtp_arguments(game, free_spin_units: float, bonus: BonusMaths, mega: Fraction) -> np.ndarray:
    """The RTP mode's bet array: expected free spin and bonus game values, in thousandths."""
    arguments = game.bet_arguments(game.simulation_bet(), Operator(), rtp_mode=True)
    arguments[k.B_FREE_SPIN_MILLI] = round(free_spin_units * k.MILLI)
    for n in range(3, 16):
        arguments[k.B_BONUS_MILLI + n - 3] = round(float(bonus.total(n, mega)) * k.MILLI)
    return arguments


def rtp_report(
    game, rounds: int = RTP_ROUNDS, free_spins: int = FREE_SPINS, seed: int = 2024, workers: int | None = None
) -> dict[str, Any]:
    """The RTP with every part; the interval is at 99% confidence.

    Free spins are simulated first (single spins with their re-spins). Rounds are then
    simulated in the RTP mode, where a round returns only what it adds to its exactly known
    first spin (see ``kernels.rtp_mode_win``), with free spins and bonus games replaced by
    their expectations.
    """
    started = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    units = game.stake_units
    model = str(game.path)
    bonus = BonusMaths(game)
    mega = mega_chance(game, game.simulation_bet().total_bet)
    plain = game.bet_arguments(game.simulation_bet(), Operator(), rtp_mode=True)
    fs_totals, fs_squares, _ = run(model, "free", free_spins, seed, workers, plain)
    fs = stats.summarise(int(fs_totals[0]), int(fs_totals[1]), fs_squares, units)
    free_spin_units = fs["rtp"] * units
    first = first_spin(game, bonus, mega)
    arguments = rtp_arguments(game, free_spin_units, bonus, mega)
    totals, squares, tally = run(model, "rounds", rounds, seed, workers, arguments)
    n = int(totals[0])
    added = stats.summarise(n, int(totals[1]), squares, units * k.MILLI)
    respins = int(tally[k.T_RESPIN_WIN]) / n / units
    respin_spins = int(tally[k.T_RESPIN_AWARDED]) / n
    spins = first.awarded_spins + respin_spins
    free_part = spins * fs["rtp"]
    bonus_added = added["rtp"] - respins - respin_spins * arguments[k.B_FREE_SPIN_MILLI] / k.MILLI / units
    bonus_total = first.bonus_units / units + bonus_added
    chances = collected_chances(tally, n)
    split, _ = bonus_parts(game, bonus, chances, mega)
    scale = bonus_total / sum(split.values())
    parts_bonus = {name: float(value * scale) for name, value in split.items()}
    mega_rules = game.features.mega
    bonus_rate = float(sum(chances.values()))
    rate_per_eur = bonus_rate * float(mega_rules.chance_per_eur)
    parts = {
        "base_game": first.line_rtp,
        "respins": respins,
        "free_spins": free_part,
        **parts_bonus,
        "mega_contribution": float(mega_rules.contribution),
        "mega_seed": float(mega_rules.seed_eur) * rate_per_eur,
    }
    z = stats.z(0.99)
    sigma = math.hypot(added["std"] / math.sqrt(n), spins * fs["std"] / math.sqrt(int(fs_totals[0])))
    total = sum(parts.values())
    return {
        "game": game.code,
        "model": game.model_id,
        "method": "exact first spin and bonus game; simulated re-spins and free spins (conditioned)",
        "rtp": total,
        "ci99": z * sigma,
        "ci95": stats.z(0.95) * sigma,
        "parts": parts,
        "published_rtp": float(game.spec.rtp),
        "game_rtp_without_jackpot_pool": total - parts["mega_contribution"] - parts["mega_seed"],
        "rtp_by_stake": rtp_by_stake(game, bonus, chances, total, mega),
        "frequencies": frequencies(tally, n, bonus_rate, first),
        "mega": {
            "chance_per_bonus_game_per_eur": str(mega_rules.chance_per_eur),
            "rate_per_eur_staked": rate_per_eur,
            "mean_mega_eur": float(mega_rules.seed_eur) + float(mega_rules.contribution) / rate_per_eur,
        },
        "simulation": {
            "rounds": n,
            "free_spins": int(fs_totals[0]),
            "seed": seed,
            "workers": workers,
            "added_std_per_round": added["std"],
            "free_spin_std": fs["std"],
            "free_spin_rtp_per_spin": fs["rtp"],
            "seconds": time.perf_counter() - started,
        },
    }


def bonus_parts(
    game, bonus: BonusMaths, chances: dict[int, Fraction], mega: Fraction
) -> tuple[dict[str, float], float]:
    """Bonus coins, Minor and Major as RTP parts for given chances of each BONUS count, and
    the expected bonus units per round."""
    units = game.stake_units
    coins = sum(p * bonus.coins(c, mega) for c, p in chances.items())
    minor = sum(p * bonus.jackpots(c, mega)[0] for c, p in chances.items())
    major = sum(p * bonus.jackpots(c, mega)[1] for c, p in chances.items())
    parts = {"bonus_coins": float(coins) / units, "minor": float(minor) / units, "major": float(major) / units}
    return parts, float(coins + minor + major)


def rtp_by_stake(
    game, bonus: BonusMaths, chances: dict[int, Fraction], total: float, mega: Fraction
) -> dict[str, float]:
    """The total RTP at the smallest and largest stakes: only the Mega's path (which pays all
    15 coins and no Minor or Major) changes with the stake."""
    options = game.bet_options
    stakes = {
        "min": game.parse_bet({"bet_level": options.bet_level.min, "coin_value": str(min(options.coin_values.values))}),
        "max": game.parse_bet({"bet_level": options.bet_level.max, "coin_value": str(max(options.coin_values.values))}),
    }
    _, here = bonus_parts(game, bonus, chances, mega)
    out = {}
    for name, bet in stakes.items():
        _, there = bonus_parts(game, bonus, chances, mega_chance(game, bet.total_bet))
        out[f"{name}_stake_{bet.total_bet}"] = total + (there - here) / game.stake_units
    return out


def frequencies(tally: np.ndarray, rounds: int, bonus_rate: float, first: FirstSpin) -> dict[str, Any]:
    def one_in(count: float) -> float | None:
        return rounds / count if count else None

    return {
        "hit_frequency": int(tally[k.T_HITS]) / rounds,
        "respin_rounds": int(tally[k.T_RESPIN_ROUNDS]) / rounds,
        "respin_one_in": one_in(int(tally[k.T_RESPIN_ROUNDS])),
        "respins_per_respin_round": int(tally[k.T_RESPINS]) / max(1, int(tally[k.T_RESPIN_ROUNDS])),
        "free_spins": int(tally[k.T_FREE_TRIGGERS]) / rounds,
        "free_spins_one_in": one_in(int(tally[k.T_FREE_TRIGGERS])),
        "free_spins_from_first_spin_exact": first.trigger,
        "bonus_game": bonus_rate,
        "bonus_game_one_in": 1 / bonus_rate if bonus_rate else None,
        "wild_on_wild_per_round": int(tally[k.T_WILD_ON_WILD]) / rounds,
    }


def feature_report(game, tally: dict[str, int], rounds: int) -> dict[str, Any]:
    """RTP parts and frequencies from a plain simulation's tallies (``slotforge simulate``)."""
    stake = rounds * game.stake_units
    bonus_games = tally["bonus_games"]
    return {
        "base_game": {"rtp": tally["base_win"] / stake},
        "respins": {
            "rtp": tally["respin_win"] / stake,
            "frequency": tally["respin_rounds"] / rounds,
            "respins_per_round_with_respins": tally["respins"] / max(1, tally["respin_rounds"]),
            "wild_on_wild": tally["wild_on_wild"],
        },
        "free_spins": {
            "rtp": tally["free_win"] / stake,
            "frequency": tally["free_triggers"] / rounds,
            "one_in": rounds / tally["free_triggers"] if tally["free_triggers"] else None,
            "spins_played": tally["free_spins_played"],
            "respins": tally["free_respins"],
        },
        "bonus_game": {
            "rtp_coins": tally["bonus_coins"] / stake,
            "rtp_minor": tally["minor"] * int(game.tables.params[k.P_MINOR]) / stake,
            "rtp_major": tally["major"] * int(game.tables.params[k.P_MAJOR]) / stake,
            "frequency": bonus_games / rounds,
            "one_in": rounds / bonus_games if bonus_games else None,
            "cells_per_game": tally["bonus_cells"] / bonus_games if bonus_games else None,
            "minor": tally["minor"],
            "major": tally["major"],
            "mega": tally["mega"],
        },
        "jackpot_pool": {
            "mega_contribution": float(game.features.mega.contribution),
            "mega_seed": float(game.features.mega.seed_eur * game.features.mega.chance_per_eur) * bonus_games / rounds,
        },
    }
