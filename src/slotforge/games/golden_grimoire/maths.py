"""Golden Grimoire's RTP: the base game exactly, the free spins by a seeded simulation.

Base game, exactly. The expected win is the sum over the 40 lines of each line's expected
win, and a line's win after the transformations depends on little of the screen: on reel 1
the symbols of the rows the line crosses on reels 1-4 (the fill of a cell asks whether the
drawn symbol matches reel 1 in that cell's row), and on every other reel the symbol on the
line plus *whether* a Mystery stands in the rows the line crosses further left (a Mystery
fills its row toward reel 1). We group each reel's windows into those classes, enumerate every
combination of classes with its probability, build a screen that shows each class, and pay it
with the round's own kernels (:func:`~rules.transform`, :func:`~rules.screen_win`) once per
symbol a Mystery may become. Reel stops are uniform and independent, so the sum is exact.

Free spins, by simulation. The held stickies make the feature a Markov chain on 2^16 sticky
sets, too many to walk exactly, so we simulate whole features from the trigger with the
round's own free-spin kernels, averaging each spin's win exactly over the drawn symbol (which
removes the draw's share of the variance), and report a 99% interval. The trigger chance is
exact: one SCATTER on each of reels 1, 3 and 5, independent reels.

Both parts are linear in the Mystery weights, so they are also returned per drawn symbol for
the design tool.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import math
import pickle
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.bet import Bet
from slotforge.engine.jit import entry
from slotforge.engine.masks import compile_row_masks
from slotforge.engine.outcomes import simulation_outcomes
from slotforge.engine.rng import xoshiro_stream
from slotforge.engine.roles import RtpOptions
from slotforge.engine.spin import enabled_lines, land
from slotforge.games.golden_grimoire.kernels import (
    MAX_MYSTERIES,
    P_AWARD,
    P_MYSTERY,
    P_STICKY,
    P_WILD,
    POOL,
    clear,
    copy_cells,
    hold_stickies,
    make_work,
    mark_symbol,
    screen_win,
    transform,
)
from slotforge.games.golden_grimoire.rules import GoldenGrimoire
from slotforge.maths.cluster import open_cluster
from slotforge.maths.game_maths import GameMaths
from slotforge.maths.runner import run_chunks
from slotforge.maths.stats import z
from slotforge.maths.streams import plan

FREE_SEED = 2026
FREE_FEATURES = 1 << 18  # features simulated per batch
FREE_MAX_BATCHES = 24
FREE_HALF_WIDTH = 0.00045  # stop once the 99% interval of the RTP is this narrow (x total bet)


def line_classes(game: GoldenGrimoire, reelset, line: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each reel's windows grouped by what matters to ``line``; returns (columns, probs, counts).

    ``columns[reel, k]`` is a representative column of class ``k`` (cells that do not matter
    show a filler symbol that neither pays nor transforms), ``probs[reel, k]`` its probability.
    """
    rows, reels = game.grid
    mystery = int(game.tables.params[P_MYSTERY])
    filler = game.spec.symbol_id("SCATTER")
    classes: list[dict[tuple, float]] = []
    for reel in range(reels):
        length = int(reelset.lengths[reel])
        strip = reelset.strips[reel, :length]
        found: dict[tuple, float] = {}
        for stop in range(length):
            window = [int(strip[(stop + row) % length]) for row in range(rows)]
            column = [filler] * rows
            if reel == 0:
                for row in set(int(r) for r in line[: reels - 1]):
                    column[row] = window[row]
            else:
                for row in set(int(r) for r in line[1:reel]):
                    column[row] = mystery if window[row] == mystery else filler
                column[int(line[reel])] = window[int(line[reel])]
            key = tuple(column)
            found[key] = found.get(key, 0.0) + 1.0 / length
        classes.append(found)
    widest = max(len(c) for c in classes)
    columns = np.zeros((reels, widest, rows), dtype=np.int64)
    probs = np.zeros((reels, widest))
    counts = np.array([len(c) for c in classes], dtype=np.int64)
    for reel, found in enumerate(classes):
        for k, (column, p) in enumerate(found.items()):
            columns[reel, k] = column
            probs[reel, k] = p
    return columns, probs, counts


@entry
def _line_by_draw(tables, columns, probs, counts, work, spare, by_draw):
    """Expected win of the one line in ``tables``: returned for screens without a Mystery,
    added to ``by_draw[k]`` for screens with one, when the Mystery becomes ``pool[k]``."""
    reels, _, rows = columns.shape
    mystery, wild, pool = tables.params[P_MYSTERY], tables.params[P_WILD], tables.pool
    window = work.window
    log = np.zeros((0, events.WIDTH), dtype=np.int64)
    pick = np.zeros(reels, dtype=np.int64)
    plain = 0.0
    while True:
        p = 1.0
        for reel in range(reels):
            p *= probs[reel, pick[reel]]
            for row in range(rows):
                window[row, reel] = columns[reel, pick[reel], row]
        marked = mark_symbol(window, mystery)
        if marked == 0:
            plain += p * screen_win(tables, work, np.uint64(1), log)
        else:
            for k in range(pool.shape[0]):
                copy_cells(window, spare.window)
                transform(spare.window, marked, pool[k], wild)
                by_draw[k] += p * screen_win(tables, spare, np.uint64(1), log)
        reel = reels - 1
        while reel >= 0:
            pick[reel] += 1
            if pick[reel] < counts[reel]:
                break
            pick[reel] = 0
            reel -= 1
        if reel < 0:
            return plain


def base_by_draw(game: GoldenGrimoire) -> dict[str, Any]:
    """Exact base-game line RTP (x total bet): without a Mystery, and per drawn symbol.

    The enumeration takes about a minute, and it depends on neither of the Mystery's weights:
    versions that differ only in those (as the shipped ones do), or a design search over them,
    share one enumeration per process, found by :func:`base_fingerprint`."""
    key = base_fingerprint(game)
    if key not in _BASE_BY_DRAW:
        _BASE_BY_DRAW[key] = enumerate_base(game)
    return copy.deepcopy(_BASE_BY_DRAW[key])


_BASE_BY_DRAW: dict[str, dict[str, Any]] = {}  # base_by_draw's figures, by base_fingerprint


def base_fingerprint(game: GoldenGrimoire) -> str:
    """A digest of all that :func:`enumerate_base` reads: the base reels, the pays and lines,
    the kernels' parameters, the Mystery's pool, the grid and the stake (not the weights)."""
    tables = game.tables
    read = (tables.pay, tables.base, tables.rows, tables.pool, tables.params, game.grid,
            len(game.spec.symbols), game.bet_options.coins_per_level)
    return hashlib.sha256(pickle.dumps(read)).hexdigest()


def enumerate_base(game: GoldenGrimoire) -> dict[str, Any]:
    """:func:`base_by_draw`'s figures, enumerated line by line."""
    rows, reels = game.grid
    symbols = len(game.spec.symbols)
    stake = game.bet_options.coins_per_level
    plain, by_draw = 0.0, np.zeros(len(POOL))
    for line in game.tables.pay.line_rows:
        pay = game.tables.pay._replace(line_rows=line.reshape(1, reels).copy())
        tables = game.tables._replace(pay=pay, rows=compile_row_masks(pay, rows))
        columns, probs, counts = line_classes(game, game.tables.base, line)
        plain += _line_by_draw(
            tables, columns, probs, counts, make_work(rows, reels, symbols), make_work(rows, reels, symbols), by_draw
        )
    return {"plain": plain / stake, "by_draw": {code: by_draw[k] / stake for k, code in enumerate(POOL)}}


def trigger_chance(game: GoldenGrimoire) -> float:
    """Exact chance of the free-spins trigger: one SCATTER on each trigger reel."""
    base, scatter = game.tables.base, game.spec.symbol_id("SCATTER")
    chance = 1.0
    for reel in game.features.free_spins.trigger_reels:
        length = int(base.lengths[reel - 1])
        chance *= float(np.mean(base.counts[reel - 1, :length, scatter] == 1))
    return chance


@entry
def _free_features(tables, outcomes, work, spare, features, chances, results):
    """Simulate ``features`` free-spin features; per feature, the win of its spins without a
    sticky plus, per drawn symbol, the win of its spins with one.

    ``results`` rows: [sum, sum of squares] of the feature win averaged over the draw
    (by ``chances``), then the sums per drawn symbol and of the spins without a sticky.
    """
    award, wild, sticky, pool = tables.params[P_AWARD], tables.params[P_WILD], tables.params[P_STICKY], tables.pool
    enabled = enabled_lines(tables.pay.line_rows.shape[0])
    log = np.zeros((0, events.WIDTH), dtype=np.int64)
    kinds = pool.shape[0]
    per_draw = np.zeros(kinds)
    for _ in range(features):
        clear(work.held)
        plain = 0.0
        for k in range(kinds):
            per_draw[k] = 0.0
        for _spin in range(award):
            land(tables.free, outcomes, work, True)
            _, held = hold_stickies(work.window, work.held, sticky)
            if held == 0:
                plain += screen_win(tables, work, enabled, log)
                continue
            for k in range(kinds):
                copy_cells(work.window, spare.window)
                transform(spare.window, held, pool[k], wild)
                per_draw[k] += screen_win(tables, spare, enabled, log)
        value = plain
        for k in range(kinds):
            value += chances[k] * per_draw[k]
            results[2 + k] += per_draw[k]
        results[2 + kinds] += plain
        results[0] += value
        results[1] += value * value


def next_batch(options: RtpOptions, done: int, half_width: float, spent: float) -> int:
    """Features to simulate in the next batch for the report's budget; 0 when it is spent.

    By default: batches of ``FREE_FEATURES`` until the RTP's 99% half-width is at most
    ``FREE_HALF_WIDTH`` (at most ``FREE_MAX_BATCHES`` batches). ``options.rounds`` asks for that
    many features exactly; ``options.seconds`` for batches until that much time has passed.
    """
    if options.rounds is not None:
        return min(FREE_FEATURES, options.rounds - done)
    if done == 0:
        return FREE_FEATURES
    if options.seconds is not None:
        return FREE_FEATURES if spent < options.seconds else 0
    if half_width <= FREE_HALF_WIDTH or done >= FREE_FEATURES * FREE_MAX_BATCHES:
        return 0
    return FREE_FEATURES


def planned_features(options: RtpOptions, done: int, spent: float) -> int:
    """The features the report expects to simulate in all, for its progress."""
    if options.rounds is not None:
        return options.rounds
    if options.seconds is None:
        return FREE_FEATURES * FREE_MAX_BATCHES
    return max(done, int(done / spent * options.seconds)) if spent > 0 else done


@cache
def _game(model: str | None) -> GoldenGrimoire:
    """The game a batch plays (the shipped model, or a designer's file), made once per process."""
    return GoldenGrimoire(Path(model) if model else None)


def free_batch(model: str | None, seed: int, batch: int, size: int) -> tuple[int, np.ndarray]:
    """Simulate batch ``batch`` of free-spin features (``size`` of them) from its own stream
    seeded by ``(seed, batch)``: ``size`` and the sums of :func:`_free_features`. The report's
    chunk function, wherever it runs."""
    game = _game(model)
    rows, reels = game.grid
    symbols = len(game.spec.symbols)
    weights = np.diff(game.tables.free_weights, prepend=0)
    results = np.zeros(3 + len(POOL))
    outcomes = simulation_outcomes(xoshiro_stream([seed, batch]), game.grid)
    work, spare = make_work(rows, reels, symbols), make_work(rows, reels, symbols)
    _free_features(game.tables, outcomes, work, spare, size, weights / weights.sum(), results)
    return size, results


def batch_sizes(options: RtpOptions) -> Iterator[int]:
    """The batches the report may simulate, in order: exactly ``options.rounds`` features, else
    full batches until the report's rule stops it (:func:`next_batch`)."""
    if options.rounds is not None:
        yield from plan(options.rounds, FREE_FEATURES)
        return
    for _ in itertools.count() if options.seconds is not None else range(FREE_MAX_BATCHES):
        yield FREE_FEATURES


def mean_and_std(results: np.ndarray, features: int) -> tuple[float, float]:
    """The mean feature win and its sample standard deviation (coins) from the summed results."""
    mean = results[0] / features
    return mean, math.sqrt(max(results[1] / features - mean * mean, 0.0) * features / max(features - 1, 1))


def free_by_draw(game: GoldenGrimoire, seed: int = FREE_SEED, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
    """Simulated free-spins win per trigger (x total bet), with its 99% half-width, within the
    budget of ``options`` (see :func:`next_batch`), reporting progress in features.

    Batches are summed in order, so a cluster (``options.cluster``) gives the same figures."""
    stake = game.bet_options.coins_per_level
    trigger = trigger_chance(game)
    model = None if game.path == Path(game.model_file) else str(game.path)
    results = np.zeros(3 + len(POOL))
    features = 0
    started = time.perf_counter()

    def take(batch: tuple[int, np.ndarray]) -> bool:
        """Add a batch; True when the report's budget is spent."""
        nonlocal features
        features += batch[0]
        results[:] += batch[1]
        _, std = mean_and_std(results, features)
        spent = time.perf_counter() - started
        if options.progress:
            options.progress(features, planned_features(options, features, spent))
        return next_batch(options, features, z(0.99) * std / math.sqrt(features) * trigger / stake, spent) == 0

    tasks = ((model, seed, batch, size) for batch, size in enumerate(batch_sizes(options)))
    with open_cluster(options.cluster) as cluster:
        if cluster is not None:
            cluster.on_every_worker(free_batch, model, seed, 0, 1)
        run_chunks(free_batch, tasks, take, cluster=cluster)
    mean, std = mean_and_std(results, features)
    if options.progress:
        options.progress(features, features)
    kinds = len(POOL)
    return {
        "plain": results[2 + kinds] / features / stake,
        "by_draw": {code: results[2 + k] / features / stake for k, code in enumerate(POOL)},
        "mean": mean / stake,
        "ci99": z(0.99) * std / math.sqrt(features) / stake,
        "features": features,
        "seed": seed,
    }


def mix(parts: dict[str, Any], cumulative: np.ndarray) -> float:
    """A part's RTP at the given cumulative draw weights."""
    weights = np.diff(cumulative, prepend=0)
    return parts["plain"] + sum(parts["by_draw"][code] * weights[k] for k, code in enumerate(POOL)) / weights.sum()


def rtp_report(game: GoldenGrimoire, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
    """``slotforge rtp``: exact base game, simulated free spins, and the 99% interval.

    The RTP is the same at every bet (wins scale with the bet level, the coin value only turns
    coins into currency), so ``options.bet`` is checked and named in the report; the free spins'
    simulation runs within the budget of ``options``.
    """
    bet = game.parse_bet(options.bet)
    base = base_by_draw(game)
    free = free_by_draw(game, options=options)
    trigger = trigger_chance(game)
    parts = {
        "base_lines": mix(base, game.tables.base_weights),
        "free_spins": trigger * free["mean"],
    }
    half_width = trigger * free["ci99"]
    rtp = sum(parts.values())
    return {
        "game": game.code,
        "model": game.model_id,
        "method": "exact base game + simulation of the free spins (99% interval)",
        "bet": bet.as_json(),
        "rtp": rtp,
        "ci99": half_width,
        "interval99": [rtp - half_width, rtp + half_width],
        "parts": parts,
        "published_rtp": float(game.spec.rtp),
        "free_spins_frequency": trigger,
        "free_spins_one_in": 1 / trigger if trigger else None,
        "free_spins_average_win": free["mean"],
        "free_spins_simulated": free["features"],
        "free_spins_seed": free["seed"],
        "base_mystery_weights": dict(zip(POOL, np.diff(game.tables.base_weights, prepend=0).tolist(), strict=True)),
        "free_mystery_weights": dict(zip(POOL, np.diff(game.tables.free_weights, prepend=0).tolist(), strict=True)),
    }


def shares(tally: dict[str, int], prefix: str, total: int) -> dict[str, float]:
    """How often each symbol was drawn, as a share of ``total`` draws."""
    return {code: tally[f"{prefix}{code}"] / total if total else 0.0 for code in POOL}


def base_report(tally: dict[str, int], rounds: int, stake: int) -> dict[str, Any]:
    """The base game's simulated figures: RTP, Mysteries landed per spin, draws, fills."""
    screens = tally["mystery_screens"]
    landed = {n: tally[f"mysteries_{n}"] / rounds for n in range(MAX_MYSTERIES + 1) if tally[f"mysteries_{n}"]}
    return {
        "rtp": tally["base_win"] / stake,
        "mystery_rtp": tally["mystery_screen_win"] / stake,
        "mystery_frequency": screens / rounds,
        "cells_filled_per_mystery_screen": tally["cells_filled"] / screens if screens else None,
        "mysteries_landed": landed,
        "draws": shares(tally, "base_draw_", screens),
    }


def free_report(tally: dict[str, int], rounds: int, stake: int, bet: Bet) -> dict[str, Any]:
    """The free spins' simulated figures: RTP, frequency, average win, stickies, draws."""
    triggered, played = tally["free_spins_triggered"], tally["free_spins_played"]
    sticky_spins = tally["free_spins_with_stickies"]
    return {
        "rtp": tally["free_win"] / stake,
        "frequency": triggered / rounds,
        "one_in": rounds / triggered if triggered else None,
        "triggered": triggered,
        "spins_played": played,
        "average_win": tally["free_win"] / triggered / bet.total_units if triggered else None,
        "stickies_per_feature": tally["stickies_landed"] / triggered if triggered else None,
        "spins_with_stickies": sticky_spins / played if played else None,
        "draws": shares(tally, "free_draw_", sticky_spins),
    }


class Maths(GameMaths):
    """Golden Grimoire's reports: the exact base game and simulated free spins."""

    game: GoldenGrimoire

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """Exact base game; free spins simulated from the trigger with a 99% interval."""
        return rtp_report(self.game, options)

    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
        """The base game's and the free spins' simulated figures."""
        stake = rounds * bet.total_units
        return {"base_game": base_report(tally, rounds, stake), "free_spins": free_report(tally, rounds, stake, bet)}
