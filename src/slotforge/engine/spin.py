"""One spin of a line game: land a screen (drawn or forced), then pay its lines and scatters.

These are the compiled building blocks of every line game's round function. A game with
transformations (mysteries, falling wilds) lands a screen, changes it, and evaluates the
changed screen with :func:`evaluate_window`; a plain game calls :func:`line_spin`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import (
    cell_symbol,
    cell_total,
    fill_window,
    line_wins,
    stop_line_wins,
    symbol_count,
    window_masks,
)
from slotforge.engine.jit import kernel
from slotforge.engine.model import MAX_SCATTERS
from slotforge.engine.outcomes import forced_screen
from slotforge.engine.rng import bounded_on, hold, holds, release

# Why a scripted round was refused, in a game's ``info`` work array (int64): the game's reason
# (0: none), then the forced screen, the cell at fault (row, reel) and the symbol found there.
# A game's own fields follow from ``REFUSAL_FIELDS``; its rules word the error.
I_REASON, I_SCREEN, I_ROW, I_REEL, I_SYMBOL = range(5)
REFUSAL_FIELDS = 5


class Scratch(NamedTuple):
    """Work arrays a round reuses instead of allocating on every spin."""

    stops: np.ndarray  # int64[reels]
    window: np.ndarray  # int64[rows, reels]
    masks: np.ndarray  # uint64[reels, 1, symbols]: column masks of a computed screen
    counts: np.ndarray  # int64[reels, 1, symbols]
    zero_stops: np.ndarray  # int64[reels]: index 0 into the one-stop tables above
    scatters: np.ndarray  # int64[MAX_SCATTERS]: how many of each scatter symbol the last screen showed


def make_scratch(rows: int, reels: int, symbols: int) -> Scratch:
    return Scratch(
        stops=np.zeros(reels, dtype=np.int64),
        window=np.zeros((rows, reels), dtype=np.int64),
        masks=np.zeros((reels, 1, symbols), dtype=np.uint64),
        counts=np.zeros((reels, 1, symbols), dtype=np.int64),
        zero_stops=np.zeros(reels, dtype=np.int64),
        scatters=np.zeros(MAX_SCATTERS, dtype=np.int64),
    )


@kernel
def land(reelset, outcomes, scratch, need_window):
    """Land a screen: the script's next one, or random stops on ``reelset``.

    Returns True when the screen was forced. ``scratch.window`` holds the screen when it was
    forced or when ``need_window`` asks for it; ``scratch.stops`` holds drawn stops.
    """
    forced = forced_screen(outcomes)
    if forced >= 0:
        screen, window = outcomes.screens[forced], scratch.window
        for row in range(window.shape[0]):
            for reel in range(window.shape[1]):
                window[row, reel] = screen[row, reel]
        return True
    # Tuple fields are read once: every read of an array field inside a loop costs a
    # reference-count update, which at this speed is most of a round's time.
    stream, lengths, stops = outcomes.stream, reelset.lengths, scratch.stops
    in_registers, state = holds(stream), hold(stream)
    for reel in range(stops.shape[0]):
        stop, state = bounded_on(stream, in_registers, state, lengths[reel])
        stops[reel] = stop
    release(stream, in_registers, state)
    if need_window:
        fill_window(reelset, stops, scratch.window)
    return False


@kernel
def pay_screen(table, masks, counts, stops, enabled, total_units, multiplier, log, found):
    """Line wins plus scatter pays of a screen; returns (win units, count of the first scatter),
    with every scatter's count in ``found``."""
    win = line_wins(table, masks, stops, enabled, multiplier, log)
    scatter_units = pay_scatters(table, counts, stops, total_units, multiplier, log, found)
    return win + scatter_units, found[0]


@kernel
def pay_stops(table, reelset, stops, enabled, total_units, multiplier, log, found):
    """:func:`pay_screen` of a screen drawn at ``stops`` on ``reelset`` (the fast path)."""
    win = stop_line_wins(table, reelset, stops, enabled, multiplier, log)
    scatter_units = pay_scatters(table, reelset.counts, stops, total_units, multiplier, log, found)
    return win + scatter_units, found[0]


@kernel
def pay_scatters(table, counts, stops, total_units, multiplier, log, found):
    """Scatter pays (x total bet) of a screen: each scatter symbol pays by its own count, and
    the pays add up. ``found[i]`` gets the count of the model's ``i``-th scatter symbol (the
    game's triggers read it). Returns the win units."""
    symbols, pays = table.scatter_symbols, table.scatter_pays
    units = 0
    found[0] = 0
    for i in range(symbols.shape[0]):
        count = symbol_count(counts, stops, symbols[i])
        found[i] = count
        pay = pays[i, count] * total_units * multiplier
        if pay > 0:
            units += pay
            events.emit(log, events.SCATTER_WIN, symbols[i], count, pay, multiplier)
    return units


@kernel
def evaluate_window(table, scratch, enabled, total_units, multiplier, log):
    """Pay the screen in ``scratch.window`` (after whatever changed it)."""
    window_masks(scratch.window, table.line_rows, table.counts_as, scratch.masks, scratch.counts)
    return pay_screen(table, scratch.masks, scratch.counts, scratch.zero_stops, enabled, total_units, multiplier,
                      log, scratch.scatters)


@kernel
def line_spin(table, reelset, kind, mode, index, left, enabled, total_units, multiplier, outcomes, log, scratch):
    """Land and pay one screen of a plain line game; returns (win units, count of the first
    scatter), with every scatter's count in ``scratch.scatters``."""
    forced = land(reelset, outcomes, scratch, events.recording(log))
    events.emit_step(log, kind, mode, index, left, scratch.window)
    if forced:
        return evaluate_window(table, scratch, enabled, total_units, multiplier, log)
    return pay_stops(table, reelset, scratch.stops, enabled, total_units, multiplier, log, scratch.scatters)


@kernel
def refuse(info, reason, screen, row, reel, symbol):
    """Note in ``info`` why a scripted round cannot be played (see ``I_REASON``): every game's
    refusals share these fields, so that its rules can word each one."""
    info[I_REASON] = reason
    info[I_SCREEN] = screen
    info[I_ROW] = row
    info[I_REEL] = reel
    info[I_SYMBOL] = symbol


@kernel
def enabled_lines(lines):
    """The bitmask of paylines 1..``lines``."""
    if lines >= 64:
        return ~np.uint64(0)
    return (np.uint64(1) << np.uint64(lines)) - np.uint64(1)


@kernel
def land_cells(cells, outcomes, held, window, shown):
    """Land a screen of independent reels (a :class:`~slotforge.engine.evaluate.CellSet`).

    A cell with ``held[cell] >= 0`` keeps that symbol and does not spin; every other cell draws
    its own. A forced screen is copied as it stands (the game checks it against what is held).
    ``shown[symbol]`` counts the cells showing each symbol. Returns the forced screen's index,
    or -1 for a drawn screen.
    """
    rows, reels = window.shape
    for symbol in range(shown.shape[0]):
        shown[symbol] = 0
    forced = forced_screen(outcomes)
    if forced >= 0:
        screen = outcomes.screens[forced]
        for row in range(rows):
            for reel in range(reels):
                window[row, reel] = screen[row, reel]
                shown[screen[row, reel]] += 1
        return forced
    # This loop is most of a round's time on a 16-cell grid: no division to find a cell's place,
    # and a simulation stream's state held in registers over the whole screen.
    stream = outcomes.stream
    in_registers = holds(stream)
    state = hold(stream)
    cell = 0
    for row in range(rows):
        for reel in range(reels):
            symbol = held[cell]
            if symbol < 0:
                pick, state = bounded_on(stream, in_registers, state, cell_total(cells, cell))
                symbol = cell_symbol(cells, cell, pick)
            window[row, reel] = symbol
            shown[symbol] += 1
            cell += 1
    release(stream, in_registers, state)
    return -1
