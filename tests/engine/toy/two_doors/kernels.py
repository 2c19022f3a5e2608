"""Two Doors' compiled round: a line spin, the meter carried per bet level, the door and the
double-or-nothing."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet
from slotforge.engine.jit import kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.outcomes import WAIT, decide, draw
from slotforge.engine.spin import enabled_lines, line_spin

STAKE_UNITS = 20
DOOR, DOUBLE = range(2)
LEFT, RIGHT = range(2)
KEEP, TWICE = range(2)
COIN = 0
P_EVERY, P_METER_PAY, P_LEFT_PAY, P_RIGHT_PAY = range(4)
S_METER = 0  # the carried state's one field
STRATEGIES = ("left_keep", "right_keep", "right_double")


class Tables(NamedTuple):
    pay: PayTable
    base: ReelSet
    params: np.ndarray


@kernel
def strategy(which, decision, offered, win):
    if decision == DOOR:
        return LEFT if which == 0 else RIGHT
    return TWICE if which == 2 else KEEP


@kernel
def play_round(tables, bet, state, outcomes, log, scratch, tally):
    params = tables.params
    win, _ = line_spin(tables.pay, tables.base, events.BASE, 0, 0, 0, enabled_lines(20), STAKE_UNITS, 1,
                       outcomes, log, scratch)
    state[S_METER] += 1
    if state[S_METER] == params[P_EVERY]:
        state[S_METER] = 0
        win += params[P_METER_PAY]
    door = decide(outcomes, log, DOOR, (1 << LEFT) | (1 << RIGHT), win, strategy)
    if door == WAIT:
        return events.AWAITING, win
    if door < 0:
        return events.REJECTED, win
    if door == LEFT:
        win += params[P_LEFT_PAY]
    elif draw(outcomes, COIN, 2) == 1:
        win += params[P_RIGHT_PAY]
    if win == 0:
        return events.COMPLETE, 0
    double = decide(outcomes, log, DOUBLE, (1 << KEEP) | (1 << TWICE), win, strategy)
    if double == WAIT:
        return events.AWAITING, win
    if double < 0:
        return events.REJECTED, win
    if double == TWICE:
        win = 2 * win if draw(outcomes, COIN, 2) == 1 else 0
    return events.COMPLETE, win


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)
