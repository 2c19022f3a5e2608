"""The event log a compiled round writes, and the codes of its rows.

A round function appends rows to a preallocated ``int64`` log: column 0 is the event code,
columns 1..7 its fields, and a step row carries the evaluated screen in the columns from
``CELLS`` on (rows top to bottom, reels left to right). Row 0 is the header: the number of rows
written and an overflow flag. A log with no rows turns recording off, which is how the
simulator runs the very same round function at full speed.
"""

from __future__ import annotations

import numpy as np

from slotforge.engine.jit import kernel

WIDTH = 48
CELLS = 8
USED = 0
OVERFLOW = 1

# Event codes shared by all games. Field layouts are given beside each code.
STEP = 1  # kind, mode, index within its kind, free spins left, <cells>
LINE_WIN = 2  # line (0-based), symbol, count, units (per coin per line), multiplier
SCATTER_WIN = 3  # symbol, count, units, multiplier
FREE_SPINS = 4  # awarded, total left, retrigger (0/1)
AWAIT = 5  # decision kind, options bitmask (bits index the decision's own options), win units
GAMBLE = 6  # option index, card, stake units, result units, decision kind
COLLECT = 7  # units collected, automatic (0/1)
INVALID_CHOICE = 8  # decision kind, choice name id (-1: a strategy's), options bitmask
FEATURE = 9  # feature code, then game-specific fields
DRAW = 10  # draw name, value (a random outcome shown to the player)
WIN = 11  # a game-specific win (bonus coins, a fixed jackpot): fields the game describes
COUNT_WIN = 12  # symbol, count, units, multiplier: a pays-anywhere win

# Step kinds.
BASE = 0
RESPIN = 1
FREE = 2
BONUS = 3
STEP_KINDS = ("base", "respin", "free", "bonus")

# Round status returned by every round function.
COMPLETE = 0
AWAITING = 1
REJECTED = 2


def new_log(capacity: int = 256) -> np.ndarray:
    """An empty log with room for ``capacity`` rows (0 turns recording off)."""
    return np.zeros((capacity + 1 if capacity else 0, WIDTH), dtype=np.int64)


def off() -> np.ndarray:
    """A log that records nothing."""
    return new_log(0)


def rows(log: np.ndarray) -> np.ndarray:
    """The rows written to ``log`` (without its header)."""
    return log[1 : 1 + int(log[0, USED])]


def overflowed(log: np.ndarray) -> bool:
    return bool(log.shape[0] and log[0, OVERFLOW])


@kernel
def recording(log):
    return log.shape[0] > 0


@kernel
def emit(log, code, a=0, b=0, c=0, d=0, e=0):
    """Append one event row; on a full log set the overflow flag (the caller grows and replays)."""
    if log.shape[0] == 0:
        return -1
    row = log[0, USED] + 1
    if row >= log.shape[0]:
        log[0, OVERFLOW] = 1
        return -1
    log[0, USED] = row
    log[row, 0] = code
    log[row, 1] = a
    log[row, 2] = b
    log[row, 3] = c
    log[row, 4] = d
    log[row, 5] = e
    return row


@kernel
def emit_step(log, kind, mode, index, left, window):
    """Append a step row carrying the evaluated screen."""
    row = emit(log, STEP, kind, mode, index, left)
    if row < 0:
        return
    rows_, reels = window.shape
    for r in range(rows_):
        for c in range(reels):
            log[row, CELLS + r * reels + c] = window[r, c]
