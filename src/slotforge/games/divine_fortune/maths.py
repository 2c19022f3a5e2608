"""Divine Fortune's maths: what is exact, what is simulated, and the RTP report.

Exact (no sampling error; the bonus game in double precision):
- the first spin of a round: a plain line game on the base strips (``maths.exact``);
- the Jackpot Bonus game at each stake, by dynamic programming over (cells filled, spins
  left). Every cell is an independent reel with the same chance, so the filled cells are a
  uniform subset of the grid whatever their number, and the chances of one, two or every row
  full follow by counting; values are independent of positions, so the coins are E[cells] x
  the stake's mean value. The Mega is every row full: its chance is the chance the grid fills;
- the jackpot pool's share: the 3.7% contribution, and the 10,000 EUR seed times the Mega's
  rate per EUR staked (bonus games per round x their Mega chance / stake).

Simulated (99% intervals): the main game's Falling Wilds Re-Spins, the free spins (as single
free spins with their re-spins, i.i.d. because there is no retrigger), and how many BONUS a
round collects. Rounds are simulated conditioned (``measure.conditioned_round``): a round
returns only what it adds to its exactly known first spin, with free spins and bonus games
replaced by their expectations, so the interval is that of the re-spins alone.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.bet import Bet, format_money
from slotforge.engine.game import Operator
from slotforge.engine.loop import MAX_UNITS, TOTALS
from slotforge.engine.roles import RtpOptions
from slotforge.games.divine_fortune.kernels import common, measure
from slotforge.games.divine_fortune.rules import DivineFortune
from slotforge.maths import exact, stats
from slotforge.maths.cluster import Cluster, open_cluster
from slotforge.maths.game_maths import GameMaths
from slotforge.maths.runner import run_chunks
from slotforge.maths.streams import chunk_stream, plan

RTP_ROUNDS = 420_000_000  # conditioned rounds of the default report
FREE_SPIN_SHARE = 5  # one single free spin simulated per this many conditioned rounds
CHUNK = 1 << 22
SEED = 2024


# -- the bonus game, exactly -----------------------------------------------------------------
@cache
def full_row_chances(filled: int, rows: int, reels: int) -> tuple[float, ...]:
    """P(exactly j full rows), j = 0..rows, when ``filled`` cells are a uniform subset of the grid."""
    ways = [0] * (rows + 1)
    for counts in np.ndindex(*([reels + 1] * rows)):
        if sum(counts) == filled:
            full = sum(1 for c in counts if c == reels)
            ways[full] += math.prod(comb(reels, c) for c in counts)
    total = comb(rows * reels, filled)
    return tuple(w / total for w in ways)


def final_cells(land: float, spins: int, cells: int) -> np.ndarray:
    """``final[start, f]``: the chance a bonus game started with ``start`` cells filled ends with
    ``f`` filled, when every empty cell lands with chance ``land`` per spin and a spin that
    lands any BONUS resets the spins (a full grid ends the game)."""
    # ending[f, s]: the distribution of the end from f cells filled with s spins left.
    ending = np.zeros((cells + 1, spins + 1, cells + 1))
    for filled in range(cells, -1, -1):
        ending[filled, 0, filled] = 1
        empty = cells - filled
        if empty == 0:
            ending[filled, :, filled] = 1
            continue
        landing = [comb(empty, n) * land**n * (1 - land) ** (empty - n) for n in range(empty + 1)]
        after_landing = sum(landing[n] * ending[filled + n, spins] for n in range(1, empty + 1))
        for left in range(1, spins + 1):
            ending[filled, left] = landing[0] * ending[filled, left - 1] + after_landing
    return ending[:, spins, :]


@dataclass(frozen=True)
class BonusOutcome:
    """What a Jackpot Bonus game started with ``collected`` BONUS returns at one stake."""

    collected: int
    cells: float  # expected cells filled at the end
    minor: float  # chance of the Minor (exactly one full row)
    major: float  # chance of the Major (two or more rows, not all)
    mega: float  # chance of the Mega (the grid full)


class BonusMaths:
    """The bonus game's expectations at one stake, per BONUS collected, in win units."""

    def __init__(self, game, stake_row: int) -> None:
        bonus = game.features.bonus_game
        reels = bonus.by_stake[stake_row]
        rows, columns = game.grid
        cells = game.cells
        weights = reels.value_weights
        self.stake = reels.stake
        self.land = reels.land_chance[0] / reels.land_chance[1]
        self.mean_value = sum(v * w for v, w in zip(bonus.values, weights, strict=True)) / sum(weights)
        self.minor_units = bonus.minor_x_total_bet * game.stake_units
        self.major_units = bonus.major_x_total_bet * game.stake_units
        self.trigger, self.cells = bonus.trigger, cells
        ends = final_cells(self.land, bonus.spins, cells)
        rows_full = np.array([full_row_chances(f, rows, columns) for f in range(cells + 1)])
        self.outcomes = {}
        for collected in range(bonus.trigger, cells + 1):
            end = ends[collected]
            chances = end @ rows_full
            self.outcomes[collected] = BonusOutcome(
                collected=collected,
                cells=float(end @ np.arange(cells + 1)),
                minor=float(chances[1]),
                major=float(chances[2:rows].sum()),
                mega=float(chances[rows]),
            )

    def outcome(self, collected: int) -> BonusOutcome:
        return self.outcomes[min(collected, self.cells)]

    def coins(self, collected: int) -> float:
        return self.outcome(collected).cells * self.mean_value

    def jackpots(self, collected: int) -> tuple[float, float]:
        """Expected Minor and Major units (the Mega is paid by the pool)."""
        o = self.outcome(collected)
        return o.minor * self.minor_units, o.major * self.major_units

    def total(self, collected: int) -> float:
        """Expected units the bonus game pays (coins, Minor, Major)."""
        return self.coins(collected) + sum(self.jackpots(collected))


# -- simulation ------------------------------------------------------------------------------
_GAMES: dict[str, Any] = {}


def _game(model: str):
    if model not in _GAMES:
        _GAMES[model] = DivineFortune(Path(model))
    return _GAMES[model]


@dataclass(frozen=True)
class Task:
    """One chunk of a maths simulation, picklable for the workers."""

    model: str
    kind: str  # "conditioned", "free" or "bonus"
    seed: int
    chunk: int
    rounds: int
    bet: tuple[int, ...]
    expected: tuple[int, ...] = ()  # conditioned: free spin then bonus games, thousandths; bonus: BONUS


def play_chunk(task: Task) -> tuple[np.ndarray, float, np.ndarray]:
    """Play one chunk: (totals, sum of squares, tally)."""
    game = _game(task.model)
    tables: Any = game.tables
    loop = measure.simulate_free_spins
    if task.kind == "conditioned":
        expected = np.array(task.expected, dtype=np.int64)
        tables = measure.Conditioned(game.tables, expected[:1], expected[1:])
        loop = measure.simulate_conditioned
    elif task.kind == "bonus":
        tables = measure.BonusStart(game.tables, np.array(task.expected, dtype=np.int64))
        loop = measure.simulate_bonus_games
    outcomes = game.outcomes(chunk_stream(task.seed, task.chunk), strategy=0)
    tally = np.zeros(len(game.tally_names), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    bet = np.array(task.bet, dtype=np.int64)
    state = np.zeros(0, dtype=np.int64)
    squares = loop(tables, bet, state, outcomes, events.off(), game.scratch(), task.rounds, tally, totals)
    return totals, float(squares), tally


# Chunk numbers of each kind of simulation, so that no two kinds share a random stream.
CHUNK_OFFSETS = {"conditioned": 0, "free": 1 << 20, "bonus": 1 << 21}


@dataclass
class Budget:
    """How much to simulate: a number of rounds, or as many as fit in some seconds; progress
    is reported to ``progress(done, total)`` in rounds (in milliseconds with a time budget)."""

    rounds: int
    seconds: float | None = None
    progress: Callable[[int, int], None] | None = None


def run(model: str, kind: str, budget: Budget, seed: int, workers: int, bet: np.ndarray,
        expected: tuple[int, ...] = (), cluster: Cluster | None = None) -> tuple[np.ndarray, float, np.ndarray]:
    """Chunks of a simulation, summed in chunk order; seeded per chunk so that neither the
    workers nor a cluster change the figures.

    With a time budget, chunks are taken in order until the time is up (at least one).
    """
    rounds = budget.rounds
    arguments = tuple(int(x) for x in bet)
    tasks = ((Task(model, kind, seed, CHUNK_OFFSETS[kind] + i, n, arguments, expected),)
             for i, n in enumerate(plan(rounds, CHUNK)))
    warm_up = Task(model, kind, seed, CHUNK_OFFSETS[kind], 1, arguments, expected)
    play_chunk(warm_up)  # compile before forking
    if cluster is not None:
        cluster.on_every_worker(play_chunk, warm_up)
    started = time.perf_counter()
    parts: list[tuple[np.ndarray, float, np.ndarray]] = []

    def take(part: tuple[np.ndarray, float, np.ndarray]) -> bool:
        """Count a chunk and report progress; True when the time budget is spent."""
        parts.append(part)
        if budget.seconds is None:
            if budget.progress:
                budget.progress(sum(int(p[0][0]) for p in parts), rounds)
            return False
        spent = time.perf_counter() - started
        if budget.progress:
            budget.progress(min(int(spent * 1000), int(budget.seconds * 1000)), int(budget.seconds * 1000))
        return spent >= budget.seconds

    run_chunks(play_chunk, tasks, take, workers=workers, cluster=cluster)
    totals = sum(p[0] for p in parts)
    totals[MAX_UNITS] = max(p[0][MAX_UNITS] for p in parts)
    return totals, sum(p[1] for p in parts), sum(p[2] for p in parts)


# -- reports ---------------------------------------------------------------------------------
def collected_chances(game, tally: np.ndarray | dict[str, int], rounds: int) -> dict[int, float]:
    """P(a round collects n BONUS and starts the bonus game); the last n counts a full grid
    and more."""
    trigger = game.features.bonus_game.trigger
    if isinstance(tally, dict):
        return {n: tally[f"collected_{n}"] / rounds for n in range(trigger, game.cells + 1)}
    return {n: int(tally[common.T_COLLECTED + n - trigger]) / rounds for n in range(trigger, game.cells + 1)}


def mega_rate_per_eur(bonus: BonusMaths, chances: dict[int, float]) -> float:
    """Megas per EUR staked at the bonus maths' stake."""
    return sum(p * bonus.outcome(n).mega for n, p in chances.items()) / float(bonus.stake)


def jackpot_share(game, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, float]:
    """The jackpot pool's share of RTP in a plain simulation, as the RTP report counts it: the
    contribution, and the seed times the Mega rate per EUR (each bonus game counted with its
    exact Mega chance given the BONUS that started it, which is the Megas' expectation)."""
    mega = game.features.mega
    bonus = BonusMaths(game, game.stake_row(bet))
    seed = float(mega.seed_eur) * mega_rate_per_eur(bonus, collected_chances(game, tally, rounds))
    contribution = float(mega.contribution)
    return {"total": contribution + seed, "mega_contribution": contribution, "mega_seed": seed}


@dataclass(frozen=True)
class FirstSpin:
    """The exact figures of a round's first spin (a plain line game on the base strips)."""

    line_rtp: float  # x total bet
    awarded_spins: float  # expected free spins awarded
    trigger: float  # chance of a free spins award
    bonus: dict[int, float]  # P(the first spin alone shows n BONUS), n >= trigger (last: full grid and more)


def first_spin(game) -> FirstSpin:
    tables, symbols = game.tables, len(game.spec.symbols)
    line = exact.expected_line_win(tables.pay, tables.base, symbols)
    scatters = exact.count_distribution(tables.base, game.spec.symbol_id("FREESPINS"))
    coins = exact.count_distribution(tables.base, game.spec.symbol_id("BONUS"))
    trigger = game.features.free_spins.trigger
    awards = tables.awards
    spins = sum(float(p) * int(awards[min(n, len(awards) - 1)]) for n, p in enumerate(scatters) if n >= trigger)
    start, cells = game.features.bonus_game.trigger, game.cells
    shown = {n: 0.0 for n in range(start, cells + 1)}
    for n, p in enumerate(coins):
        if n >= start:
            shown[min(n, cells)] += float(p)
    return FirstSpin(line, spins, float(scatters[trigger:].sum()), shown)


def conditioning(game, free_spin_units: float, bonus: BonusMaths) -> tuple[int, ...]:
    """The conditioned round's expectations, thousandths of a unit: one free spin, then the
    bonus game by BONUS collected (0 below the trigger)."""
    by_collected = [round(bonus.total(n) * measure.MILLI) if n >= bonus.trigger else 0 for n in range(game.cells + 1)]
    return (round(free_spin_units * measure.MILLI), *by_collected)


def budget_of(options: RtpOptions) -> tuple[Budget, Budget]:
    """The free spins' and the conditioned rounds' budgets: a fifth of the time, or one free
    spin per five rounds."""
    if options.seconds is not None:
        if options.seconds <= 0:
            raise ValueError(f"seconds: expected a positive time budget, got {options.seconds}")
        return Budget(1 << 40, options.seconds / 5), Budget(1 << 40, options.seconds * 4 / 5)
    rounds = options.rounds or RTP_ROUNDS
    if rounds < FREE_SPIN_SHARE:
        raise ValueError(f"rounds: expected at least {FREE_SPIN_SHARE} rounds, got {rounds}")
    return Budget(rounds // FREE_SPIN_SHARE), Budget(rounds)


def with_progress(free: Budget, rounds: Budget, progress: Callable[[int, int], None] | None) -> None:
    """One progress over both simulations: the free spins first, then the rounds."""
    if progress is None:
        return
    if free.seconds is not None:
        total = int((free.seconds + rounds.seconds) * 1000)
        free.progress = lambda done, _: progress(done, total)
        rounds.progress = lambda done, _: progress(int(free.seconds * 1000) + done, total)
        return
    total = free.rounds + rounds.rounds
    free.progress = lambda done, _: progress(done, total)
    rounds.progress = lambda done, _: progress(free.rounds + done, total)


def rtp_report(
    game, options: RtpOptions = RtpOptions(), seed: int = SEED, workers: int | None = None
) -> dict[str, Any]:
    """The RTP at a bet with every part; the interval is at 99% confidence.

    Free spins are simulated first (single spins with their re-spins), then conditioned rounds
    (see :func:`measure.conditioned_round`). ``rtp`` is what players get back, the jackpot
    pool's share included; ``rtp_without_jackpot`` what the rounds pay.
    """
    started = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    bet = game.parse_bet(options.bet) if options.bet else game.simulation_bet()
    arguments = game.bet_arguments(bet, Operator())
    units, model = game.stake_units, str(game.path)
    bonus = BonusMaths(game, game.stake_row(bet))
    free_budget, round_budget = budget_of(options)
    with_progress(free_budget, round_budget, options.progress)
    with open_cluster(options.cluster) as cluster:
        workers = cluster.slots if cluster else workers
        fs_totals, fs_squares, fs_tally = run(model, "free", free_budget, seed, workers, arguments, cluster=cluster)
        fs = stats.summarise(int(fs_totals[0]), int(fs_totals[1]), fs_squares, units)
        free_spin_units = fs["rtp"] * units
        first = first_spin(game)
        expected = conditioning(game, free_spin_units, bonus)
        totals, squares, tally = run(model, "conditioned", round_budget, seed, workers, arguments, expected, cluster)
    n = int(totals[0])
    added = stats.summarise(n, int(totals[1]), squares, units * measure.MILLI)
    respins = int(tally[common.T_RESPIN_WIN]) / n / units
    respin_spins = int(tally[common.T_RESPIN_AWARDED]) / n
    spins = first.awarded_spins + respin_spins
    chances = collected_chances(game, tally, n)
    # The bonus game's share: exact for the first spin's BONUS, plus what re-spins add
    # (simulated); split into coins, Minor and Major as the simulated chances split it.
    bonus_added = added["rtp"] - respins - respin_spins * expected[0] / measure.MILLI / units
    bonus_share = sum(p * bonus.total(c) for c, p in first.bonus.items()) / units + bonus_added
    split = bonus_parts(bonus, chances, units)
    parts_bonus = {name: value * bonus_share / sum(split.values()) for name, value in split.items()}
    mega = game.features.mega
    rate = mega_rate_per_eur(bonus, chances)
    parts = {
        "base_game": first.line_rtp,
        "respins": respins,
        "free_spins": spins * fs["rtp"],
        **parts_bonus,
        "mega_contribution": float(mega.contribution),
        "mega_seed": float(mega.seed_eur) * rate,
    }
    sigma = math.hypot(added["std"] / math.sqrt(n), spins * fs["std"] / math.sqrt(int(fs_totals[0])))
    total = sum(parts.values())
    bonus_rate = sum(chances.values())
    return {
        "game": game.code,
        "model": game.model_id,
        "bet": bet.as_json(),
        "stake": format_money(bet.total_bet),
        "method": "exact first spin and bonus game; simulated re-spins and free spins (conditioned)",
        "rtp": total,
        "ci99": stats.z(0.99) * sigma,
        "ci95": stats.z(0.95) * sigma,
        "rtp_without_jackpot": total - parts["mega_contribution"] - parts["mega_seed"],
        "parts": parts,
        "published_rtp": float(game.spec.rtp),
        "rtp_by_stake": rtp_by_stake(game, chances, total, bonus, units),
        "bonus_collected": {str(c): p for c, p in chances.items()},
        "frequencies": frequencies(tally, fs_tally, n, int(fs_totals[0]), spins, bonus_rate, first),
        "mega": {
            "chance_per_bonus_game": rate * float(bonus.stake) / bonus_rate if bonus_rate else 0.0,
            "rate_per_eur_staked": rate,
            "mean_mega_eur": float(mega.seed_eur) + float(mega.contribution) / rate if rate else None,
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


def bonus_parts(bonus: BonusMaths, chances: dict[int, float], units: int) -> dict[str, float]:
    """Bonus coins, Minor and Major as RTP parts for given chances of each BONUS count."""
    return {
        "bonus_coins": sum(p * bonus.coins(c) for c, p in chances.items()) / units,
        "minor": sum(p * bonus.jackpots(c)[0] for c, p in chances.items()) / units,
        "major": sum(p * bonus.jackpots(c)[1] for c, p in chances.items()) / units,
    }


def rtp_by_stake(game, chances: dict[int, float], total: float, here: BonusMaths, units: int) -> dict[str, float]:
    """The total RTP at every stake offered: only the bonus game (its cell reels and values)
    and the Mega's seed share change with the stake, and both are exact given the chances."""
    seed = float(game.features.mega.seed_eur)

    def stake_part(bonus: BonusMaths) -> float:
        return sum(bonus_parts(bonus, chances, units).values()) + seed * mega_rate_per_eur(bonus, chances)

    reference = stake_part(here)
    rows = game.features.bonus_game.by_stake
    return {format_money(entry.stake): total + stake_part(BonusMaths(game, row)) - reference
            for row, entry in enumerate(rows)}


def frequencies(tally: np.ndarray, fs_tally: np.ndarray, rounds: int, free_spins: int, spins_per_round: float,
                bonus_rate: float, first: FirstSpin) -> dict[str, Any]:
    def one_in(rate: float) -> float | None:
        return 1 / rate if rate else None

    main_wow = int(tally[common.T_WILD_ON_WILD]) / rounds
    free_wow = int(fs_tally[common.T_FREE_WILD_ON_WILD]) / free_spins * spins_per_round
    return {
        "hit_frequency": int(tally[common.T_HITS]) / rounds,
        "respin_rounds": int(tally[common.T_RESPIN_ROUNDS]) / rounds,
        "respin_one_in": one_in(int(tally[common.T_RESPIN_ROUNDS]) / rounds),
        "respins_per_respin_round": int(tally[common.T_RESPINS]) / max(1, int(tally[common.T_RESPIN_ROUNDS])),
        "free_spins": int(tally[common.T_FREE_TRIGGERS]) / rounds,
        "free_spins_one_in": one_in(int(tally[common.T_FREE_TRIGGERS]) / rounds),
        "free_spins_from_first_spin_exact": first.trigger,
        "bonus_game": bonus_rate,
        "bonus_game_one_in": one_in(bonus_rate),
        "wild_on_wild_main_game_one_in": one_in(main_wow),
        "wild_on_wild_free_spins_one_in": one_in(free_wow),
        "wild_on_wild_all_one_in": one_in(main_wow + free_wow),
    }


def feature_report(game, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
    """RTP parts and frequencies from a plain simulation's tallies (``slotforge simulate``)."""
    stake = rounds * game.stake_units
    bonus_games = tally["bonus_games"]

    def one_in(count: int) -> float | None:
        return rounds / count if count else None

    return {
        "base_game": {"rtp": tally["base_win"] / stake},
        "respins": {
            "rtp": tally["respin_win"] / stake,
            "frequency": tally["respin_rounds"] / rounds,
            "respins_per_round_with_respins": tally["respins"] / max(1, tally["respin_rounds"]),
            "wild_on_wild": tally["wild_on_wild"],
            "wild_on_wild_one_in": one_in(tally["wild_on_wild"]),
        },
        "free_spins": {
            "rtp": tally["free_win"] / stake,
            "frequency": tally["free_triggers"] / rounds,
            "one_in": one_in(tally["free_triggers"]),
            "spins_played": tally["free_spins_played"],
            "respins": tally["free_respins"],
            "wild_on_wild": tally["free_wild_on_wild"],
            "wild_on_wild_one_in": one_in(tally["free_wild_on_wild"]),
        },
        "bonus_game": {
            "rtp_coins": tally["bonus_coins"] / stake,
            "rtp_minor": tally["minor"] * int(game.tables.params[common.P_MINOR]) / stake,
            "rtp_major": tally["major"] * int(game.tables.params[common.P_MAJOR]) / stake,
            "frequency": bonus_games / rounds,
            "one_in": one_in(bonus_games),
            "cells_per_game": tally["bonus_cells"] / bonus_games if bonus_games else None,
            "minor": tally["minor"],
            "major": tally["major"],
            "mega": tally["mega"],
        },
    }


# -- the PAR sheet's feature tables ----------------------------------------------------------
def par_sections(game) -> list[str]:
    """The free-spin awards, the bonus game's cell reels and value weights by stake, and which
    RTP figure is which."""
    fs, bonus = game.features.free_spins, game.features.bonus_game
    lines = [
        "## Which RTP is which",
        "",
        "- **RTP** (the RTP table's total, and the simulation's first RTP row): what players get back,",
        "  the jackpot pool's share included: the Mega contribution and the seed's share (the seed",
        "  times the Mega's rate per EUR staked). This is the published figure.",
        "- **RTP without the jackpot pool**: what the rounds themselves pay (line wins, free spins,",
        "  bonus coins, Minor and Major); the Mega is paid by the pool, from the contributions.",
        "",
        "## Free spins awards",
        "",
        "| FREESPINS | free spins |",
        "|---|---|",
        *[f"| {count}{' or more' if count == max(fs.awards) else ''} | {award} |"
          for count, award in sorted(fs.awards.items())],
        "",
        f"## Jackpot Bonus game by stake ({bonus.spins} spins, reset by every landing)",
        "",
        "Every cell is a reel of its own: it lands a BONUS with the stake's chance at every spin.",
        f"P(Mega) is the chance a bonus game started with {bonus.trigger} BONUS fills the grid.",
        "BONUS value weights (coins per bet level):",
        "",
        "| stake | cell lands | P(Mega) | mean value | " + " | ".join(str(v) for v in bonus.values) + " |",
        "|---" * (4 + len(bonus.values)) + "|",
    ]
    for row, entry in enumerate(bonus.by_stake):
        maths = BonusMaths(game, row)
        num, den = entry.land_chance
        lines.append(
            f"| {format_money(entry.stake)} | {num}/{den} (1 in {den / num:.2f}) | "
            f"{maths.outcome(bonus.trigger).mega:.3g} | {maths.mean_value:.3f} | "
            + " | ".join(str(w) for w in entry.value_weights) + " |"
        )
    return [*lines, ""]


class Maths(GameMaths):
    """Divine Fortune's reports: the exact first spin and bonus game, simulated re-spins and
    free spins, and the Mega pool's share."""

    game: DivineFortune

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """The RTP with the jackpot pool's share and without it."""
        return rtp_report(self.game, options)

    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet | None = None) -> dict[str, Any]:
        """The features' simulated frequencies and RTP parts (at the simulator's bet by default)."""
        return feature_report(self.game, tally, rounds, bet or self.game.simulation_bet())

    def jackpot_share(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, float] | None:
        """The Mega pool's share of RTP, as the RTP report counts it."""
        return jackpot_share(self.game, tally, rounds, bet)

    def par_sections(self) -> list[str]:
        """The bonus game's and the stakes' sections."""
        return par_sections(self.game)
