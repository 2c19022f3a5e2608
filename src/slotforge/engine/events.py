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

# Event codes shared by all games; their fields are in FIELDS below.
STEP = 1
LINE_WIN = 2
SCATTER_WIN = 3
FREE_SPINS = 4
AWAIT = 5
GAMBLE = 6
COLLECT = 7
INVALID_CHOICE = 8
FEATURE = 9
DRAW = 10
WIN = 11
COUNT_WIN = 12
PICK_GAMBLE = 13

# Each event code's fields, in the order they follow the code in its row: the one table both the
# writing and the reading go by. Compiled code writes a row positionally (emit(log, code, a, b,
# ...), in this order; tests/engine/test_events.py holds every emit in the source to it), and the
# record reads it back by name (fields). A FEATURE row's fields after its feature code are the
# game's own: the FEATURE_FIELDS table of its kernels (feature_fields).
FIELDS: dict[int, tuple[str, ...]] = {
    STEP: ("kind", "mode", "index", "left"),  # and the evaluated screen from CELLS on
    LINE_WIN: ("line", "symbol", "count", "units", "multiplier"),  # line 0-based; units per coin per line
    SCATTER_WIN: ("symbol", "count", "units", "multiplier"),
    FREE_SPINS: ("awarded", "left", "retrigger"),  # retrigger 0/1
    AWAIT: ("decision", "options", "win"),  # options: a bitmask of the decision's own options
    GAMBLE: ("option", "card", "stake", "result", "decision"),
    COLLECT: ("units", "automatic"),  # automatic 0/1
    INVALID_CHOICE: ("decision", "choice", "options"),  # choice: a name id, -1 for a strategy's
    FEATURE: ("feature",),  # then the game's FEATURE_FIELDS of that feature code
    DRAW: ("name", "value"),  # a random outcome shown to the player
    WIN: ("kind", "count", "units"),  # a game-specific win (bonus coins, a fixed jackpot)
    COUNT_WIN: ("symbol", "count", "units", "multiplier"),  # a pays-anywhere win
    PICK_GAMBLE: ("option", "drawn", "stake", "result", "decision"),  # drawn: symbol 0 or 1
}
MAX_FIELDS = 5  # what emit writes after the code


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


def fields(row: np.ndarray) -> dict[str, int]:
    """An event row's fields by name, as :data:`FIELDS` names them for its code."""
    return {name: int(row[1 + i]) for i, name in enumerate(FIELDS[int(row[0])])}


def feature_fields(row: np.ndarray, table: dict[int, tuple[str, ...]]) -> tuple[int, dict[str, int]]:
    """A FEATURE row's feature code and its fields by name, as ``table`` (the game's
    FEATURE_FIELDS) names them for that code."""
    code = int(row[1])
    return code, {name: int(row[2 + i]) for i, name in enumerate(table.get(code, ()))}


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
