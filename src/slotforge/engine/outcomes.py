"""Where a round's outcomes come from: the random stream, or a script that forces them.

A compiled round never calls a random generator directly. It asks its :class:`Outcomes` for the
next screen, the next named draw or the next player choice; each question is answered from the
script while it lasts and from the random stream after. The simulator passes empty scripts, the
server a secure stream, QA a script: one round function serves them all.

A decision is answered by the script's next choice, else by the round's strategy: in the
simulator a named strategy of the game (an index into ``Game.strategies``), in live play
``WAIT``, which makes the round stop and wait for the player.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events, rng
from slotforge.engine.jit import kernel


class Outcomes(NamedTuple):
    stream: np.ndarray  # uint64: see slotforge.engine.rng
    screens: np.ndarray  # int64[n, rows, reels]: forced screens, in order
    draws: np.ndarray  # int64[names, n]: forced values of each named draw
    draw_counts: np.ndarray  # int64[names]
    choices: np.ndarray  # int64[n]: the player's choices, in order, as ids of the game's choice names
    options: np.ndarray  # int64[decisions, choice names]: each name's index among a decision's options
    strategy: np.ndarray  # int64[1]: the game's strategy answering unscripted decisions, or WAIT
    cursors: np.ndarray  # int64[2 + names]: next screen, next choice, next draw of each name


SCREEN = 0
CHOICE = 1
DRAW0 = 2

WAIT = -1  # no choice given and no strategy: the round waits for the player
NOT_AN_OPTION = -2  # a choice name that is not among the decision's options
ANSWER = -3  # neither script nor live play takes the decision: the strategy answers


def option_table(decisions: list[tuple[str, ...]], names: tuple[str, ...]) -> np.ndarray:
    """``[decision, name]``: the index of choice ``name`` among the decision's own options,
    or ``NOT_AN_OPTION``."""
    table = np.full((max(1, len(decisions)), max(1, len(names))), NOT_AN_OPTION, dtype=np.int64)
    for d, options in enumerate(decisions):
        for index, option in enumerate(options):
            table[d, names.index(option)] = index
    return table


def make_outcomes(
    stream: np.ndarray,
    grid: tuple[int, int],
    screens: list[np.ndarray] | None = None,
    draws: list[list[int]] | None = None,
    choices: list[int] | None = None,
    draw_names: int = 1,
    options: np.ndarray | None = None,
    strategy: int = WAIT,
) -> Outcomes:
    """Bundle a stream with forced screens, named draws (by index) and choices.

    ``options`` is the game's :func:`option_table`; ``strategy`` answers the decisions the
    choices leave open (``WAIT`` in live play).
    """
    rows, reels = grid
    screen_array = np.zeros((len(screens or []), rows, reels), dtype=np.int64)
    for i, screen in enumerate(screens or []):
        screen_array[i] = screen
    draws = draws or [[] for _ in range(draw_names)]
    width = max([1] + [len(d) for d in draws])
    draw_array = np.zeros((max(draw_names, len(draws)), width), dtype=np.int64)
    for name, values in enumerate(draws):
        draw_array[name, : len(values)] = values
    draw_counts = np.zeros(draw_array.shape[0], dtype=np.int64)
    draw_counts[: len(draws)] = [len(d) for d in draws]
    return Outcomes(
        stream=stream,
        screens=screen_array,
        draws=draw_array,
        draw_counts=draw_counts,
        choices=np.asarray(choices or [], dtype=np.int64),
        options=option_table([], ()) if options is None else options,
        strategy=np.array([strategy], dtype=np.int64),
        cursors=np.zeros(2 + draw_array.shape[0], dtype=np.int64),
    )


def simulation_outcomes(
    stream: np.ndarray, grid: tuple[int, int], draw_names: int = 1, options: np.ndarray | None = None,
    strategy: int = 0,
) -> Outcomes:
    """Outcomes drawn from ``stream`` only: nothing forced, every decision left to ``strategy``."""
    return make_outcomes(stream, grid, draw_names=draw_names, options=options, strategy=strategy)


@kernel
def forced_screen(outcomes):
    """The index of the next forced screen, or -1 when the script has none left."""
    index = outcomes.cursors[SCREEN]
    if index < outcomes.screens.shape[0]:
        outcomes.cursors[SCREEN] = index + 1
        return index
    return -1


@kernel
def scripted(outcomes, name):
    """(True, value) for the next scripted value of draw ``name``; (False, 0) when none is left."""
    slot = DRAW0 + name
    index = outcomes.cursors[slot]
    if index < outcomes.draw_counts[name]:
        outcomes.cursors[slot] = index + 1
        return True, outcomes.draws[name, index]
    return False, 0


@kernel
def draw(outcomes, name, n):
    """Named draw of a uniform integer in ``[0, n)``: forced value if scripted."""
    forced, value = scripted(outcomes, name)
    return value if forced else rng.bounded(outcomes.stream, n)


@kernel
def draw_weighted(outcomes, name, cumulative):
    """Named weighted draw of an index: forced value if scripted."""
    forced, value = scripted(outcomes, name)
    return value if forced else rng.weighted(outcomes.stream, cumulative)


@kernel
def next_choice(outcomes, decision):
    """The script's next choice as an index among ``decision``'s options: ``WAIT`` when the
    script has none left, ``NOT_AN_OPTION`` when it names none of this decision's options."""
    index = outcomes.cursors[CHOICE]
    if index < outcomes.choices.shape[0]:
        outcomes.cursors[CHOICE] = index + 1
        return outcomes.options[decision, outcomes.choices[index]]
    return WAIT


@kernel
def decide(outcomes, log, decision, offered, win, strategy):
    """The option taken at ``decision``, among the ``offered`` ones (a bitmask of option indexes).

    :func:`decide_with` where the strategy's answer is ``strategy(index, decision, offered,
    win)``, the game's compiled strategy function, asked only when the strategy answers.
    """
    taken = unanswered(outcomes, log, decision, offered, win)
    if taken != ANSWER:
        return taken
    return checked_choice(log, decision, offered, strategy(strategy_playing(outcomes), decision, offered, win), -1)


@kernel
def strategy_playing(outcomes):
    """The index of the strategy answering this round's unscripted decisions (``WAIT`` in live
    play): what a game reads to work out its answer for :func:`decide_with`."""
    return outcomes.strategy[0]


@kernel
def decide_with(outcomes, log, decision, offered, win, answer):
    """The option taken at ``decision``, among the ``offered`` ones, given ``answer``: the option
    the strategy of :func:`strategy_playing` takes here.

    The script's next choice comes first; then live play (``WAIT``) emits ``AWAIT`` and returns
    ``WAIT``; else the strategy's ``answer`` is taken. A choice not offered emits
    ``INVALID_CHOICE`` and returns ``NOT_AN_OPTION``. A game calls this itself when its answer
    needs the game's own tables (an offer weighed against what is still to come); else
    :func:`decide` asks the strategy function.
    """
    taken = unanswered(outcomes, log, decision, offered, win)
    if taken != ANSWER:
        return taken
    return checked_choice(log, decision, offered, answer, -1)


@kernel
def unanswered(outcomes, log, decision, offered, win):
    """The decision as taken before any strategy is asked: the script's next choice (checked),
    ``WAIT`` in live play (``AWAIT`` emitted), else ``ANSWER``: the strategy answers. The
    simulator asks its strategy only after this, so that no round pays for an answer unused."""
    choice = next_choice(outcomes, decision)
    if choice != WAIT:
        return checked_choice(log, decision, offered, choice, outcomes.choices[outcomes.cursors[CHOICE] - 1])
    if strategy_playing(outcomes) == WAIT:
        events.emit(log, events.AWAIT, decision, offered, win)
        return WAIT
    return ANSWER


@kernel
def checked_choice(log, decision, offered, choice, named):
    """``choice`` when it is among the ``offered`` options; else ``INVALID_CHOICE`` is emitted
    (naming the script's choice id ``named``, -1 for a strategy's) and ``NOT_AN_OPTION`` returned."""
    if choice < 0 or choice >= 63 or not (offered >> choice) & 1:
        events.emit(log, events.INVALID_CHOICE, decision, named, offered)
        return NOT_AN_OPTION
    return choice


@kernel
def reset(outcomes):
    """Rewind the scripts (the stream is left where it is)."""
    cursors = outcomes.cursors
    for i in range(cursors.shape[0]):
        cursors[i] = 0
