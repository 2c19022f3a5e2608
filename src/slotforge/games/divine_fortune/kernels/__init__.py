"""Divine Fortune's compiled round: Falling Wilds Re-Spins, Wild on Wild, Free Spins and the
Jackpot Bonus game.

The main game (:func:`main_game`) is a spin of the reels (:mod:`.reels`) with its re-spins
and any free spins they win (:mod:`.free_spins`); enough BONUS collected over it starts the
Jackpot Bonus game (:mod:`.bonus_game`). What the parts share is in :mod:`.common`; the
maths' own compiled functions are in :mod:`.measure`.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.jit import kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.games.divine_fortune.kernels.bonus_game import start_bonus
from slotforge.games.divine_fortune.kernels.common import (
    F_BONUS_COLLECTED,
    FEATURE_FIELDS,  # noqa: F401  (the game's FEATURE rows, where the record and its test look)
    P_BONUS_TRIGGER,
    P_FS_TRIGGER,
    T_BASE_WIN,
    T_HITS,
    T_RESPIN_AWARDED,
    T_RESPIN_ROUNDS,
    T_RESPIN_WIN,
    T_RESPINS,
)
from slotforge.games.divine_fortune.kernels.free_spins import award_free_spins, free_spins
from slotforge.games.divine_fortune.kernels.reels import spin


# -- the main game ---------------------------------------------------------------------------
@kernel
def main_game(tables, outcomes, log, work, tally, play_free):
    """A main-game spin and its Falling Wilds Re-Spins; free spins won on the way are played
    at once by ``play_free`` (see :func:`award_free_spins`), the re-spins they interrupt after.

    Returns (ok, win units, the first spin's line win, BONUS collected, BONUS on the first
    spin, free spins awarded by re-spins); ok is False when a scripted screen was refused.
    """
    held = work.held
    for reel in range(held.shape[0]):
        held[reel] = 0
    params, awards = tables.params, tables.awards
    win = 0
    first_win = 0
    collected = 0
    first_collected = 0
    respin_awards = 0
    hit = 0
    index = 0
    kind = events.BASE
    while True:
        ok, spin_win, scatters, coins, shown = spin(tables, outcomes, log, work, held, False, kind, index, 0, tally)
        if not ok:
            return False, win, first_win, collected, first_collected, respin_awards
        if spin_win > 0:
            hit = 1
        if kind == events.BASE:
            tally[T_BASE_WIN] += spin_win
            first_win = spin_win
            first_collected = coins
        else:
            tally[T_RESPIN_WIN] += spin_win
            tally[T_RESPINS] += 1
        win += spin_win
        if coins > 0:
            collected += coins
            events.emit(log, events.FEATURE, F_BONUS_COLLECTED, coins, collected)
        if scatters >= params[P_FS_TRIGGER]:
            hit = 1
            award = awards[min(scatters, awards.shape[0] - 1)]
            if kind != events.BASE:
                respin_awards += award
                tally[T_RESPIN_AWARDED] += award
            free_win = award_free_spins(tables, outcomes, log, work, award, shown, play_free, tally)
            if free_win < 0:
                return False, win, first_win, collected, first_collected, respin_awards
            win += free_win
        if not shown:
            break
        if kind == events.BASE:
            tally[T_RESPIN_ROUNDS] += 1
        kind = events.RESPIN
        index += 1
    if collected >= params[P_BONUS_TRIGGER]:
        hit = 1
    tally[T_HITS] += hit
    return True, win, first_win, collected, first_collected, respin_awards




@kernel
def clear_info(work):
    """Forget the last round's refusal and Mega."""
    info = work.info
    for i in range(info.shape[0]):
        info[i] = 0




# -- the round -------------------------------------------------------------------------------
@kernel
def play_round(tables, bet, state, outcomes, log, work, tally):
    """One complete Divine Fortune round; returns (status, win units).

    The main game (a spin, its Falling Wilds Re-Spins and any free spins they win), then, with
    enough BONUS collected over it, the Jackpot Bonus game.
    """
    clear_info(work)
    ok, win, _, collected, _, _ = main_game(tables, outcomes, log, work, tally, free_spins)
    if not ok:
        return events.REJECTED, win
    if collected < tables.params[P_BONUS_TRIGGER]:
        return events.COMPLETE, win
    status, bonus_win = start_bonus(tables, bet, outcomes, log, work, collected, win, tally)
    return status, win + bonus_win




# -- the simulator's loop --------------------------------------------------------------------
@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Complete rounds, for ``slotforge simulate``, live play and replay."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)
