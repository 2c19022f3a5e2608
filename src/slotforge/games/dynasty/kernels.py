"""Dynasty's compiled round: a line spin on the base strips, free spins with doubled wins and
unlimited retriggers on their own strips, then the card gamble.

Units: a win unit is one coin at one coin per line; a bet of ``lines`` lines stakes ``lines``
units, and ``coins_per_line`` coins make one unit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events, gamble
from slotforge.engine.evaluate import PayTable, ReelSet
from slotforge.engine.jit import kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.spin import enabled_lines, line_spin


class Tables(NamedTuple):
    pay: PayTable
    base: ReelSet
    free: ReelSet
    params: np.ndarray  # int64: see the P_* indexes


P_AWARD, P_TRIGGER, P_MULTIPLIER, P_RETRIGGER, P_MAX_GAMBLES = range(5)
# Bet arguments of the round function.
B_LINES, B_TOTAL_UNITS, B_GAMBLE_LIMIT = range(3)
# What the simulator tallies.
TALLY = ("base_win", "free_win", "free_spins_triggered", "free_spins_played", "retriggers")
T_BASE_WIN, T_FREE_WIN, T_TRIGGERED, T_PLAYED, T_RETRIGGERS = range(5)
DECISION_GAMBLE = 0
DRAW_CARD = 0
MODE_BASE, MODE_FREE = 0, 1


@kernel
def play_round(tables, bet, state, outcomes, log, scratch, tally):
    """One complete Dynasty round; returns (status, win units)."""
    params = tables.params
    enabled = enabled_lines(bet[B_LINES])
    total_units = bet[B_TOTAL_UNITS]
    win, scatters = line_spin(
        tables.pay, tables.base, events.BASE, MODE_BASE, 0, 0, enabled, total_units, 1, outcomes, log, scratch
    )
    tally[T_BASE_WIN] += win
    left = 0
    if scatters >= params[P_TRIGGER]:
        left = params[P_AWARD]
        tally[T_TRIGGERED] += 1
        events.emit(log, events.FREE_SPINS, left, left, 0)
    played = 0
    while left > 0:
        left -= 1
        played += 1
        spin_win, scatters = line_spin(
            tables.pay, tables.free, events.FREE, MODE_FREE, played, left,
            enabled, total_units, params[P_MULTIPLIER], outcomes, log, scratch,
        )
        win += spin_win
        tally[T_FREE_WIN] += spin_win
        if scatters >= params[P_TRIGGER]:
            left += params[P_RETRIGGER]
            tally[T_RETRIGGERS] += 1
            events.emit(log, events.FREE_SPINS, params[P_RETRIGGER], left, 1)
    tally[T_PLAYED] += played
    return gamble.card_gamble(
        outcomes, log, win, bet[B_GAMBLE_LIMIT], params[P_MAX_GAMBLES], DECISION_GAMBLE, DRAW_CARD
    )


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """The simulator's loop compiled around this game's round."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)
