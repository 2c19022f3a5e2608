"""What every part of Divine Fortune's compiled round shares: its codes, its compiled model
(:class:`Tables`), its work arrays (:class:`Work`) and the packed arrays' indexes.

Units: a win unit is one coin at bet level 1 (a line win in units is the paytable value); the
stake is one unit per line and ``bet_level`` coins make one unit. Nothing in the round allocates:
every work array comes from :class:`Work`, so the simulator's loop can be compiled without
numba's runtime.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine.evaluate import PayTable, ReelSet
from slotforge.engine.jit import kernel
from slotforge.engine.spin import REFUSAL_FIELDS

# Reel modes: the index of a strip set in the stacked tables.
BASE, HELD, FREE = range(3)


MODE_NAMES = ("base", "held", "free")

# params indexes.
P_WILD, P_FREESPINS, P_BONUS, P_BLANK, P_FS_TRIGGER, P_BONUS_TRIGGER, P_BONUS_SPINS = range(7)


P_MINOR, P_MAJOR, P_FULL_REEL, P_LAST = range(7, 11)

# Bet arguments of the round function: the stake's row of the bonus-game tables, and whether
# a Mega is paid by the jackpot pool (not when playing for fun).
B_LEVEL, B_TOTAL_UNITS, B_STAKE, B_MEGA_LIVE = range(4)


BET_ARGUMENTS = 4

# Draw ids (the game's draw_names order) and decision ids.
DRAW_VALUE, DRAW_CELL = range(2)


DECISION_START = 0
CHOICE_START = 0

# FEATURE event codes; their fields (after the code, in the order emitted) in FEATURE_FIELDS.
F_WILD_ON_WILD = 1


F_FALLING_WILDS = 2
F_BONUS_COLLECTED = 3
F_RESPINS_OWED = 4
F_BONUS_TRIGGERED = 5
F_BONUS_PLACED = 6
F_BONUS_LANDED = 7
F_MEGA_WON = 8
F_BONUS_END = 9
F_FREE_RESPIN = 10
FEATURE_FIELDS = {
    F_WILD_ON_WILD: ("reel",),
    F_FALLING_WILDS: ("cells", "count"),  # cell mask of the Falling Wilds the next re-spin holds
    F_BONUS_COLLECTED: ("count", "collected"),  # BONUS this spin, collected in the round so far
    F_RESPINS_OWED: ("cells",),  # cell mask of the Falling Wilds waiting for the end of free spins
    F_BONUS_TRIGGERED: ("collected", "placed"),  # BONUS collected, BONUS placed
    F_BONUS_PLACED: ("cell", "value"),  # value in units
    F_BONUS_LANDED: ("cell", "value"),
    F_MEGA_WON: ("filled", "paid_by_pool"),  # 1 if the jackpot pool pays it (0: fun play)
    F_BONUS_END: ("filled", "full_rows"),
    F_FREE_RESPIN: (),  # a re-spin inside free spins, which uses no free spin
}

# WIN event kinds (row[1]).
W_BONUS_COINS, W_MINOR, W_MAJOR = range(3)



# Why a scripted round was refused (info[I_REASON]: see slotforge.engine.spin.refuse).
R_HELD_REEL, R_FREE_SPIN, R_BONUS_SCREEN, R_MAIN_SCREEN, R_CELL_TAKEN = range(1, 6)


I_MEGA, I_COLLECTED = range(REFUSAL_FIELDS, REFUSAL_FIELDS + 2)  # info: the Mega won, BONUS collected

# Simulator tallies; the model adds one per BONUS count that starts the bonus game
# (``collected_tally_names``), from T_COLLECTED on.
TALLY = (
    "base_win", "respin_win", "free_win", "bonus_coins", "minor", "major", "mega",
    "respin_rounds", "respins", "free_triggers", "free_spins_played", "free_respins",
    "bonus_games", "bonus_cells", "wild_on_wild", "free_wild_on_wild", "respin_awarded_spins", "hits",
)


(T_BASE_WIN, T_RESPIN_WIN, T_FREE_WIN, T_BONUS_COINS, T_MINOR, T_MAJOR, T_MEGA,
 T_RESPIN_ROUNDS, T_RESPINS, T_FREE_TRIGGERS, T_FREE_PLAYED, T_FREE_RESPINS,
 T_BONUS_GAMES, T_BONUS_CELLS, T_WILD_ON_WILD, T_FREE_WILD_ON_WILD, T_RESPIN_AWARDED, T_HITS) = range(18)
T_COLLECTED = len(TALLY)  # + (collected - trigger), the last slot counting a full grid and more


def collected_tally_names(trigger: int, cells: int) -> tuple[str, ...]:
    """Tally names of the bonus games by BONUS collected (the last: a full grid or more)."""
    return tuple(f"collected_{n}" for n in range(trigger, cells + 1))




class Tables(NamedTuple):
    """Divine Fortune's compiled model."""

    pay: PayTable
    base: ReelSet  # first spins and reels without a Falling Wild
    free: ReelSet
    strips: np.ndarray  # int64[mode, reel, stop]: base, held, free strips, padded
    lengths: np.ndarray  # int64[mode, reel]
    masks: np.ndarray  # uint64[mode, reel, stop, symbol]: column masks of the window at a stop
    wild_rows: np.ndarray  # int64[mode, reel, stop]: row mask of the WILDs the window shows
    freespins: np.ndarray  # int64[mode, reel, stop]: FREESPINS the window shows
    bonus: np.ndarray  # int64[mode, reel, stop]: BONUS the window shows
    line_bits: np.ndarray  # uint64[reel, row mask]: lines crossing the reel on those rows
    substitutes: np.ndarray  # uint64[symbol]: all lines where a WILD counts as the symbol
    carries: np.ndarray  # bool[mode, reel, symbol]: what a forced screen may land there
    awards: np.ndarray  # int64[cells + 1]: free spins by FREESPINS count
    values: np.ndarray  # int64[]: BONUS values, units (coins per bet level)
    land_num: np.ndarray  # int64[stake]: a cell reel lands a BONUS with land_num / land_den
    land_den: np.ndarray  # int64[stake]
    value_weights: np.ndarray  # int64[stake, value]: cumulative weights of the values
    params: np.ndarray  # int64: see the P_* indexes




class Work(NamedTuple):
    """Work arrays a round reuses (the simulator allocates nothing per round)."""

    stops: np.ndarray  # int64[reels]
    window: np.ndarray  # int64[rows, reels]
    masks: np.ndarray  # uint64[reels, 1, symbols]: column masks of a changed screen
    counts: np.ndarray  # int64[reels, 1, symbols]
    zero_stops: np.ndarray  # int64[reels]
    modes: np.ndarray  # int64[reels]: the strip set each reel spun on
    landed: np.ndarray  # int64[reels]: row mask of the WILDs that landed
    final: np.ndarray  # int64[reels]: row mask of the WILDs evaluated
    held: np.ndarray  # int64[reels]: Falling Wilds of the main game
    held_free: np.ndarray  # int64[reels]: Falling Wilds of free spins
    grid: np.ndarray  # int64[cells]: BONUS values on the bonus grid, 0 = empty
    fresh: np.ndarray  # int64[cells]: 1 where a BONUS landed this bonus spin
    info: np.ndarray  # int64[8]: see the I_* indexes




def make_work(rows: int, reels: int, symbols: int) -> Work:
    """Fresh work arrays for one round at a time."""
    cells = rows * reels
    return Work(
        stops=np.zeros(reels, dtype=np.int64),
        window=np.zeros((rows, reels), dtype=np.int64),
        masks=np.zeros((reels, 1, symbols), dtype=np.uint64),
        counts=np.zeros((reels, 1, symbols), dtype=np.int64),
        zero_stops=np.zeros(reels, dtype=np.int64),
        modes=np.zeros(reels, dtype=np.int64),
        landed=np.zeros(reels, dtype=np.int64),
        final=np.zeros(reels, dtype=np.int64),
        held=np.zeros(reels, dtype=np.int64),
        held_free=np.zeros(reels, dtype=np.int64),
        grid=np.zeros(cells, dtype=np.int64),
        fresh=np.zeros(cells, dtype=np.int64),
        info=np.zeros(8, dtype=np.int64),
    )




# -- small helpers ---------------------------------------------------------------------------
@kernel
def cell_mask(rows_by_reel, rows, reels):
    """Per-reel row masks as one mask of cells in reading order."""
    mask = 0
    for reel in range(reels):
        bits = rows_by_reel[reel]
        for row in range(rows):
            if (bits >> row) & 1:
                mask |= 1 << (row * reels + reel)
    return mask
