"""Golden Grimoire's compiled round: a spin lands a screen, turns every Mystery on it into one
drawn symbol, fills rows toward reel 1 (see :func:`transform`) and only then pays its lines;
three SCATTERs (one on each of reels 1, 3 and 5) start 8 free spins with Sticky Mysteries.

Units: a win unit is one coin at bet level 1; the stake is 20 units.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet, leading_line_wins, line_wins, popcount, stop_line_wins
from slotforge.engine.jit import feature, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.masks import RowMasks, copy_stop_masks, recolour, screen_masks
from slotforge.engine.outcomes import draw_weighted
from slotforge.engine.spin import enabled_lines, land

# The symbols a Mystery may become, in draw order: WILD, the medium and the low symbols.
POOL = ("WILD", "SNAKE", "BEETLE", "HEART", "DIAMOND", "CLUB", "SPADE")
MAX_MYSTERIES = 12  # cells of reels 3-5: the most Mysteries a (forced) base screen can show


class Tables(NamedTuple):
    pay: PayTable
    base: ReelSet
    free: ReelSet
    rows: RowMasks
    base_cells: np.ndarray  # int64[reels, longest + rows]: base strips, wrapped to read windows without a modulo
    pool: np.ndarray  # int64[k]: symbol ids a Mystery may become
    base_weights: np.ndarray  # int64[k]: cumulative draw weights in the base game
    free_weights: np.ndarray  # int64[k]: cumulative draw weights in free spins
    params: np.ndarray  # int64: see the P_* indexes


class Work(NamedTuple):
    """Work arrays of one round (the engine's Scratch fields plus the feature's own)."""

    stops: np.ndarray  # int64[reels]
    window: np.ndarray  # int64[rows, reels]: the screen, transformed in place
    masks: np.ndarray  # uint64[reels, 1, symbols]
    counts: np.ndarray  # int64[reels, 1, symbols]
    zero_stops: np.ndarray  # int64[reels]
    landed: np.ndarray  # int64[rows, reels]: the screen as it landed (recorded rounds only)
    held: np.ndarray  # int64[rows, reels]: 1 where a Sticky Mystery is held


P_AWARD, P_MYSTERY, P_STICKY, P_WILD, P_SCATTER, P_TRIGGER_REELS = range(6)
B_LINES, B_TOTAL_UNITS = range(2)
MODE_BASE, MODE_FREE = 0, 1
DRAW_MYSTERY = 0
# FEATURE event codes; their fields (after the code, in the order emitted) in FEATURE_FIELDS.
F_LANDED = 1
F_MYSTERY = 2
F_STICKY = 3
F_FREE_TOTAL = 4
FEATURE_FIELDS = {
    F_LANDED: (),  # the landed screen, in the cell columns
    F_MYSTERY: ("symbol", "cells", "filled", "sticky"),  # cell bitmasks of the Mysteries and the fill; sticky 0/1
    F_STICKY: ("landed", "held"),  # cell bitmasks: newly landed, held
    F_FREE_TOTAL: ("units",),  # the free spins' total win
}

TALLY = (
    ("base_win", "free_win", "free_spins_triggered", "free_spins_played", "mystery_screens",
     "mystery_screen_win", "cells_filled", "stickies_landed", "free_spins_with_stickies")
    + tuple(f"mysteries_{n}" for n in range(MAX_MYSTERIES + 1))
    + tuple(f"base_draw_{code}" for code in POOL)
    + tuple(f"free_draw_{code}" for code in POOL)
)
(T_BASE_WIN, T_FREE_WIN, T_TRIGGERED, T_PLAYED, T_MYSTERY_SCREENS, T_MYSTERY_WIN, T_FILLED,
 T_STICKIES, T_STICKY_SPINS) = range(9)
T_MYSTERIES = 9
T_BASE_DRAW = T_MYSTERIES + MAX_MYSTERIES + 1
T_FREE_DRAW = T_BASE_DRAW + len(POOL)


@kernel
def mark_symbol(window, symbol):
    """The cells showing ``symbol``, as a bitmask of ``row * reels + reel``."""
    rows, reels = window.shape
    marked = 0
    for row in range(rows):
        for reel in range(reels):
            if window[row, reel] == symbol:
                marked |= 1 << (row * reels + reel)
    return marked


@kernel
def transform(window, marked, symbol, wild):
    """Turn every ``marked`` cell (a bitmask) into ``symbol`` and fill rows toward reel 1.

    For each marked cell, separately: when ``symbol`` is WILD, or equals the reel-1 symbol of
    the same row, every cell between reel 1 and the marked one becomes ``symbol`` (reel 1 keeps
    its own). Reel 1 never changes, so the order in which marked cells are taken does not
    matter, and a row's fill is that of its rightmost marked cell. Returns the filled cells
    (those changed by a fill, marked ones excluded) as a bitmask.
    """
    rows, reels = window.shape
    row_mask = (1 << reels) - 1
    filled = 0
    for row in range(rows):
        bits = (marked >> (row * reels)) & row_mask
        if bits == 0:
            continue
        rightmost = 0
        for reel in range(1, reels):
            if (bits >> reel) & 1:
                window[row, reel] = symbol
                rightmost = reel
        if symbol == wild or symbol == window[row, 0]:
            for left in range(1, rightmost):
                window[row, left] = symbol
                filled |= 1 << (row * reels + left)
    return filled & ~marked


@kernel
def screen_win(tables, work, enabled, log):
    """Line wins of the (transformed) screen in ``work.window``, in units."""
    screen_masks(work.window, tables.rows, work.masks)
    return line_wins(tables.pay, work.masks, work.zero_stops, enabled, 1, log)


@kernel
def changed_screen_win(tables, work, enabled, changed, log):
    """Line wins of a drawn screen whose ``changed`` cells were transformed, in units.

    Starts from the masks precomputed at the drawn stops and recolours only the changed
    cells: the same masks :func:`screen_win` would build, at a fraction of the cost.
    """
    base, cells, window, masks, stops = tables.base, tables.base_cells, work.window, work.masks, work.stops
    reels = window.shape[1]
    copy_stop_masks(base.masks, stops, masks)
    while changed:
        lowest = changed & -changed
        cell = popcount(np.uint64(lowest - 1))
        row = cell // reels
        reel = cell - row * reels
        recolour(masks, tables.rows, reel, row, cells[reel, stops[reel] + row], window[row, reel])
        changed ^= lowest
    # Reel 1 never transforms, so the line leaders of the drawn stop still hold.
    first = stops[0]
    leaders, leader_counts = base.leaders, base.leader_counts
    return leading_line_wins(tables.pay, masks, work.zero_stops, enabled, 1, log, leaders[first], leader_counts[first])


@kernel
def scatter_trigger(window, scatter, reel_mask):
    """True when each trigger reel shows exactly one SCATTER."""
    rows, reels = window.shape
    for reel in range(reels):
        if (reel_mask >> reel) & 1:
            n = 0
            for row in range(rows):
                if window[row, reel] == scatter:
                    n += 1
            if n != 1:
                return False
    return True


@kernel
def stops_trigger(counts, stops, scatter, reel_mask):
    """:func:`scatter_trigger` of a drawn screen, from the per-stop symbol counts."""
    for reel in range(stops.shape[0]):
        if (reel_mask >> reel) & 1 and counts[reel, stops[reel], scatter] != 1:
            return False
    return True


@kernel
def read_window(cells, stops, window, symbol):
    """Read the window at ``stops`` from wrapped strips (see :func:`wrapped_strips`); returns
    the cells showing ``symbol`` as a bitmask, like :func:`mark_symbol`, in the same pass."""
    rows, reels = window.shape
    marked = 0
    for reel in range(reels):
        stop = stops[reel]
        for row in range(rows):
            code = cells[reel, stop + row]
            window[row, reel] = code
            if code == symbol:
                marked |= 1 << (row * reels + reel)
    return marked


@kernel
def copy_cells(source, target):
    rows, reels = source.shape
    for row in range(rows):
        for reel in range(reels):
            target[row, reel] = source[row, reel]


@kernel
def emit_landed(log, landed):
    """A FEATURE row carrying the screen as it landed, before any transformation."""
    row = events.emit(log, events.FEATURE, F_LANDED)
    if row < 0:
        return
    rows, reels = landed.shape
    for r in range(rows):
        for c in range(reels):
            log[row, events.CELLS + r * reels + c] = landed[r, c]


@kernel
def reveal(tables, outcomes, window, marked, cumulative):
    """Draw the Mystery symbol and transform the ``marked`` cells.

    Returns (pool index drawn, symbol id, filled cells).
    """
    pick = draw_weighted(outcomes, DRAW_MYSTERY, cumulative)
    symbol = tables.pool[pick]
    return pick, symbol, transform(window, marked, symbol, tables.params[P_WILD])


@kernel
def land_base(tables, outcomes, work, recording):
    """Land the base-game screen; returns (forced, Mysteries shown, Mystery cells, triggered).

    The window is read and its Mysteries marked unless the screen was drawn, shows no Mystery
    and is not recorded: then the precomputed per-stop tables are all the spin needs.
    """
    params, base, window = tables.params, tables.base, work.window
    mystery, scatter, trigger_reels = params[P_MYSTERY], params[P_SCATTER], params[P_TRIGGER_REELS]
    if land(base, outcomes, work, False):
        marked = mark_symbol(window, mystery)
        return True, popcount(np.uint64(marked)), marked, scatter_trigger(window, scatter, trigger_reels)
    stops, counts = work.stops, base.counts
    mysteries = 0
    for reel in range(stops.shape[0]):
        mysteries += counts[reel, stops[reel], mystery]
    marked = 0
    if mysteries > 0 or recording:
        marked = read_window(tables.base_cells, stops, window, mystery)
    return False, mysteries, marked, stops_trigger(counts, stops, scatter, trigger_reels)


@kernel
def mystery_spin(tables, enabled, forced, marked, outcomes, log, work, tally):
    """Reveal the base game's Mysteries, record what happened, pay; returns win units."""
    recording = events.recording(log)
    if recording:
        copy_cells(work.window, work.landed)
    pick, symbol, filled = reveal(tables, outcomes, work.window, marked, tables.base_weights)
    events.emit_step(log, events.BASE, MODE_BASE, 0, 0, work.window)
    if recording:
        emit_landed(log, work.landed)
        events.emit(log, events.DRAW, DRAW_MYSTERY, pick)
        events.emit(log, events.FEATURE, F_MYSTERY, symbol, marked, filled, 0)
    if forced:
        win = screen_win(tables, work, enabled, log)
    else:
        win = changed_screen_win(tables, work, enabled, marked | filled, log)
    tally[T_MYSTERY_SCREENS] += 1
    tally[T_MYSTERY_WIN] += win
    tally[T_FILLED] += popcount(np.uint64(filled))
    tally[T_BASE_DRAW + pick] += 1
    return win


@kernel
def base_spin(tables, enabled, outcomes, log, work, tally):
    """The base-game spin; returns (win units, triggered)."""
    recording = events.recording(log)
    forced, mysteries, marked, triggered = land_base(tables, outcomes, work, recording)
    tally[T_MYSTERIES + min(mysteries, MAX_MYSTERIES)] += 1
    if mysteries > 0:
        return mystery_spin(tables, enabled, forced, marked, outcomes, log, work, tally), triggered
    if not forced and not recording:
        # Nothing transforms: pay from the masks precomputed per reel stop.
        return stop_line_wins(tables.pay, tables.base, work.stops, enabled, 1, log), triggered
    events.emit_step(log, events.BASE, MODE_BASE, 0, 0, work.window)
    return screen_win(tables, work, enabled, log), triggered


@kernel
def hold_stickies(window, held, sticky):
    """Held stickies stay whatever landed under them; new ones are held from now on.

    Returns (newly landed cells bitmask, held cells bitmask).
    """
    rows, reels = window.shape
    new = 0
    all_held = 0
    for row in range(rows):
        for reel in range(reels):
            bit = 1 << (row * reels + reel)
            if held[row, reel]:
                window[row, reel] = sticky
            elif window[row, reel] == sticky:
                held[row, reel] = 1
                new |= bit
            if held[row, reel]:
                all_held |= bit
    return new, all_held


@kernel
def land_free(tables, outcomes, work, log):
    """Land a free-spin screen and apply the held stickies; returns (new cells, held cells)."""
    land(tables.free, outcomes, work, True)
    new, held = hold_stickies(work.window, work.held, tables.params[P_STICKY])
    if events.recording(log):
        copy_cells(work.window, work.landed)
    return new, held


@kernel
def free_spin(tables, enabled, outcomes, log, work, tally, index, left):
    """One free spin: land, hold, transform every sticky, pay; returns win units."""
    window = work.window
    new, held = land_free(tables, outcomes, work, log)
    tally[T_STICKIES] += popcount(np.uint64(new))
    pick, symbol, filled = -1, 0, 0
    if held:
        pick, symbol, filled = reveal(tables, outcomes, window, held, tables.free_weights)
        tally[T_STICKY_SPINS] += 1
        tally[T_FREE_DRAW + pick] += 1
    events.emit_step(log, events.FREE, MODE_FREE, index, left, window)
    if events.recording(log):
        if new:
            events.emit(log, events.FEATURE, F_STICKY, new, held)
        if held:
            emit_landed(log, work.landed)
            events.emit(log, events.DRAW, DRAW_MYSTERY, pick)
            events.emit(log, events.FEATURE, F_MYSTERY, symbol, held, filled, 1)
    return screen_win(tables, work, enabled, log)


@kernel
def clear(cells):
    rows, reels = cells.shape
    for row in range(rows):
        for reel in range(reels):
            cells[row, reel] = 0


# Compiled as a function of its own, not inlined into the round: inlined, the free spin would
# copy the spin's helpers into the round once more, for a third of the game's compile time
# (bench/bench_compile.py), while the call is made once per feature, not once per spin
# (about 4% of rounds/s, bench/compare.py).
@feature
def free_spins(tables, enabled, outcomes, log, work, tally):
    """The whole free-spins feature (no retriggers); returns its total win units."""
    award = tables.params[P_AWARD]
    clear(work.held)
    total = 0
    for spin in range(award):
        total += free_spin(tables, enabled, outcomes, log, work, tally, spin + 1, award - spin - 1)
    tally[T_PLAYED] += award
    return total


@kernel
def play_round(tables, bet, state, outcomes, log, work, tally):
    """One complete Golden Grimoire round; returns (status, win units)."""
    enabled = enabled_lines(bet[B_LINES])
    win, triggered = base_spin(tables, enabled, outcomes, log, work, tally)
    tally[T_BASE_WIN] += win
    if triggered:
        award = tables.params[P_AWARD]
        tally[T_TRIGGERED] += 1
        events.emit(log, events.FREE_SPINS, award, award, 0)
        total = free_spins(tables, enabled, outcomes, log, work, tally)
        tally[T_FREE_WIN] += total
        events.emit(log, events.FEATURE, F_FREE_TOTAL, total)
        win += total
    return events.COMPLETE, win


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """The simulator's loop compiled around this game's round."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


def make_work(rows: int, reels: int, symbols: int) -> Work:
    cells = (rows, reels)
    return Work(
        stops=np.zeros(reels, dtype=np.int64),
        window=np.zeros(cells, dtype=np.int64),
        masks=np.zeros((reels, 1, symbols), dtype=np.uint64),
        counts=np.zeros((reels, 1, symbols), dtype=np.int64),
        zero_stops=np.zeros(reels, dtype=np.int64),
        landed=np.zeros(cells, dtype=np.int64),
        held=np.zeros(cells, dtype=np.int64),
    )


def wrapped_strips(reelset: ReelSet, rows: int) -> np.ndarray:
    """Each strip followed by its first ``rows - 1`` stops, so a window is a plain slice."""
    reels, longest = reelset.strips.shape
    cells = np.zeros((reels, longest + rows), dtype=np.int64)
    for reel in range(reels):
        length = int(reelset.lengths[reel])
        for i in range(length + rows - 1):
            cells[reel, i] = reelset.strips[reel, i % length]
    return cells


def cumulative(weights: dict[str, int]) -> np.ndarray:
    return np.cumsum([weights[code] for code in POOL]).astype(np.int64)
