"""The card gamble: guess a card's colour (x2) or suit (x4), or collect.

Cards come from a fair deck (each suit equally likely), so a gamble returns exactly 100% of
its stake. A guess is offered only while its possible win stays within the operator's amount
limit and fewer than the allowed number of gambles were played; when nothing can be offered the
win is collected automatically.

In the simulator a named strategy answers the gamble (:data:`CARD_STRATEGIES`); a fair gamble
leaves the RTP where it was whatever the strategy, and changes only how wins are spread.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.jit import kernel
from slotforge.engine.outcomes import WAIT, decide, draw

# The gamble decision's options, by index.
COLLECT, RED, BLACK, HEARTS, DIAMONDS, CLUBS, SPADES = range(7)
CHOICE_NAMES = ("collect", "red", "black", "hearts", "diamonds", "clubs", "spades")
# Strategies for the simulator: always collect; guess red, or hearts, every time such a guess is
# offered (until a loss, the limit or the most gambles allowed).
CARD_STRATEGIES = ("collect", "always_red", "always_hearts")
STRATEGY_COLLECT, STRATEGY_RED, STRATEGY_HEARTS = range(3)
COLOUR_OPTIONS = (1 << RED) | (1 << BLACK)
SUIT_OPTIONS = (1 << HEARTS) | (1 << DIAMONDS) | (1 << CLUBS) | (1 << SPADES)
# Card ids: hearts and diamonds are red.
CARD_NAMES = ("HEARTS", "DIAMONDS", "CLUBS", "SPADES")


@kernel
def guessed(choice, card):
    """Whether a colour or suit guess matches the card."""
    if choice == RED:
        return card < 2
    if choice == BLACK:
        return card >= 2
    return card == choice - HEARTS


@kernel
def offered(win, gambles, max_gambles, limit_units):
    """The bitmask of choices open for a win (collect is always open)."""
    options = 1 << COLLECT
    if gambles < max_gambles:
        if win * 2 <= limit_units:
            options |= COLOUR_OPTIONS
        if win * 4 <= limit_units:
            options |= SUIT_OPTIONS
    return options


@kernel
def card_strategy(which, decision, offered, win):
    """The option a :data:`CARD_STRATEGIES` strategy takes among those ``offered``."""
    if which == STRATEGY_RED and (offered >> RED) & 1:
        return RED
    if which == STRATEGY_HEARTS and (offered >> HEARTS) & 1:
        return HEARTS
    return COLLECT


@kernel
def card_gamble(outcomes, log, win, limit_units, max_gambles, decision, card_draw):
    """Offer the gamble on ``win`` until collected, lost, or no longer possible.

    Returns (status, win units). ``decision`` is the game's id of the gamble decision (its
    options are :data:`CHOICE_NAMES`) and ``card_draw`` the id of its ``card`` draw.
    """
    gambles = 0
    while win > 0:
        options = offered(win, gambles, max_gambles, limit_units)
        if options == 1 << COLLECT:
            events.emit(log, events.COLLECT, win, 1)
            return events.COMPLETE, win
        choice = decide(outcomes, log, decision, options, win, card_strategy)
        if choice == WAIT:
            return events.AWAITING, win
        if choice < 0:
            return events.REJECTED, win
        if choice == COLLECT:
            events.emit(log, events.COLLECT, win, 0)
            return events.COMPLETE, win
        card = draw(outcomes, card_draw, 4)
        factor = 2 if choice <= BLACK else 4
        result = win * factor if guessed(choice, card) else 0
        events.emit(log, events.GAMBLE, choice, card, win, result, decision)
        win = result
        gambles += 1
    return events.COMPLETE, win
