"""Wish Upon a Jackpot's compiled round: a 5x3, 20-line base game, the Fairy Godmother's wishes on
any spin (base and free, :mod:`.godmother`), and the Fairy Tale Bonus with its four features
(:mod:`.features`). What the parts share is in :mod:`.common`; the packed arrays' fields in
:mod:`.fields`.
"""

from __future__ import annotations

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import fill_window, stop_line_wins
from slotforge.engine.jit import entry, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.spin import enabled_lines, land
from slotforge.games.wish_upon_a_jackpot.kernels.common import (
    FEATURE_FIELDS,  # noqa: F401  (the game's FEATURE rows, where the record and its test look)
    MODE_BASE,
    NO_WISH,
    WISH_REFUSED,
    WISH_WAITS,
    appears,
    bonus_on_reels_1_3_5,
    check_screen,
    pay_window,
    reshow,
    show,
    turn_wild,
    window_shows,
)
from slotforge.games.wish_upon_a_jackpot.kernels.features import (
    beanstalk,
    deal_maker,
    fairy_tale_bonus,
    rapunzel,
    three_little_pigs,
)
from slotforge.games.wish_upon_a_jackpot.kernels.fields import (
    B_LINES,
    BEANSTALK,
    DEAL_MAKER,
    P_BONUS,
    PIGS,
    T_BASE_WIN,
    T_WISH_WIN,
)
from slotforge.games.wish_upon_a_jackpot.kernels.godmother import godmother_wish


# -- the base game ---------------------------------------------------------------------------
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
    the player, then the wish changes the screen before it is evaluated. When it does not follow
    (most of her appearances), the screen is a drawn one left as it stands, paid by its stops."""
    params = tables.params
    window = work.window
    drawn = not forced
    if drawn and events.recording(log):
        fill_window(tables.base, work.stops, window)
    row = show(log, events.BASE, MODE_BASE, 0, 0, window)
    cells = godmother_wish(tables, outcomes, log, work, tally, MODE_BASE, 0)
    if cells == WISH_WAITS:
        return events.AWAITING, 0, False
    if cells == WISH_REFUSED:
        return events.REJECTED, 0, False
    enabled = enabled_lines(bet[B_LINES])
    bonus = params[P_BONUS]
    if cells == NO_WISH and drawn:
        win = stop_line_wins(tables.pay, tables.base, work.stops, enabled, 1, log)
        return events.COMPLETE, win, bonus_on_reels_1_3_5(tables.base.counts, work.stops, bonus)
    if drawn and not events.recording(log):
        fill_window(tables.base, work.stops, window)
    if cells != NO_WISH:
        turn_wild(window, cells, params)
        reshow(log, row, window)
    win = pay_window(tables, window, enabled, 1, log, work)
    if cells != NO_WISH:
        tally[T_WISH_WIN] += win
    triggered = (
        window_shows(window, 0, bonus) > 0 and window_shows(window, 2, bonus) > 0 and window_shows(window, 4, bonus) > 0
    )
    return events.COMPLETE, win, triggered


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
