"""What Divine Fortune's maths measures: compiled functions apart from the round that pays
players, built from the paying round's own parts, so that what they measure is what the
round does.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.jit import entry, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.games.divine_fortune.kernels import clear_info, main_game
from slotforge.games.divine_fortune.kernels.bonus_game import bonus_game, tally_collected
from slotforge.games.divine_fortune.kernels.common import P_BONUS_TRIGGER, Tables
from slotforge.games.divine_fortune.kernels.free_spins import free_spins

# -- what the maths measures ----------------------------------------------------------------
# The compiled functions Divine Fortune's maths plays, apart from the round that pays players.
#
# They are built from the paying round's own parts (above), so what they measure is
# what the round does:
#
# - :func:`conditioned_round`: a main game with free spins and the bonus game replaced by their
#   expected values, returning only what the round adds to its first spin (which the maths
#   knows exactly), in thousandths of a unit;
# - :func:`free_spin_round`: one free spin with its Falling Wilds Re-Spins;
# - :func:`bonus_round`: one Jackpot Bonus game started with a given number of BONUS.
#
# Each has a loop for the simulator (``engine.loop.run_rounds`` around it). The tests hold
# each against the paying round: the conditioned parts against plain simulations, the bonus
# game's exact chances against simulated bonus games.

# Conditioned values are kept in thousandths of a unit: integers, like every win the loop sums.
MILLI = 1000




class Conditioned(NamedTuple):
    """The tables with the expectations a conditioned round puts in place of its features."""

    tables: Tables
    free_spin_milli: np.ndarray  # int64[1]: expected win of one free spin, thousandths of a unit
    bonus_milli: np.ndarray  # int64[cells + 1]: expected bonus game by BONUS collected (0 below the trigger)




class BonusStart(NamedTuple):
    """The tables and how many BONUS start each simulated bonus game."""

    tables: Tables
    collected: np.ndarray  # int64[1]




@entry
def no_free_spins(tables, outcomes, log, work, award, tally):
    """Free spins left unplayed: a conditioned round adds their expectation instead."""
    return 0




@kernel
def conditioned_round(conditioned, bet, state, outcomes, log, work, tally):
    """What a main-game round adds to its first spin, in thousandths of a unit.

    The first spin's line win, free spins award and BONUS are computed exactly apart; what a
    round adds beyond them is its re-spins' line wins, the expected win of the free spins they
    award, and how much the BONUS they collect raise the bonus game's expected value. Replacing
    free spins and the bonus game by their expectations keeps their variance out.
    """
    tables = conditioned.tables
    clear_info(work)
    ok, win, first_win, collected, first_collected, respin_awards = main_game(
        tables, outcomes, log, work, tally, no_free_spins
    )
    bonus = conditioned.bonus_milli
    cells = bonus.shape[0] - 1
    if collected >= tables.params[P_BONUS_TRIGGER]:
        tally_collected(tables, work, collected, tally)
    value = (win - first_win) * MILLI + respin_awards * conditioned.free_spin_milli[0]
    value += bonus[min(collected, cells)] - bonus[min(first_collected, cells)]
    return events.COMPLETE if ok else events.REJECTED, value




@kernel
def free_spin_round(tables, bet, state, outcomes, log, work, tally):
    """One free spin with its re-spins, as a round of its own (the RTP's free-spin part)."""
    return events.COMPLETE, free_spins(tables, outcomes, log, work, 1, tally)




@kernel
def bonus_round(start, bet, state, outcomes, log, work, tally):
    """One Jackpot Bonus game started with ``start.collected[0]`` BONUS, at the bet's stake;
    its win units leave out the Mega (``tally`` counts it)."""
    clear_info(work)
    win = bonus_game(start.tables, bet, outcomes, log, work, start.collected[0], tally)
    return events.COMPLETE if win >= 0 else events.REJECTED, win




@loop
def simulate_conditioned(conditioned, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Conditioned rounds (the RTP report's re-spins and BONUS collection)."""
    return run_rounds(conditioned_round, conditioned, bet, state, outcomes, log, scratch, rounds, tally, totals)




@loop
def simulate_free_spins(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Single free spins with their re-spins (the RTP report's free-spin part)."""
    return run_rounds(free_spin_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)




@loop
def simulate_bonus_games(start, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Bonus games from a fixed number of BONUS (to test the exact bonus maths)."""
    return run_rounds(bonus_round, start, bet, state, outcomes, log, scratch, rounds, tally, totals)
