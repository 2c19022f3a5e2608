"""The Fairy Godmother: she may appear on any spin, base or free; when her bonus follows, the
orb pick waits for the player and her wish turns cells WILD before the spin is paid.

Compiled as functions of their own (she comes on one spin in twenty, and her bonus on one
appearance in eight): the call costs nothing that shows, and inlining would multiply the
compile time.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.jit import entry
from slotforge.engine.outcomes import WAIT, decide, draw, draw_weighted
from slotforge.games.wish_upon_a_jackpot.kernels.common import (
    BONUS_FOLLOWS,
    F_APPEARS,
    F_GODMOTHER,
    F_WISH,
    NO_WISH,
    WISH_REFUSED,
    WISH_WAITS,
    every_option,
    first_option,
    pick_cell,
    reshow,
    turn_wild,
)
from slotforge.games.wish_upon_a_jackpot.kernels.fields import (
    DECISION_ORB,
    DRAW_GINGERBREAD_REEL,
    DRAW_GODMOTHER_BONUS,
    DRAW_PINOCCHIO_WILDS,
    DRAW_PUSS_CELL,
    DRAW_WISH,
    P_ORBS,
    PINOCCHIO,
    PUSS,
    T_GODMOTHER,
    T_GODMOTHER_BONUS,
    T_WISH,
)


@entry
def wish_cells(tables, outcomes, log, work, tally):
    """The Fairy Godmother's wish: which cells it turns WILD (a mask), or -1 when a script was
    refused. Emits the wish with its detail."""
    rows, reels = work.window.shape
    cells = rows * reels
    wish = draw_weighted(outcomes, DRAW_WISH, tables.wishes)
    tally[T_WISH + wish] += 1
    mask = 0
    detail = 0
    if wish == PUSS:
        detail = draw(outcomes, DRAW_PUSS_CELL, cells)
        mask = tables.puss[detail]
    elif wish == PINOCCHIO:
        detail = tables.pinocchio_wilds[draw_weighted(outcomes, DRAW_PINOCCHIO_WILDS, tables.pinocchio_weights)]
        for _ in range(detail):
            cell = pick_cell(outcomes, mask, cells, work.info)
            if cell < 0:
                return -1
            mask |= 1 << cell
    else:
        reels_ = tables.gingerbread_reels
        detail = reels_[draw(outcomes, DRAW_GINGERBREAD_REEL, reels_.shape[0])]
        for row in range(rows):
            mask |= 1 << (row * reels + detail)
    events.emit(log, events.FEATURE, F_WISH, wish, detail, mask)
    return mask


@entry
def godmother_wish(tables, outcomes, log, work, tally, mode, win):
    """The Fairy Godmother has appeared on a spin of reel ``mode`` (its step already shown): the
    chance that her bonus follows is drawn then and there, and both draws are recorded. When it
    follows, the orb pick waits for the player (``win``: what the round has won so far) and the
    wish is drawn.

    Returns the wish's cells (a mask), ``NO_WISH`` when the bonus does not follow, ``WISH_WAITS``
    while the orb pick waits, ``WISH_REFUSED`` when a script was refused.
    """
    tally[T_GODMOTHER] += 1
    follows = draw_weighted(outcomes, DRAW_GODMOTHER_BONUS, tables.godmother_bonus) == BONUS_FOLLOWS
    events.emit(log, events.FEATURE, F_APPEARS, 1 if follows else 0, mode)
    if not follows:
        return NO_WISH
    tally[T_GODMOTHER_BONUS] += 1
    orb = decide(outcomes, log, DECISION_ORB, every_option(tables.params[P_ORBS]), win, first_option)
    if orb == WAIT:
        return WISH_WAITS
    if orb < 0:
        return WISH_REFUSED
    events.emit(log, events.FEATURE, F_GODMOTHER, orb)
    return wish_cells(tables, outcomes, log, work, tally)


@entry
def free_wish(tables, outcomes, log, work, tally, mode, row, win):
    """The Fairy Godmother on a free spin (its screen in ``work.window``, shown at step ``row``):
    her wish, when her bonus follows, turns cells WILD for this spin only. Returns the cells
    turned (``NO_WISH`` for none), or ``WISH_WAITS``/``WISH_REFUSED``."""
    cells = godmother_wish(tables, outcomes, log, work, tally, mode, win)
    if cells > 0:
        turn_wild(work.window, cells, tables.params)
        reshow(log, row, work.window)
    return cells
