"""Divine Fortune's Free Spins, each with its own Falling Wilds Re-Spins.

Compiled as functions of their own rather than inlined: they are rare, so the call costs
nothing that shows, and inlining them would multiply the compile time.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.jit import feature, kernel
from slotforge.games.divine_fortune.kernels.common import (
    F_RESPINS_OWED,
    T_FREE_PLAYED,
    T_FREE_RESPINS,
    T_FREE_TRIGGERS,
    T_FREE_WIN,
    cell_mask,
)
from slotforge.games.divine_fortune.kernels.reels import spin


# -- free spins ------------------------------------------------------------------------------
@feature
def free_spins(tables, outcomes, log, work, award, tally):
    """Play ``award`` free spins, each followed by its Falling Wilds Re-Spins (extra spins).

    Returns the win units, or -1 when a scripted screen was refused.
    """
    held = work.held_free
    for reel in range(held.shape[0]):
        held[reel] = 0
    total = 0
    left = award
    played = 0
    while left > 0:
        left -= 1
        played += 1
        kind = events.FREE
        while True:
            ok, win, _, _, shown = spin(tables, outcomes, log, work, held, True, kind, played, left, tally)
            if not ok:
                return -1
            total += win
            if kind == events.RESPIN:
                tally[T_FREE_RESPINS] += 1
            if not shown:
                break
            kind = events.RESPIN
    tally[T_FREE_PLAYED] += played
    return total




@kernel
def award_free_spins(tables, outcomes, log, work, award, shown, play_free, tally):
    """Free spins won by a main-game spin, played at once (before the re-spins it owes) by
    ``play_free(tables, outcomes, log, work, award, tally)``; returns their win units, or -1."""
    tally[T_FREE_TRIGGERS] += 1
    events.emit(log, events.FREE_SPINS, award, award, 0)
    if shown and events.recording(log):
        rows, reels = work.window.shape
        events.emit(log, events.FEATURE, F_RESPINS_OWED, cell_mask(work.held, rows, reels))
    win = play_free(tables, outcomes, log, work, award, tally)
    if win > 0:
        tally[T_FREE_WIN] += win
    return win
