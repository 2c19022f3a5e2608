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
def card_result(outcomes, card_draw, choice, win):
    """Draw a card for a guess: (card, the win it leaves)."""
    card = draw(outcomes, card_draw, 4)
    factor = 2 if choice <= BLACK else 4
    return card, win * factor if guessed(choice, card) else 0


@kernel
def card_gamble(outcomes, log, win, limit_units, max_gambles, decision, card_draw):
    """Offer the gamble on ``win`` until collected, lost, or no longer possible.

    Returns (status, win units). ``decision`` is the game's id of the gamble decision (its
    options are :data:`CHOICE_NAMES`) and ``card_draw`` the id of its ``card`` draw.
    """
    return gamble_rounds(outcomes, log, win, limit_units, max_gambles, decision, card_draw,
                         offered, card_strategy, card_result, events.GAMBLE)


@kernel
def gamble_rounds(outcomes, log, win, limit_units, max_gambles, decision, draw_id, options_of, strategy, result_of,
                  event):
    """The gamble both kinds share: offer ``options_of(win, gambles, max_gambles, limit)`` (option
    0 is collect) until the win is collected, lost, or nothing else can be offered; each gamble
    is ``result_of(outcomes, draw_id, choice, win) -> (drawn, new win)``, logged as ``event``.
    Returns (status, win units)."""
    gambles = 0
    while win > 0:
        options = options_of(win, gambles, max_gambles, limit_units)
        if options == 1:
            events.emit(log, events.COLLECT, win, 1)
            return events.COMPLETE, win
        choice = decide(outcomes, log, decision, options, win, strategy)
        if choice == WAIT:
            return events.AWAITING, win
        if choice < 0:
            return events.REJECTED, win
        if choice == 0:
            events.emit(log, events.COLLECT, win, 0)
            return events.COMPLETE, win
        drawn, result = result_of(outcomes, draw_id, choice, win)
        events.emit(log, event, choice, drawn, win, result, decision)
        win = result
        gambles += 1
    return events.COMPLETE, win


# The pick gamble: pick one of two symbols; a fair draw names the winning one, which doubles the
# win or loses it. Its options, by index, and the symbols of its draw.
PICK_COLLECT, PICK_SUN, PICK_MOON = range(3)
PICK_NAMES = ("collect", "sun", "moon")
PICK_SYMBOLS = ("SUN", "MOON")
PICK_OPTIONS = (1 << PICK_SUN) | (1 << PICK_MOON)
# Strategies for the simulator: always collect; pick SUN every time a pick is offered (until a
# loss, a cap or the most gambles allowed).
PICK_STRATEGIES = ("collect", "always_sun")
PICK_STRATEGY_COLLECT, PICK_STRATEGY_SUN = range(2)


@kernel
def pick_offered(win, gambles, max_gambles, limit_units):
    """The bitmask of pick-gamble options open for a win: a pick while fewer than
    ``max_gambles`` were played and the doubled win stays within ``limit_units``."""
    options = 1 << PICK_COLLECT
    if gambles < max_gambles and win * 2 <= limit_units:
        options |= PICK_OPTIONS
    return options


@kernel
def pick_strategy(which, decision, offered, win):
    """The option a :data:`PICK_STRATEGIES` strategy takes among those ``offered``."""
    if which == PICK_STRATEGY_SUN and (offered >> PICK_SUN) & 1:
        return PICK_SUN
    return PICK_COLLECT


@kernel
def pick_result(outcomes, pick_draw, choice, win):
    """Draw the winning symbol for a pick: (symbol drawn, the win it leaves)."""
    drawn = draw(outcomes, pick_draw, 2)
    return drawn, win * 2 if drawn == choice - PICK_SUN else 0


@kernel
def pick_gamble(outcomes, log, win, limit_units, max_gambles, decision, pick_draw):
    """Offer the pick gamble on ``win`` until collected, lost, or no longer possible.

    Returns (status, win units). ``decision`` is the game's id of the gamble decision (its
    options are :data:`PICK_NAMES`) and ``pick_draw`` the id of the draw naming the winning
    symbol (0 for SUN, 1 for MOON, each with chance 1/2: the gamble returns exactly 100%).
    """
    return gamble_rounds(outcomes, log, win, limit_units, max_gambles, decision, pick_draw,
                         pick_offered, pick_strategy, pick_result, events.PICK_GAMBLE)
