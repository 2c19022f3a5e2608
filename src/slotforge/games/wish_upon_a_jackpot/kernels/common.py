"""What every part of Wish Upon a Jackpot's compiled round shares: its codes, its compiled
model (:class:`Tables`), its work arrays (:class:`Work`) and the helpers that land, change and
pay a screen.

Units: a win unit is the line bet (a twentieth of the stake), so a line win in units is the
paytable value and a prize of N x stake is 20 N units.

Cells are numbered in reading order (``row * reels + reel``); a set of cells is an int64 bit
mask. A cell turned WILD by a wish or a pig keeps a BONUS: a wish never takes a Fairy Tale
Bonus away. Nothing here allocates: every work array comes from :class:`Work`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet, line_wins
from slotforge.engine.jit import kernel
from slotforge.engine.masks import RowMasks, screen_masks
from slotforge.engine.outcomes import draw_weighted, scripted
from slotforge.engine.rng import bounded
from slotforge.engine.spin import REFUSAL_FIELDS, refuse
from slotforge.games.wish_upon_a_jackpot.kernels.fields import (
    DRAW_GODMOTHER,
    DRAW_WILD_CELL,
    P_BONUS,
    P_PRINCE,
    P_WILD,
    S_BEST,
    S_FIRST,
    S_WORST,
)

# Reel modes, by index into the stacked tables.
MODE_BASE, MODE_PIGS, MODE_RAPUNZEL = range(3)
MODE_NAMES = ("base", "pigs", "rapunzel")

# A 3 Little Pigs spin (draw "pig"): no pig, pig k turning k cells WILD, or the wolf.
PIG_EVENTS = ("none", "pig_1", "pig_2", "pig_3", "wolf")
NO_PIG, WOLF = 0, 4
GODMOTHER_APPEARS = 0  # index of the "godmother" draw's outcomes: appears, stays away
BONUS_FOLLOWS = 0  # index of the "godmother_bonus" draw's outcomes: the bonus follows, it does not
# What the Fairy Godmother's appearance brings (see godmother_wish): no wish, or a wish's cells.
NO_WISH, WISH_REFUSED, WISH_WAITS = 0, -1, -2
BEAN_GROWS = 0  # index of the "bean" draw's outcomes: grows, COLLECT

TAKE, LEAVE = 0, 1
DEAL_OPTIONS = (1 << TAKE) | (1 << LEAVE)

# FEATURE event codes; their fields (after the code, in the order emitted) in FEATURE_FIELDS.
F_GODMOTHER = 1
F_WISH = 2
F_FAIRY_TALE = 3
F_OFFER = 4
F_DEAL = 5
F_BEAN = 6
F_EGG = 7
F_PIG = 8
F_PRINCE = 9
F_FREE_SPINS = 10
F_BONUS_WINNINGS = 11
F_APPEARS = 12
FEATURE_FIELDS = {
    F_GODMOTHER: ("orb",),  # the orb picked
    # the wish, its detail (Puss's cell, Pinocchio's WILDs, the Gingerbread Man's reel), cell mask turned WILD
    F_WISH: ("wish", "detail", "cells"),
    F_FAIRY_TALE: ("storybook", "feature"),  # storybook picked, feature revealed
    F_OFFER: ("offer", "value", "scrolls_left"),  # offer number (1-5), value in units
    F_DEAL: ("offer", "value"),  # offer number taken, value in units
    F_BEAN: ("bean", "grew", "level"),  # bean picked, grew (1) or COLLECT (0), level reached
    F_EGG: ("egg", "prize"),  # egg picked, prize in units
    F_PIG: ("event", "cells", "wilds_standing"),  # pig event, cell mask turned WILD
    F_PRINCE: ("level", "multiplier"),  # tower level
    F_FREE_SPINS: ("feature", "spins"),  # spins: 3 Little Pigs'; 0 for Rapunzel (until the top)
    F_BONUS_WINNINGS: ("feature", "units"),  # units paid
    F_APPEARS: ("bonus_follows", "mode"),  # the Fairy Godmother appears: her bonus follows (1) or not; reel mode
}

# WIN event kinds (row[1]): kind, count, units.
W_DEAL, W_BEANSTALK, W_EGG = range(3)

# Why a scripted round was refused (info[I_REASON]: see slotforge.engine.spin.refuse).
R_SCREEN, R_CELL_TAKEN, R_NO_CELL = range(1, 4)
I_MODE = REFUSAL_FIELDS  # info: the reel mode of a refused screen


class Tables(NamedTuple):
    """Wish Upon a Jackpot's compiled model."""

    pay: PayTable
    base: ReelSet
    pigs: ReelSet
    rapunzel: ReelSet
    rows: RowMasks
    carries: np.ndarray  # bool[mode, reel, symbol]: what a forced screen may show there
    godmother: np.ndarray  # int64[2]: cumulative weights of appears, stays away (on any spin)
    godmother_bonus: np.ndarray  # int64[2]: cumulative weights of the bonus follows, it does not
    wishes: np.ndarray  # int64[WISHES]: cumulative weights
    puss: np.ndarray  # int64[cells]: the cells Puss in Boots turns WILD, by the cell he lands on
    pinocchio_wilds: np.ndarray  # int64[]: how many cells Pinocchio may turn WILD
    pinocchio_weights: np.ndarray  # int64[]: cumulative weights of those counts
    gingerbread_reels: np.ndarray  # int64[]: the reels (0-based) the Gingerbread Man may turn WILD
    features: np.ndarray  # int64[FEATURES]: cumulative weights
    offers: np.ndarray  # int64[]: the Deal Maker's values, units
    offer_weights: np.ndarray  # int64[OFFERS, values]: cumulative weights per offer
    take_from: np.ndarray  # int64[OFFERS - 1]: best strategy: the least offer worth taking, units
    take_below: np.ndarray  # int64[OFFERS - 1]: worst strategy: an offer below this is taken, units
    trail: np.ndarray  # int64[levels]: the beanstalk's prizes, units
    grow: np.ndarray  # int64[levels, 2]: cumulative weights of grows, COLLECT at each level
    eggs: np.ndarray  # int64[]: the Golden Goose's prizes, units
    egg_weights: np.ndarray  # int64[]: cumulative weights
    pig_events: np.ndarray  # int64[PIG_EVENTS]: cumulative weights
    ladder: np.ndarray  # int64[levels + 1]: the Rapunzel multiplier at each tower level
    params: np.ndarray  # int64: see the P_* indexes


class Work(NamedTuple):
    """Work arrays a round reuses (the simulator allocates nothing per round)."""

    stops: np.ndarray  # int64[reels]
    window: np.ndarray  # int64[rows, reels]
    masks: np.ndarray  # uint64[reels, 1, symbols]: column masks of a changed screen
    zero_stops: np.ndarray  # int64[reels]
    info: np.ndarray  # int64[8]: see the I_* indexes


def make_work(rows: int, reels: int, symbols: int) -> Work:
    """Fresh work arrays for one round at a time."""
    return Work(
        stops=np.zeros(reels, dtype=np.int64),
        window=np.zeros((rows, reels), dtype=np.int64),
        masks=np.zeros((reels, 1, symbols), dtype=np.uint64),
        zero_stops=np.zeros(reels, dtype=np.int64),
        info=np.zeros(8, dtype=np.int64),
    )


# -- small helpers ---------------------------------------------------------------------------
@kernel
def first_option(which, decision, offered, win):
    """The strategies' answer to a pick that only presents a drawn result: the first option."""
    option = 0
    while not (offered >> option) & 1:
        option += 1
    return option


@kernel
def every_option(count):
    """The bitmask offering a pick's ``count`` options."""
    return (1 << count) - 1


@kernel
def deal_answer(tables, which, offer, value):
    """What strategy ``which`` does with offer ``offer`` (0-based) of ``value`` units: the best
    takes what is worth at least what leaving is expected to bring, the worst what is worth less."""
    if which == S_BEST:
        return TAKE if value >= tables.take_from[offer] else LEAVE
    if which == S_WORST:
        return TAKE if value < tables.take_below[offer] else LEAVE
    if which == S_FIRST:
        return TAKE
    return LEAVE


@kernel
def show(log, kind, mode, index, left, window):
    """A step row for ``window``; returns its row, so that a screen the Fairy Godmother changes
    after the step was shown can be written into it (-1 when not recording)."""
    if not events.recording(log):
        return -1
    events.emit_step(log, kind, mode, index, left, window)
    return log[0, events.USED]


@kernel
def reshow(log, row, window):
    """Write the screen as evaluated into step ``row``."""
    if row <= 0:
        return
    rows, reels = window.shape
    for r in range(rows):
        for c in range(reels):
            log[row, events.CELLS + r * reels + c] = window[r, c]


@kernel
def turn_wild(window, cells, params):
    """Turn the cells of mask ``cells`` WILD; a BONUS stays a BONUS and a PRINCE a PRINCE (no
    WILD ever takes a Fairy Tale Bonus or a climb of the tower away)."""
    rows, reels = window.shape
    wild, bonus, prince = params[P_WILD], params[P_BONUS], params[P_PRINCE]
    for cell in range(rows * reels):
        if (cells >> cell) & 1:
            row, reel = cell // reels, cell % reels
            if window[row, reel] != bonus and window[row, reel] != prince:
                window[row, reel] = wild


@kernel
def pick_cell(outcomes, taken, cells, info):
    """A cell not in ``taken`` for a new WILD (draw "wild_cell"): uniform among the free cells,
    or the script's. Returns -1 when the script names a taken cell (noted in ``info``)."""
    forced, value = scripted(outcomes, DRAW_WILD_CELL)
    if forced:
        if (taken >> value) & 1:
            refuse(info, R_CELL_TAKEN, -1, -1, -1, value)
            return -1
        return value
    free = 0
    for cell in range(cells):
        free += 1 - ((taken >> cell) & 1)
    nth = bounded(outcomes.stream, free)
    for cell in range(cells):
        if not (taken >> cell) & 1:
            if nth == 0:
                return cell
            nth -= 1
    return -1


@kernel
def check_screen(tables, mode, window, info, screen):
    """A forced screen may show on each reel only what that reel carries in ``mode``."""
    rows, reels = window.shape
    for row in range(rows):
        for reel in range(reels):
            if not tables.carries[mode, reel, window[row, reel]]:
                refuse(info, R_SCREEN, screen, row, reel, window[row, reel])
                info[I_MODE] = mode
                return False
    return True


@kernel
def bonus_on_reels_1_3_5(counts, stops, bonus):
    """Whether a BONUS shows on each of reels 1, 3 and 5 (``counts`` indexed [reel, stop, symbol])."""
    return counts[0, stops[0], bonus] > 0 and counts[2, stops[2], bonus] > 0 and counts[4, stops[4], bonus] > 0


@kernel
def window_shows(window, reel, symbol):
    """How many cells of ``reel`` show ``symbol``."""
    found = 0
    for row in range(window.shape[0]):
        found += window[row, reel] == symbol
    return found


@kernel
def pay_window(tables, window, enabled, multiplier, log, work):
    """Line wins of a changed screen, in units."""
    screen_masks(window, tables.rows, work.masks)
    return line_wins(tables.pay, work.masks, work.zero_stops, enabled, multiplier, log)


@kernel
def appears(tables, outcomes):
    """Whether the Fairy Godmother appears on this spin (drawn on every spin, in any mode)."""
    return draw_weighted(outcomes, DRAW_GODMOTHER, tables.godmother) == GODMOTHER_APPEARS
