"""Wish Upon a Jackpot's compiled round: a 5x3, 20-line base game, the Fairy Godmother's wishes on
any spin (base and free), and the Fairy Tale Bonus with its four features (Rumpelstiltskin's Deal
Maker, Jack and the Beanstalk, 3 Little Pigs Free Spins, Rapunzel Free Spins).

Units: a win unit is the line bet (a twentieth of the stake), so a line win in units is the
paytable value and a prize of N x stake is 20 N units.

Cells are numbered in reading order (``row * reels + reel``); a set of cells is an int64 bit
mask. A cell turned WILD by a wish or a pig keeps a BONUS: a wish never takes a Fairy Tale
Bonus away.

Nothing here allocates: every work array comes from :class:`Work`. The features are compiled as
functions of their own: they are rare, so the call costs nothing that shows, and inlining them
would multiply the compile time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet, fill_window, line_wins, stop_line_wins
from slotforge.engine.jit import entry, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.masks import RowMasks, screen_masks
from slotforge.engine.outcomes import WAIT, decide, decide_with, draw, draw_weighted, scripted, strategy_playing
from slotforge.engine.rng import bounded
from slotforge.engine.spin import REFUSAL_FIELDS, enabled_lines, land, refuse

# Reel modes, by index into the stacked tables.
MODE_BASE, MODE_PIGS, MODE_RAPUNZEL = range(3)
MODE_NAMES = ("base", "pigs", "rapunzel")

# What the Fairy Tale Bonus reveals (draw "feature") and what a wish brings (draw "wish").
FEATURES = ("deal_maker", "beanstalk", "three_little_pigs", "rapunzel")
DEAL_MAKER, BEANSTALK, PIGS, RAPUNZEL = range(4)
WISHES = ("puss_in_boots", "pinocchio", "gingerbread_man")
PUSS, PINOCCHIO, GINGERBREAD = range(3)
# A 3 Little Pigs spin (draw "pig"): no pig, pig k turning k cells WILD, or the wolf.
PIG_EVENTS = ("none", "pig_1", "pig_2", "pig_3", "wolf")
NO_PIG, WOLF = 0, 4
OFFERS = 5  # the Deal Maker's offers; the last is paid
GODMOTHER_APPEARS = 0  # index of the "godmother" draw's outcomes: appears, stays away
BONUS_FOLLOWS = 0  # index of the "godmother_bonus" draw's outcomes: the bonus follows, it does not
# What the Fairy Godmother's appearance brings (see godmother_wish): no wish, or a wish's cells.
NO_WISH, WISH_REFUSED, WISH_WAITS = 0, -1, -2
BEAN_GROWS = 0  # index of the "bean" draw's outcomes: grows, COLLECT

# Draw ids (the game's draw_names order).
(
    DRAW_GODMOTHER,
    DRAW_WISH,
    DRAW_PUSS_CELL,
    DRAW_PINOCCHIO_WILDS,
    DRAW_WILD_CELL,
    DRAW_GINGERBREAD_REEL,
    DRAW_FEATURE,
    DRAW_OFFER,
    DRAW_BEAN,
    DRAW_EGG,
    DRAW_PIG,
    DRAW_GODMOTHER_BONUS,
) = range(12)

# Decision ids (the game's decisions order) and the Deal Maker's options.
DECISION_STORYBOOK, DECISION_ORB, DECISION_BEAN, DECISION_EGG, DECISION_DEAL = range(5)
TAKE, LEAVE = 0, 1
DEAL_OPTIONS = (1 << TAKE) | (1 << LEAVE)

# Strategies (the game's strategies order): how the simulator answers the Deal Maker.
S_BEST, S_WORST, S_FIRST, S_LAST = range(4)

# params indexes: symbol ids, then rule numbers (prizes in units).
(P_WILD, P_BONUS, P_PRINCE, P_STORYBOOKS, P_ORBS, P_BEANS, P_EGGS, P_PIG_SPINS, P_TOP, P_LAST) = range(10)

# Bet arguments of the round function.
B_LINES, B_TOTAL_UNITS = range(2)
BET_ARGUMENTS = 2

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

# Simulator tallies (win units unless named otherwise).
TALLY = (
    "base_win",
    "wish_win",
    "godmother",
    "fairy_tale",
    "deal_maker",
    "deal_maker_win",
    "beanstalk",
    "beanstalk_win",
    "three_little_pigs",
    "three_little_pigs_win",
    "rapunzel",
    "rapunzel_win",
    "eggs",
    "pig_spins",
    "pig_wilds",
    "rapunzel_spins",
    "wish_puss_in_boots",
    "wish_pinocchio",
    "wish_gingerbread_man",
    *(f"deal_taken_{n}" for n in range(1, OFFERS + 1)),
    "godmother_bonus",
    "free_wish_win",
)
(
    T_BASE_WIN,
    T_WISH_WIN,
    T_GODMOTHER,
    T_FAIRY_TALE,
    T_DEAL,
    T_DEAL_WIN,
    T_BEANSTALK,
    T_BEANSTALK_WIN,
    T_PIGS,
    T_PIGS_WIN,
    T_RAPUNZEL,
    T_RAPUNZEL_WIN,
    T_EGGS,
    T_PIG_SPINS,
    T_PIG_WILDS,
    T_RAPUNZEL_SPINS,
) = range(16)
T_WISH = 16  # + wish
T_DEAL_TAKEN = 19  # + offer index
T_GODMOTHER_BONUS = 24  # appearances the bonus followed (T_GODMOTHER counts every appearance)
T_FREE_WISH_WIN = 25  # what free spins a wish came in paid, units (multiplier included)


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


# -- the Fairy Godmother ---------------------------------------------------------------------
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


@kernel
def appears(tables, outcomes):
    """Whether the Fairy Godmother appears on this spin (drawn on every spin, in any mode)."""
    return draw_weighted(outcomes, DRAW_GODMOTHER, tables.godmother) == GODMOTHER_APPEARS


@kernel
def base_spin(tables, bet, outcomes, log, work, tally):
    """Land and pay the base game's spin, with the Fairy Godmother's wish when she appears.

    Returns (status, win units, whether the Fairy Tale Bonus starts).
    """
    params = tables.params
    enabled = enabled_lines(bet[B_LINES])
    window = work.window
    forced = land(tables.base, outcomes, work, events.recording(log))
    if forced and not check_screen(tables, MODE_BASE, window, work.info, outcomes.cursors[0] - 1):
        return events.REJECTED, 0, False
    if not appears(tables, outcomes):
        events.emit_step(log, events.BASE, MODE_BASE, 0, 0, window)
        if forced:
            win = pay_window(tables, window, enabled, 1, log, work)
            bonus = params[P_BONUS]
            triggered = (
                window_shows(window, 0, bonus) > 0
                and window_shows(window, 2, bonus) > 0
                and window_shows(window, 4, bonus) > 0
            )
            return events.COMPLETE, win, triggered
        win = stop_line_wins(tables.pay, tables.base, work.stops, enabled, 1, log)
        return events.COMPLETE, win, bonus_on_reels_1_3_5(tables.base.counts, work.stops, params[P_BONUS])
    return godmother_spin(tables, bet, outcomes, log, work, tally, forced)


@entry
def godmother_spin(tables, bet, outcomes, log, work, tally, forced):
    """A base spin the Fairy Godmother appeared on: when her bonus follows, the orb pick waits for
    the player, then the wish changes the screen before it is evaluated."""
    params = tables.params
    window = work.window
    if not forced:
        fill_window(tables.base, work.stops, window)
    row = show(log, events.BASE, MODE_BASE, 0, 0, window)
    cells = godmother_wish(tables, outcomes, log, work, tally, MODE_BASE, 0)
    if cells == WISH_WAITS:
        return events.AWAITING, 0, False
    if cells == WISH_REFUSED:
        return events.REJECTED, 0, False
    bonus = params[P_BONUS]
    if cells != NO_WISH:
        turn_wild(window, cells, params)
        reshow(log, row, window)
    win = pay_window(tables, window, enabled_lines(bet[B_LINES]), 1, log, work)
    if cells != NO_WISH:
        tally[T_WISH_WIN] += win
    triggered = (
        window_shows(window, 0, bonus) > 0 and window_shows(window, 2, bonus) > 0 and window_shows(window, 4, bonus) > 0
    )
    return events.COMPLETE, win, triggered


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


# -- the Fairy Tale Bonus --------------------------------------------------------------------
@entry
def fairy_tale_bonus(tables, bet, outcomes, log, work, tally, win):
    """The storybook pick waits for the player; the feature it reveals is drawn and played.
    ``win`` is what the round has won so far. Returns (status, units the feature pays)."""
    params = tables.params
    book = decide(outcomes, log, DECISION_STORYBOOK, every_option(params[P_STORYBOOKS]), win, first_option)
    if book == WAIT:
        return events.AWAITING, 0
    if book < 0:
        return events.REJECTED, 0
    feature = draw_weighted(outcomes, DRAW_FEATURE, tables.features)
    events.emit(log, events.FEATURE, F_FAIRY_TALE, book, feature)
    tally[T_FAIRY_TALE] += 1
    if feature == DEAL_MAKER:
        status, won = deal_maker(tables, bet, outcomes, log, work, tally, win)
        tally[T_DEAL] += 1
        tally[T_DEAL_WIN] += won
    elif feature == BEANSTALK:
        status, won = beanstalk(tables, bet, outcomes, log, work, tally, win)
        tally[T_BEANSTALK] += 1
        tally[T_BEANSTALK_WIN] += won
    elif feature == PIGS:
        status, won = three_little_pigs(tables, bet, outcomes, log, work, tally, win)
        tally[T_PIGS] += 1
        tally[T_PIGS_WIN] += won
    else:
        status, won = rapunzel(tables, bet, outcomes, log, work, tally, win)
        tally[T_RAPUNZEL] += 1
        tally[T_RAPUNZEL_WIN] += won
    return status, won


@entry
def deal_maker(tables, bet, outcomes, log, work, tally, win):
    """Up to five offers, each a multiple of the stake; TAKE IT or LEAVE IT after each of the
    first four, the fifth is paid. Returns (status, units taken)."""
    events.emit_step(log, events.BONUS, DEAL_MAKER, 0, 0, work.window)
    which = strategy_playing(outcomes)
    for offer in range(OFFERS):
        value = tables.offers[draw_weighted(outcomes, DRAW_OFFER, tables.offer_weights[offer])]
        events.emit(log, events.FEATURE, F_OFFER, offer + 1, value, OFFERS - offer - 1)
        if offer < OFFERS - 1:
            answer = deal_answer(tables, which, offer, value)
            choice = decide_with(outcomes, log, DECISION_DEAL, DEAL_OPTIONS, win, answer)
            if choice == WAIT:
                return events.AWAITING, 0
            if choice < 0:
                return events.REJECTED, 0
            if choice == LEAVE:
                continue
        tally[T_DEAL_TAKEN + offer] += 1
        events.emit(log, events.FEATURE, F_DEAL, offer + 1, value)
        events.emit(log, events.WIN, W_DEAL, offer + 1, value)
        return events.COMPLETE, value
    return events.COMPLETE, 0


@entry
def beanstalk(tables, bet, outcomes, log, work, tally, win):
    """Each bean picked grows the beanstalk or reveals COLLECT, which pays the prize reached;
    past the last prize the Golden Goose's egg pick pays a big win. Returns (status, units)."""
    params = tables.params
    events.emit_step(log, events.BONUS, BEANSTALK, 0, 0, work.window)
    levels = tables.trail.shape[0]
    level = 1
    while level <= levels:
        bean = decide(outcomes, log, DECISION_BEAN, every_option(params[P_BEANS]), win, first_option)
        if bean == WAIT:
            return events.AWAITING, 0
        if bean < 0:
            return events.REJECTED, 0
        grows = draw_weighted(outcomes, DRAW_BEAN, tables.grow[level - 1]) == BEAN_GROWS
        if not grows:
            events.emit(log, events.FEATURE, F_BEAN, bean, 0, level)
            prize = tables.trail[level - 1]
            events.emit(log, events.WIN, W_BEANSTALK, level, prize)
            return events.COMPLETE, prize
        level += 1
        events.emit(log, events.FEATURE, F_BEAN, bean, 1, level)
    egg = decide(outcomes, log, DECISION_EGG, every_option(params[P_EGGS]), win, first_option)
    if egg == WAIT:
        return events.AWAITING, 0
    if egg < 0:
        return events.REJECTED, 0
    prize = tables.eggs[draw_weighted(outcomes, DRAW_EGG, tables.egg_weights)]
    tally[T_EGGS] += 1
    events.emit(log, events.FEATURE, F_EGG, egg, prize)
    events.emit(log, events.WIN, W_EGG, 1, prize)
    return events.COMPLETE, prize


@entry
def three_little_pigs(tables, bet, outcomes, log, work, tally, win):
    """Free spins on the pigs' reels: a pig turns cells WILD, which stay for the rest of the
    feature, until the wolf blows them all away; the Fairy Godmother may appear on any of them.
    ``win`` is what the round has won before. Returns (status, units)."""
    params = tables.params
    enabled = enabled_lines(bet[B_LINES])
    window = work.window
    rows, reels = window.shape
    cells = rows * reels
    spins = params[P_PIG_SPINS]
    events.emit(log, events.FEATURE, F_FREE_SPINS, PIGS, spins)
    wilds = 0
    standing = 0
    total = 0
    for spin in range(1, spins + 1):
        event = draw_weighted(outcomes, DRAW_PIG, tables.pig_events)
        added = 0
        if event == WOLF:
            wilds = 0
            standing = 0
        elif event != NO_PIG:
            for _ in range(min(event, cells - standing)):
                cell = pick_cell(outcomes, wilds, cells, work.info)
                if cell < 0:
                    return events.REJECTED, 0
                wilds |= 1 << cell
                added |= 1 << cell
                standing += 1
        forced = land(tables.pigs, outcomes, work, True)
        if forced and not check_screen(tables, MODE_PIGS, window, work.info, outcomes.cursors[0] - 1):
            return events.REJECTED, 0
        turn_wild(window, wilds, params)
        row = show(log, events.FREE, MODE_PIGS, spin, spins - spin, window)
        if event != NO_PIG:
            events.emit(log, events.FEATURE, F_PIG, event, added, standing)
        tally[T_PIG_SPINS] += 1
        tally[T_PIG_WILDS] += standing
        wish = NO_WISH
        if appears(tables, outcomes):
            wish = free_wish(tables, outcomes, log, work, tally, MODE_PIGS, row, win + total)
            if wish == WISH_WAITS:
                return events.AWAITING, 0
            if wish == WISH_REFUSED:
                return events.REJECTED, 0
        if wilds == 0 and wish == NO_WISH and not forced:
            won = stop_line_wins(tables.pay, tables.pigs, work.stops, enabled, 1, log)
        else:
            won = pay_window(tables, window, enabled, 1, log, work)
        if wish != NO_WISH:
            tally[T_FREE_WISH_WIN] += won
        total += won
    events.emit(log, events.FEATURE, F_BONUS_WINNINGS, PIGS, total)
    return events.COMPLETE, total


@entry
def rapunzel(tables, bet, outcomes, log, work, tally, win):
    """Free spins on the enriched reels until the Prince reaches the top of the tower: each
    PRINCE on reel 5 climbs a level before the spin is paid at that level's multiplier; the
    Bonus Winnings are paid at the top; the Fairy Godmother may appear on any of them. ``win`` is
    what the round has won before. Returns (status, units)."""
    params = tables.params
    enabled = enabled_lines(bet[B_LINES])
    window = work.window
    prince, top = params[P_PRINCE], params[P_TOP]
    events.emit(log, events.FEATURE, F_FREE_SPINS, RAPUNZEL, 0)
    level = 0
    spin = 0
    total = 0
    while level < top:
        spin += 1
        forced = land(tables.rapunzel, outcomes, work, events.recording(log))
        if forced:
            if not check_screen(tables, MODE_RAPUNZEL, window, work.info, outcomes.cursors[0] - 1):
                return events.REJECTED, 0
            climbed = window_shows(window, 4, prince)
        else:
            climbed = tables.rapunzel.counts[4, work.stops[4], prince]
        level = min(level + climbed, top)
        multiplier = tables.ladder[level]
        row = show(log, events.FREE, MODE_RAPUNZEL, spin, 0, window)
        if climbed:
            events.emit(log, events.FEATURE, F_PRINCE, level, multiplier)
        wish = NO_WISH
        if appears(tables, outcomes):
            if not forced:
                fill_window(tables.rapunzel, work.stops, window)
            wish = free_wish(tables, outcomes, log, work, tally, MODE_RAPUNZEL, row, win + total)
            if wish == WISH_WAITS:
                return events.AWAITING, 0
            if wish == WISH_REFUSED:
                return events.REJECTED, 0
        if forced or wish != NO_WISH:
            won = pay_window(tables, window, enabled, multiplier, log, work)
        else:
            won = stop_line_wins(tables.pay, tables.rapunzel, work.stops, enabled, multiplier, log)
        if wish != NO_WISH:
            tally[T_FREE_WISH_WIN] += won
        total += won
    tally[T_RAPUNZEL_SPINS] += spin
    events.emit(log, events.FEATURE, F_BONUS_WINNINGS, RAPUNZEL, total)
    return events.COMPLETE, total


# -- the round -------------------------------------------------------------------------------
@kernel
def play_round(tables, bet, state, outcomes, log, scratch, tally):
    """One complete Wish Upon a Jackpot round; returns (status, win units)."""
    status, win, triggered = base_spin(tables, bet, outcomes, log, scratch, tally)
    if status != events.COMPLETE:
        return status, win
    tally[T_BASE_WIN] += win
    if triggered:
        status, won = fairy_tale_bonus(tables, bet, outcomes, log, scratch, tally, win)
        win += won
    return status, win


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """The simulator's loop compiled around this game's round."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


# -- what the maths measures ----------------------------------------------------------------
# Base spins alone and one feature alone, played many times with the paying round's own parts,
# so that each part's simulated mean can be held against its exact value with far fewer rounds
# than whole games would need.
BASE_SPINS = -1  # the part play_parts plays: base spins, or a feature's index in kernels.FEATURES


@entry
def play_parts(tables, bet, outcomes, log, work, tally, part, times, sums):
    """Play ``times`` base spins (``part`` BASE_SPINS: their line wins, the Fairy Tale Bonus left
    unplayed) or ``times`` features of index ``part``; ``sums`` gets the count, the sum and the sum
    of squares of what they pay (units)."""
    no_win = np.int64(0)
    for _ in range(times):
        if part == BASE_SPINS:
            status, won, _triggered = base_spin(tables, bet, outcomes, log, work, tally)
        elif part == DEAL_MAKER:
            status, won = deal_maker(tables, bet, outcomes, log, work, tally, no_win)
        elif part == BEANSTALK:
            status, won = beanstalk(tables, bet, outcomes, log, work, tally, no_win)
        elif part == PIGS:
            status, won = three_little_pigs(tables, bet, outcomes, log, work, tally, no_win)
        else:
            status, won = rapunzel(tables, bet, outcomes, log, work, tally, no_win)
        if status != events.COMPLETE:
            return status
        sums[0] += 1.0
        sums[1] += won
        sums[2] += float(won) * float(won)
    return events.COMPLETE
