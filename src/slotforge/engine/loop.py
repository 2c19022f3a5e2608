"""The compiled loop that plays rounds: the simulator's, and live play's with one round.

Each game compiles this loop around its own round function (a three-line ``simulate_rounds``
with ``jit.loop``), so that the round is inlined into it. Live play, replay and QA scripts run
one round through the same compiled loop with a recording log: one compilation serves the
simulator and the server.
"""

from __future__ import annotations

from slotforge.engine.jit import kernel
from slotforge.engine.outcomes import reset

# Layout of the ``totals`` array.
ROUNDS, WIN_UNITS, HITS, MAX_UNITS, LAST_STATUS = range(5)
TOTALS = 5


@kernel
def run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Play ``rounds`` complete rounds; accumulate into ``totals`` and ``tally``.

    ``state`` is the player's carried state, handed from each round to the next: the rounds
    are one session at one bet. Returns the sum of squared wins (a float, for the variance);
    ``totals[LAST_STATUS]`` is the status of the last round (complete, or awaiting a choice).
    """
    win_sum = 0
    hits = 0
    top = totals[MAX_UNITS]
    squares = 0.0
    status = 0
    for _ in range(rounds):
        reset(outcomes)
        status, win = play_round(tables, bet, state, outcomes, log, scratch, tally)
        win_sum += win
        squares += float(win) * float(win)
        if win > 0:
            hits += 1
            if win > top:
                top = win
    totals[ROUNDS] += rounds
    totals[WIN_UNITS] += win_sum
    totals[HITS] += hits
    totals[MAX_UNITS] = top
    totals[LAST_STATUS] = status
    return squares
