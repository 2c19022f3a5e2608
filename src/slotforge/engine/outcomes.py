"""Where a round's outcomes come from: the random stream, or a script that forces them.

A compiled round never calls a random generator directly. It asks its :class:`Outcomes` for the
next screen, the next named draw or the next player choice; each question is answered from the
script while it lasts and from the random stream after. The simulator passes empty scripts, the
server a secure stream, QA a script: one round function serves them all.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import rng
from slotforge.engine.jit import kernel


class Outcomes(NamedTuple):
    stream: np.ndarray  # uint64: see slotforge.engine.rng
    screens: np.ndarray  # int64[n, rows, reels]: forced screens, in order
    draws: np.ndarray  # int64[names, n]: forced values of each named draw
    draw_counts: np.ndarray  # int64[names]
    choices: np.ndarray  # int64[n]: the player's choices, in order
    cursors: np.ndarray  # int64[2 + names]: next screen, next choice, next draw of each name


SCREEN = 0
CHOICE = 1
DRAW0 = 2


def make_outcomes(
    stream: np.ndarray,
    grid: tuple[int, int],
    screens: list[np.ndarray] | None = None,
    draws: list[list[int]] | None = None,
    choices: list[int] | None = None,
    draw_names: int = 1,
) -> Outcomes:
    """Bundle a stream with forced screens, named draws (by index) and choices."""
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
        cursors=np.zeros(2 + draw_array.shape[0], dtype=np.int64),
    )


def simulation_outcomes(stream: np.ndarray, grid: tuple[int, int], draw_names: int = 1) -> Outcomes:
    """Outcomes drawn from ``stream`` only: nothing forced, no choices."""
    return make_outcomes(stream, grid, draw_names=draw_names)


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
def next_choice(outcomes):
    """The player's next choice, or -1 when the round must wait for it."""
    index = outcomes.cursors[CHOICE]
    if index < outcomes.choices.shape[0]:
        outcomes.cursors[CHOICE] = index + 1
        return outcomes.choices[index]
    return -1


@kernel
def reset(outcomes):
    """Rewind the scripts (the stream is left where it is)."""
    cursors = outcomes.cursors
    for i in range(cursors.shape[0]):
        cursors[i] = 0
