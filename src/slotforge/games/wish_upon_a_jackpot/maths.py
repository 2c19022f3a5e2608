"""Wish Upon a Jackpot's exact maths: every part of the RTP is computed, nothing simulated.

All figures are multiples of the stake.

- **Line wins.** Reel stops are uniform and independent, so the cell a payline crosses on a reel
  shows the strip's symbol frequencies whatever its row; a line's expected win is a sum over
  the symbol tuples of one line (:func:`slotforge.maths.exact.expected_one_line`, the engine's
  own evaluator). A cell turned WILD shows WILD, or BONUS/PRINCE with the strip's frequency (a
  BONUS or a PRINCE stays), so a line with the reels in a set ``S`` turned WILD is the same sum
  with those reels' frequencies replaced: 32 sets, each computed once (:func:`wild_set_values`).
- **The Fairy Godmother.** She appears on any spin (base, 3 Little Pigs, Rapunzel) with one
  chance, and her bonus follows with another, drawn then: a spin is a wish spin with their
  product. Her wishes choose their cells independently of the screen (and of the pigs' WILDs).
  For every wish we enumerate its cell sets (Puss in Boots' 15 cells, Pinocchio's subsets, the
  Gingerbread Man's five reels) and, for every line, which of its reels they cover: the chance of
  each set ``S`` per line, summed over the lines (:func:`wish_line_value`, :func:`wish_mean`).
- **The Fairy Tale Bonus.** Its chance is the product of reels 1, 3 and 5 showing a BONUS (a
  reel shows at most one, and a wish never removes one).
- **Deal Maker.** Backward induction over the five offers, in exact fractions: the value of
  leaving offer k is the expected value of offer k + 1 played on; the best strategy takes what is
  worth at least that, the worst what is worth less (:func:`deal_values`).
- **Jack and the Beanstalk.** The chance of reaching each level is a product of grow chances.
- **3 Little Pigs.** Pigs pick their cells uniformly among the cells not WILD and the wolf clears
  them all, so given n WILDs standing, their cells are a uniform n-set: a Markov chain over n,
  each spin paying the expectation of a uniform n-set, joined with a wish's cells on a wish spin
  (:func:`pigs_value`, :func:`with_uniform_set`).
- **Rapunzel.** A chain over the tower's levels; the spin's line win is taken conditionally on
  whether reel 5 shows PRINCE (which blocks lines through its cell), per row of reel 5, with a
  wish's cells on a wish spin.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.bet import Bet
from slotforge.engine.game import Operator
from slotforge.engine.loop import HITS, ROUNDS, TOTALS, WIN_UNITS
from slotforge.engine.rng import xoshiro_stream
from slotforge.engine.roles import RtpOptions
from slotforge.engine.round import Script
from slotforge.games.wish_upon_a_jackpot import kernels as k
from slotforge.games.wish_upon_a_jackpot.kernels import common, fields
from slotforge.games.wish_upon_a_jackpot.rules import WishUponAJackpot, deal_thresholds, deal_values
from slotforge.maths import stats
from slotforge.maths.exact import expected_one_line, one_line_table, symbol_probabilities
from slotforge.maths.game_maths import GameMaths

REELS = 5
SUBSETS = 1 << REELS
STRATEGIES = ("best", "worst", "first", "last")


# -- line wins under WILD cells ---------------------------------------------------------------
def line_value(game, probs: np.ndarray) -> float:
    """Expected win of one line, in line bets (= x stake averaged over 20 lines), when reel r
    shows symbol s with ``probs[r, s]``."""
    return expected_one_line(one_line_table(game.tables.pay, REELS), probs)


def wild_reel(game, probs: np.ndarray, reel: int) -> np.ndarray:
    """``probs`` with the line's cell on ``reel`` turned WILD (a BONUS or a PRINCE stays)."""
    wild, bonus, prince = (game.spec.symbol_id(code) for code in ("WILD", "BONUS", "PRINCE"))
    changed = probs.copy()
    changed[reel] = 0.0
    changed[reel, bonus] = probs[reel, bonus]
    changed[reel, prince] = probs[reel, prince]
    changed[reel, wild] = 1.0 - probs[reel, bonus] - probs[reel, prince]
    return changed


def wild_set_values(game, mode: str, base: np.ndarray | None = None) -> np.ndarray:
    """``[S]``: a line's expected win when the reels in bit set ``S`` show a WILD cell, the reels
    showing what ``mode``'s strips show (or ``base[reel, symbol]``, a conditioned line)."""
    if base is None:
        base = symbol_probabilities(getattr(game.tables, mode), len(game.spec.symbols))
    values = np.zeros(SUBSETS)
    for subset in range(SUBSETS):
        probs = base
        for reel in range(REELS):
            if (subset >> reel) & 1:
                probs = wild_reel(game, probs, reel)
        values[subset] = line_value(game, probs)
    return values


def line_subset(game, line: int, cells: int) -> int:
    """The reels on which ``line`` crosses a cell of mask ``cells``."""
    rows = game.tables.pay.line_rows[line]
    return sum(1 << reel for reel in range(REELS) if (cells >> (rows[reel] * REELS + reel)) & 1)


def wish_line_value(game, cell_sets: list[tuple[float, int]], values: np.ndarray) -> float:
    """Expected line win (x stake) of a screen whose cells of a mask drawn from ``cell_sets``
    ((chance, mask) pairs) are turned WILD; ``values`` is ``[S]`` for every line alike, or
    ``[line, S]``."""
    lines = game.tables.pay.line_rows.shape[0]
    per_line = np.broadcast_to(values, (lines, SUBSETS))
    total = 0.0
    for chance, cells in cell_sets:
        total += chance * sum(per_line[line, line_subset(game, line, cells)] for line in range(lines)) / lines
    return total


def wish_cell_sets(game) -> dict[str, list[tuple[float, int]]]:
    """Puss in Boots' and the Gingerbread Man's cell masks with their chances (Pinocchio's
    cells are a uniform set: :func:`uniform_set_value`)."""
    g = game.features.godmother
    puss = [(1 / game.cells, int(mask)) for mask in game.tables.puss]
    gingerbread = [
        (1 / len(g.gingerbread_reels), sum(1 << (row * REELS + reel - 1) for row in range(3)))
        for reel in g.gingerbread_reels
    ]
    return {"puss_in_boots": puss, "gingerbread_man": gingerbread}


def pinocchio_value(game, values: np.ndarray) -> float:
    """Pinocchio's line win (x stake): his WILDs are a uniform set of the drawn size (a uniform
    set treats every line alike, so ``[line, S]`` values are averaged over the lines)."""
    if values.ndim == 2:
        values = values.mean(axis=0)
    counts = game.features.godmother.pinocchio_wilds
    total = sum(counts.values())
    return sum(weight / total * uniform_set_value(values, n, game.cells) for n, weight in counts.items())


def wish_values(game, values: np.ndarray) -> dict[str, float]:
    """Each wish's expected line win (x stake) on a screen whose lines are worth ``values``
    (``[S]`` or ``[line, S]``) with the reels in ``S`` WILD."""
    sets = wish_cell_sets(game)
    found = {name: wish_line_value(game, sets[name], values) for name in sets}
    found["pinocchio"] = pinocchio_value(game, values)
    return found


def wish_mean(game, values: np.ndarray) -> float:
    """A wish spin's expected line win (x stake): the wishes weighted as the orbs reveal them."""
    g = game.features.godmother
    total = sum(g.wishes.values())
    found = wish_values(game, values)
    return sum(g.wishes[name] / total * found[name] for name in fields.WISHES)


def wish_chance(game) -> float:
    """The chance that a spin (any spin) is a wish spin: she appears and her bonus follows."""
    g = game.features.godmother
    return g.chance[0] / g.chance[1] * g.bonus_chance[0] / g.bonus_chance[1]


def with_uniform_set(values: np.ndarray, wilds: int, cells: int) -> np.ndarray:
    """``[S]``: a line's expected win with the reels in ``S`` WILD and, besides, ``wilds`` cells
    of the screen, a uniform set (the pigs' WILDs), WILD: the line's own cells hold a given
    set ``T`` of them with C(cells - 5, wilds - |T|) / C(cells, wilds)."""
    joined = np.zeros(SUBSETS)
    for inside in range(SUBSETS):
        held = bin(inside).count("1")
        if held > wilds:
            continue
        chance = math.comb(cells - REELS, wilds - held) / math.comb(cells, wilds)
        for subset in range(SUBSETS):
            joined[subset] += chance * values[subset | inside]
    return joined


def uniform_set_value(values: np.ndarray, wilds: int, cells: int) -> float:
    """A line's expected win when ``wilds`` cells of the screen, a uniform set, are WILD: the
    line's own 5 cells hold |S| of them with C(cells - 5, wilds - |S|) / C(cells, wilds)."""
    total = 0.0
    for subset in range(SUBSETS):
        inside = bin(subset).count("1")
        if inside > wilds:
            continue
        total += math.comb(cells - REELS, wilds - inside) / math.comb(cells, wilds) * values[subset]
    return total


# -- the features -----------------------------------------------------------------------------
def beanstalk_value(game) -> dict[str, float]:
    """The beanstalk's expected prize (x stake) and its chance of reaching the Golden Goose."""
    beans = game.features.beanstalk
    reach = 1.0
    value = 0.0
    for prize, (grows, collect) in zip(beans.trail, beans.grow, strict=True):
        value += reach * collect / (grows + collect) * prize
        reach *= grows / (grows + collect)
    eggs = beans.eggs
    egg = sum(v * w for v, w in zip(eggs.values, eggs.weights, strict=True)) / sum(eggs.weights)
    return {"value": value + reach * egg, "eggs_chance": reach, "egg_mean": egg}


def pigs_value(game) -> dict[str, float]:
    """3 Little Pigs' expected win (x stake): a chain over how many WILDs stand; each spin is a
    wish spin with the Fairy Godmother's chance."""
    pigs = game.features.three_little_pigs
    cells = game.cells
    values = wild_set_values(game, "pigs")
    wish = wish_chance(game)
    per_spin = np.zeros(cells + 1)
    for n in range(cells + 1):
        standing = with_uniform_set(values, n, cells)
        per_spin[n] = (1 - wish) * standing[0] + wish * wish_mean(game, standing)
    total = sum(pigs.events.values())
    move = np.zeros((cells + 1, cells + 1))
    for n in range(cells + 1):
        for event, weight in pigs.events.items():
            index = common.PIG_EVENTS.index(event)
            after = 0 if index == common.WOLF else min(cells, n + index)
            move[n, after] += weight / total
    standing = np.zeros(cells + 1)
    standing[0] = 1.0
    value = 0.0
    wilds = 0.0
    for _ in range(pigs.spins):
        standing = standing @ move
        value += float(standing @ per_spin)
        wilds += float(standing @ np.arange(cells + 1))
    return {"value": value, "wilds_per_spin": wilds / pigs.spins}


def rapunzel_value(game) -> dict[str, float]:
    """Rapunzel's expected win (x stake) and spins: each spin climbs with the chance ``q`` that
    reel 5 shows PRINCE, and pays its line win (a wish spin's with the Fairy Godmother's chance)
    at the level reached."""
    tables = game.tables
    reelset = tables.rapunzel
    prince = game.spec.symbol_id("PRINCE")
    symbols = len(game.spec.symbols)
    base = symbol_probabilities(reelset, symbols)
    length = int(reelset.lengths[4])
    strip = reelset.strips[4, :length]
    shows = reelset.counts[4, :length, prince] > 0
    q = float(shows.mean())
    lines = tables.pay.line_rows
    wish = wish_chance(game)

    def conditional(group: np.ndarray) -> float:
        """A spin's line win at x1 given that reel 5 shows a PRINCE (or not): reel 5's cell on a
        line depends on the line's row there, and on a wish spin some reels are WILD."""
        stops = np.flatnonzero(group)
        by_row = []
        for row in range(game.spec.grid.rows):
            probs = base.copy()
            probs[4] = np.bincount(strip[(stops + row) % length], minlength=symbols) / len(stops)
            by_row.append(wild_set_values(game, "rapunzel", probs))
        per_line = np.array([by_row[lines[line, 4]] for line in range(lines.shape[0])])
        return (1 - wish) * float(per_line[:, 0].mean()) + wish * wish_mean(game, per_line)

    with_prince, without = conditional(shows), conditional(~shows)
    ladder = game.features.rapunzel.multipliers
    top = len(ladder) - 1
    # value[level]: what the spins from ``level`` to the top are expected to pay.
    value = [0.0] * (top + 1)
    for level in range(top - 1, -1, -1):
        value[level] = (
            q * (with_prince * ladder[level + 1] + value[level + 1]) + (1 - q) * without * ladder[level]
        ) / q
    return {"value": value[0], "spins": top / q, "prince_chance": q}


# -- the whole game ---------------------------------------------------------------------------
def rtp_parts(game) -> dict[str, Any]:
    """Every part of the RTP (x stake), with the Deal Maker per strategy."""
    spec = game.spec
    g = game.features.godmother
    values = wild_set_values(game, "base")
    wishes = wish_values(game, values)
    bonus = spec.symbol_id("BONUS")
    trigger = 1.0
    for reel in (0, 2, 4):
        length = int(game.tables.base.lengths[reel])
        trigger *= float((game.tables.base.counts[reel, :length, bonus] > 0).mean())
    weights = game.features.fairy_tale.features
    chances = {name: weights[name] / sum(weights.values()) for name in fields.FEATURES}
    deal = deal_values(game)
    beans, pigs, tower = beanstalk_value(game), pigs_value(game), rapunzel_value(game)
    return {
        "line_plain": values[0],
        "rapunzel_line_plain": wild_set_values(game, "rapunzel")[0],
        "godmother_appears": g.chance[0] / g.chance[1],
        "godmother_bonus": g.bonus_chance[0] / g.bonus_chance[1],
        "godmother": wish_chance(game),
        "wishes": wishes,
        "wish_mean": wish_mean(game, values),
        "trigger": trigger,
        "feature_chances": chances,
        "deal": deal,
        "beanstalk": beans,
        "pigs": pigs,
        "rapunzel": tower,
    }


def strategy_parts(found: dict[str, Any], strategy: str) -> dict[str, float]:
    """The RTP's parts (x stake) under one Deal Maker strategy."""
    g = found["godmother"]
    trigger, chances = found["trigger"], found["feature_chances"]
    return {
        "base_lines": (1 - g) * found["line_plain"],
        "fairy_godmother_spins": g * found["wish_mean"],
        "deal_maker": trigger * chances["deal_maker"] * float(found["deal"][strategy]),
        "beanstalk": trigger * chances["beanstalk"] * found["beanstalk"]["value"],
        "three_little_pigs": trigger * chances["three_little_pigs"] * found["pigs"]["value"],
        "rapunzel": trigger * chances["rapunzel"] * found["rapunzel"]["value"],
    }


def strategy_rtps(game) -> dict[str, float]:
    """The exact RTP under each Deal Maker strategy."""
    found = rtp_parts(game)
    return {name: sum(strategy_parts(found, name).values()) for name in STRATEGIES}


def rtp_report(game, options: RtpOptions) -> dict[str, Any]:
    """The exact RTP of one strategy (the default: best), with every strategy's RTP beside it.
    It is the same at every stake: every prize is a multiple of the stake."""
    bet = game.parse_bet(options.bet)
    strategy = game.strategies[game.strategy_index(options.strategy)]
    found = rtp_parts(game)
    parts = strategy_parts(found, strategy)
    every = {
        name: {"rtp": sum(strategy_parts(found, name).values()), "deal_maker_mean_x_stake": float(found["deal"][name])}
        for name in STRATEGIES
    }
    report: dict[str, Any] = {
        "game": game.code,
        "model": game.model_id,
        "bet": bet.as_json(),
        "method": "exact: combinatorics over the reel strips and the wishes' cells, backward induction over the "
        "Deal Maker's offers, Markov chains over the pigs' WILDs and Rapunzel's tower",
        "strategy": strategy,
        "rtp": sum(parts.values()),
        "parts": parts,
        "published_rtp": float(game.spec.rtp),
        "strategies": every,
        "fairy_godmother_appears": found["godmother_appears"],
        "fairy_godmother_bonus_chance": found["godmother_bonus"],
        "fairy_godmother_frequency": found["godmother"],
        "base_spin_x1_x_stake": found["line_plain"],
        "rapunzel_spin_x1_x_stake": found["rapunzel_line_plain"],
        "fairy_tale_bonus_frequency": found["trigger"],
        "fairy_tale_bonus_one_in": 1 / found["trigger"],
        "feature_chances": found["feature_chances"],
        "beanstalk_value_x_stake": found["beanstalk"]["value"],
        "golden_goose_chance": found["beanstalk"]["eggs_chance"],
        "three_little_pigs_value_x_stake": found["pigs"]["value"],
        "rapunzel_value_x_stake": found["rapunzel"]["value"],
        "rapunzel_spins_mean": found["rapunzel"]["spins"],
    }
    if options.progress:
        options.progress(1, 1)
    return report


def feature_report(game, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
    """Feature frequencies and RTP parts from the simulator's tallies."""
    stake = rounds * bet.total_units
    bonus = tally["fairy_tale"]
    report: dict[str, Any] = {
        "base_game": {"rtp": tally["base_win"] / stake, "wish_spins_rtp": tally["wish_win"] / stake},
        "fairy_godmother": {
            "appearances_per_round": tally["godmother"] / rounds,
            "frequency": tally["godmother_bonus"] / rounds,
            "bonus_share_of_appearances": tally["godmother_bonus"] / tally["godmother"] if tally["godmother"] else None,
            "free_spins_wish_rtp": tally["free_wish_win"] / stake,
            **{wish: tally[f"wish_{wish}"] / rounds for wish in fields.WISHES},
        },
        "fairy_tale_bonus": {"frequency": bonus / rounds, "one_in": rounds / bonus if bonus else None},
    }
    for name in fields.FEATURES:
        count = tally[name]
        report[name] = {
            "rtp": tally[f"{name}_win"] / stake,
            "frequency": count / rounds,
            "mean_x_stake": tally[f"{name}_win"] / count / bet.total_units if count else None,
        }
    deals = tally["deal_maker"]
    report["deal_maker"]["taken_at_offer"] = {
        str(n): tally[f"deal_taken_{n}"] / deals if deals else None for n in range(1, fields.OFFERS + 1)
    }
    report["beanstalk"]["golden_goose_share"] = tally["eggs"] / tally["beanstalk"] if tally["beanstalk"] else None
    report["three_little_pigs"]["wilds_per_spin"] = (
        tally["pig_wilds"] / tally["pig_spins"] if tally["pig_spins"] else None
    )
    report["rapunzel"]["spins_per_feature"] = tally["rapunzel_spins"] / tally["rapunzel"] if tally["rapunzel"] else None
    return report


def simulate_session(game, rounds: int, strategy: str, seed: int = 1) -> dict[str, Any]:
    """``rounds`` complete rounds in this process under a Deal Maker ``strategy``: RTP, spread
    and the features' tallies."""
    bet = game.parse_bet({})
    outcomes = game.outcomes(
        xoshiro_stream([seed, game.strategy_index(strategy)]), strategy=game.strategy_index(strategy)
    )
    tally = np.zeros(len(fields.TALLY), dtype=np.int64)
    totals = np.zeros(TOTALS, dtype=np.int64)
    squares = game.simulate_rounds(
        game.tables,
        game.bet_arguments(bet, Operator()),
        game.state_array({}, bet),
        outcomes,
        events.off(),
        game.scratch(),
        rounds,
        tally,
        totals,
    )
    summary = stats.summarise(int(totals[ROUNDS]), int(totals[WIN_UNITS]), float(squares), bet.total_units)
    return {
        **summary,
        "hits": int(totals[HITS]) / rounds,
        "tally": dict(zip(fields.TALLY, (int(x) for x in tally), strict=True)),
    }


def par_sections(game, rounds: int = 20_000_000, seed: int = 1) -> list[str]:
    """The PAR sheet's strategy tables (exact, and simulated with ``rounds`` rounds each) and the
    features' tables."""
    found = rtp_parts(game)
    lines = [
        "## The Deal Maker's strategies (exact)",
        "",
        "The only choice that moves the return: TAKE IT or LEAVE IT after each of the first four offers.",
        "RTP and parts in percent of the stake; the Deal Maker's mean prize in multiples of the stake.",
        "",
        "| strategy | RTP | base lines | Fairy Godmother spins | Deal Maker | Beanstalk | 3 Little Pigs | Rapunzel | "
        "Deal Maker mean |",
        "|---" * 9 + "|",
    ]
    for name in STRATEGIES:
        parts = strategy_parts(found, name)
        cells = " | ".join(f"{value * 100:.4f}%" for value in parts.values())
        lines.append(
            f"| {name}: {game.presentation.describe_strategy(name)} | {sum(parts.values()) * 100:.4f}% | {cells} | "
            f"{float(found['deal'][name]):.4f} |"
        )
    lines += [
        "",
        f"Simulated, {rounds:,} complete rounds per strategy (seed {seed}): the RTP with its 99% interval against "
        "the exact one.",
        "",
        "| strategy | exact RTP | simulated RTP | std per round | hit frequency | Deal Maker mean (simulated) |",
        "|---" * 6 + "|",
    ]
    stake = game.parse_bet({}).total_units
    for name in STRATEGIES:
        session = simulate_session(game, rounds, name, seed)
        deals = session["tally"]["deal_maker"]
        mean = session["tally"]["deal_maker_win"] / deals / stake if deals else 0.0
        exact = sum(strategy_parts(found, name).values())
        lines.append(
            f"| {name} | {exact * 100:.4f}% | {session['rtp'] * 100:.3f}% ± {session['ci99'] * 100:.3f} | "
            f"{session['std']:.2f} | {session['hits'] * 100:.2f}% | {mean:.3f} |"
        )
    deal = found["deal"]
    take_from, take_below = deal_thresholds(game)
    lines += [
        "",
        "Continuation values (x stake) after each offer, and what each strategy takes there:",
        "",
        "| offer | best: leaving is worth | best takes from | worst: leaving is worth | worst takes below |",
        "|---" * 5 + "|",
    ]
    for offer in range(fields.OFFERS - 1):
        lines.append(
            f"| {offer + 1} | {float(deal['best_after'][offer]):.4f} | {take_from[offer] / stake:g}x | "
            f"{float(deal['worst_after'][offer]):.4f} | {take_below[offer] / stake:g}x |"
        )
    f = game.features
    lines += [
        "",
        "## Features (model tables)",
        "",
        f"- Fairy Godmother: appears on {f.godmother.chance[0]} in {f.godmother.chance[1]} spins (base and free); "
        f"her bonus follows {f.godmother.bonus_chance[0]} in {f.godmother.bonus_chance[1]} appearances: a wish on "
        f"{found['godmother'] * 100:.4f}% of spins; wishes "
        f"{dict(f.godmother.wishes)}; Pinocchio's WILDs {dict(f.godmother.pinocchio_wilds)}; the Gingerbread "
        f"Man's reels {f.godmother.gingerbread_reels}. Line win of a base wish spin (x stake): "
        + ", ".join(f"{name} {value:.4f}" for name, value in found["wishes"].items())
        + ".",
        f"- Fairy Tale Bonus: 1 in {1 / found['trigger']:.1f} base spins; features {dict(f.fairy_tale.features)}.",
        f"- Deal Maker: values {f.deal_maker.values} x stake; weights per offer {f.deal_maker.weights}.",
        f"- Beanstalk: trail {f.beanstalk.trail} x stake, grow/COLLECT weights {[list(p) for p in f.beanstalk.grow]}; "
        f"eggs {f.beanstalk.eggs.values} x stake weighted {f.beanstalk.eggs.weights}; reaches the eggs with "
        f"{found['beanstalk']['eggs_chance']:.5f}; mean {found['beanstalk']['value']:.4f} x stake.",
        f"- 3 Little Pigs: {f.three_little_pigs.spins} spins, events {dict(f.three_little_pigs.events)}; "
        f"{found['pigs']['wilds_per_spin']:.3f} WILDs standing per spin; mean {found['pigs']['value']:.4f} x stake.",
        f"- Rapunzel: enriched reels, a spin at x1 pays {found['rapunzel_line_plain']:.4f} x stake against the base "
        f"reels' {found['line_plain']:.4f}; multipliers {f.rapunzel.multipliers} by tower level; PRINCE shows with "
        f"{found['rapunzel']['prince_chance']:.4f} per spin; {found['rapunzel']['spins']:.2f} spins and "
        f"{found['rapunzel']['value']:.4f} x stake on average.",
        "",
    ]
    return lines


# -- parts measured alone (the tests hold them against the exact values) -----------------------
# A script may force draws on every spin (the Fairy Godmother and her wish), which conditions the
# spins on them.
def summary(sums: np.ndarray, stake: int) -> dict[str, float]:
    """The mean and its 99% half-width, in multiples of the stake."""
    n, total, squares = sums
    mean = total / n
    std = np.sqrt(max(squares / n - mean * mean, 0.0))
    return {"mean": mean / stake, "ci99": 2.5758 * std / np.sqrt(n) / stake}


def played(game, outcomes, part: int, times: int) -> dict[str, Any]:
    """``times`` of a part (see :func:`play_parts`) at the default stake, from ``outcomes``: the
    mean and its 99% half-width (x stake) and the simulator's tallies."""
    bet = game.parse_bet({})
    tally = np.zeros(len(fields.TALLY), dtype=np.int64)
    sums = np.zeros(3)
    arguments = game.bet_arguments(bet, Operator())
    status = k.play_parts(game.tables, arguments, outcomes, events.off(), game.scratch(), tally, part, times, sums)
    assert status == events.COMPLETE
    return {**summary(sums, bet.total_units), "tally": dict(zip(fields.TALLY, tally, strict=True))}


def base_mean(game, times: int, wish: str | None = None, seed: int = 1) -> dict[str, Any]:
    """Base spins' mean line win (x stake) with its 99% half-width: the game's own mix of spins,
    or (``wish``) every spin with the Fairy Godmother appearing, her bonus following and granting
    that wish."""
    draws: list[list[int]] = [[] for _ in game.draw_names]
    if wish is not None:
        draws[fields.DRAW_GODMOTHER] = [common.GODMOTHER_APPEARS] * times
        draws[fields.DRAW_GODMOTHER_BONUS] = [common.BONUS_FOLLOWS] * times
        draws[fields.DRAW_WISH] = [fields.WISHES.index(wish)] * times
    outcomes = game.outcomes(xoshiro_stream([seed, 9]), Script(draws=draws), strategy=0)
    return played(game, outcomes, k.BASE_SPINS, times)


def feature_mean(game, feature: str, times: int, strategy: str | None = None, seed: int = 1) -> dict[str, Any]:
    """A feature played ``times`` times on its own under ``strategy``: its mean prize and the 99%
    half-width (x stake), and the simulator's tallies."""
    part = fields.FEATURES.index(feature)
    outcomes = game.outcomes(xoshiro_stream([seed, part]), strategy=game.strategy_index(strategy))
    return played(game, outcomes, part, times)


class Maths(GameMaths):
    """Wish Upon a Jackpot's reports: exact parts per strategy, simulated sessions."""

    game: WishUponAJackpot

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """The exact RTP of the strategy asked for, with every strategy's."""
        return rtp_report(self.game, options)

    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
        """The features' simulated frequencies and RTP parts."""
        return feature_report(self.game, tally, rounds, bet)

    def par_sections(self) -> list[str]:
        """The strategies' table and the features' own sections."""
        return par_sections(self.game)
