"""Column masks of a screen built row by row, for games whose screens transform on most spins.

:func:`slotforge.engine.evaluate.window_masks` builds a screen's column masks line by line,
which is fine for the odd forced screen but costs a few microseconds. A game that changes its
screen on a large share of spins (mysteries, fills) needs the masks of a computed screen
cheaply. The set of paylines through each (reel, row) cell is fixed, so a screen's mask for a
symbol is the OR of the row bits of every cell that counts as that symbol: one OR per cell
for an ordinary symbol, one per paying symbol for a wild. The result is the same table
:func:`slotforge.engine.evaluate.line_wins` reads, indexed ``[reel, 0, symbol]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine.evaluate import PayTable
from slotforge.engine.jit import kernel


class RowMasks(NamedTuple):
    """What the row-by-row mask builder needs besides the screen."""

    row_bits: np.ndarray  # uint64[reels, rows]: the lines through each cell
    targets: np.ndarray  # int64[symbols, symbols]: the symbols a cell counts as, packed left
    target_counts: np.ndarray  # int64[symbols]: how many entries of ``targets`` are used


def compile_row_masks(table: PayTable, rows: int) -> RowMasks:
    """The per-cell line bits and the counts-as lists of a paytable."""
    line_rows = table.line_rows
    lines, reels = line_rows.shape
    row_bits = np.zeros((reels, rows), dtype=np.uint64)
    for line in range(lines):
        for reel in range(reels):
            row_bits[reel, line_rows[line, reel]] |= np.uint64(1) << np.uint64(line)
    symbols = table.counts_as.shape[0]
    targets = np.zeros((symbols, symbols), dtype=np.int64)
    target_counts = np.zeros(symbols, dtype=np.int64)
    for cell in range(symbols):
        found = np.flatnonzero(table.counts_as[cell])
        targets[cell, : len(found)] = found
        target_counts[cell] = len(found)
    return RowMasks(row_bits, targets, target_counts)


@kernel
def screen_masks(window, row_masks, masks):
    """Fill ``masks[reel, 0, symbol]`` with the column masks of ``window``."""
    rows, reels = window.shape
    row_bits, targets, target_counts = row_masks.row_bits, row_masks.targets, row_masks.target_counts
    symbols = masks.shape[2]
    for reel in range(reels):
        for symbol in range(symbols):
            masks[reel, 0, symbol] = 0
        for row in range(rows):
            cell = window[row, reel]
            bits = row_bits[reel, row]
            for k in range(target_counts[cell]):
                masks[reel, 0, targets[cell, k]] |= bits


@kernel
def copy_stop_masks(table, stops, masks):
    """Copy a reel set's precomputed masks at ``stops`` into ``masks[reel, 0]``."""
    reels, _, symbols = masks.shape
    for reel in range(reels):
        stop = stops[reel]
        for symbol in range(symbols):
            masks[reel, 0, symbol] = table[reel, stop, symbol]


@kernel
def recolour(masks, row_masks, reel, row, old, new):
    """Update ``masks[reel, 0]`` for the cell (``row``, ``reel``) changing from ``old`` to ``new``.

    Every line crosses exactly one row of a reel, so the row's bits belong to that cell alone:
    clearing them from what ``old`` counts as and setting them on what ``new`` counts as is
    the mask of the changed screen.
    """
    bits = row_masks.row_bits[reel, row]
    targets, target_counts = row_masks.targets, row_masks.target_counts
    for k in range(target_counts[old]):
        masks[reel, 0, targets[old, k]] &= ~bits
    for k in range(target_counts[new]):
        masks[reel, 0, targets[new, k]] |= bits
