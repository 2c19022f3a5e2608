"""The Fairy Tale Bonus: the storybook pick, and the feature it reveals (Rumpelstiltskin's Deal
Maker, Jack and the Beanstalk, 3 Little Pigs Free Spins, Rapunzel Free Spins).

The features are compiled as functions of their own: they are rare, so the call costs nothing
that shows, and inlining them would multiply the compile time.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.evaluate import fill_window, stop_line_wins
from slotforge.engine.jit import entry
from slotforge.engine.outcomes import WAIT, decide, decide_with, draw_weighted, strategy_playing
from slotforge.engine.spin import enabled_lines, land
from slotforge.games.wish_upon_a_jackpot.kernels.common import (
    BEAN_GROWS,
    DEAL_OPTIONS,
    F_BEAN,
    F_BONUS_WINNINGS,
    F_DEAL,
    F_EGG,
    F_FAIRY_TALE,
    F_FREE_SPINS,
    F_OFFER,
    F_PIG,
    F_PRINCE,
    LEAVE,
    MODE_PIGS,
    MODE_RAPUNZEL,
    NO_PIG,
    NO_WISH,
    W_BEANSTALK,
    W_DEAL,
    W_EGG,
    WISH_REFUSED,
    WISH_WAITS,
    WOLF,
    appears,
    check_screen,
    deal_answer,
    every_option,
    first_option,
    pay_window,
    pick_cell,
    show,
    turn_wild,
    window_shows,
)
from slotforge.games.wish_upon_a_jackpot.kernels.fields import (
    B_LINES,
    BEANSTALK,
    DEAL_MAKER,
    DECISION_BEAN,
    DECISION_DEAL,
    DECISION_EGG,
    DECISION_STORYBOOK,
    DRAW_BEAN,
    DRAW_EGG,
    DRAW_FEATURE,
    DRAW_OFFER,
    DRAW_PIG,
    OFFERS,
    P_BEANS,
    P_EGGS,
    P_PIG_SPINS,
    P_PRINCE,
    P_STORYBOOKS,
    P_TOP,
    PIGS,
    RAPUNZEL,
    T_BEANSTALK,
    T_BEANSTALK_WIN,
    T_DEAL,
    T_DEAL_TAKEN,
    T_DEAL_WIN,
    T_EGGS,
    T_FAIRY_TALE,
    T_FREE_WISH_WIN,
    T_PIG_SPINS,
    T_PIG_WILDS,
    T_PIGS,
    T_PIGS_WIN,
    T_RAPUNZEL,
    T_RAPUNZEL_SPINS,
    T_RAPUNZEL_WIN,
)
from slotforge.games.wish_upon_a_jackpot.kernels.godmother import free_wish


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
