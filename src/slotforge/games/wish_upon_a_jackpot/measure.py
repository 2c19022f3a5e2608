"""The compiled functions Wish Upon a Jackpot's maths tests play, apart from the round that pays
players: base spins alone and one feature alone, played many times with the paying round's own
parts (:mod:`.kernels`), so that each part's simulated mean can be held against its exact value
with far fewer rounds than whole games would need. A script may force draws on every spin (the
Fairy Godmother and her wish), which conditions the spins on them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from slotforge.engine import events
from slotforge.engine.game import Operator
from slotforge.engine.jit import entry
from slotforge.engine.rng import xoshiro_stream
from slotforge.engine.round import Script
from slotforge.games.wish_upon_a_jackpot import kernels as k

BASE_SPINS = -1  # the part play_parts plays: base spins, or a feature's index in kernels.FEATURES


@entry
def play_parts(tables, bet, outcomes, log, work, tally, part, times, sums):
    """Play ``times`` base spins (``part`` BASE_SPINS: their line wins, the Fairy Tale Bonus left
    unplayed) or ``times`` features of index ``part``; ``sums`` gets the count, the sum and the sum
    of squares of what they pay (units)."""
    no_win = np.int64(0)
    for _ in range(times):
        if part == BASE_SPINS:
            status, won, _triggered = k.base_spin(tables, bet, outcomes, log, work, tally)
        elif part == k.DEAL_MAKER:
            status, won = k.deal_maker(tables, bet, outcomes, log, work, tally, no_win)
        elif part == k.BEANSTALK:
            status, won = k.beanstalk(tables, bet, outcomes, log, work, tally, no_win)
        elif part == k.PIGS:
            status, won = k.three_little_pigs(tables, bet, outcomes, log, work, tally, no_win)
        else:
            status, won = k.rapunzel(tables, bet, outcomes, log, work, tally, no_win)
        if status != events.COMPLETE:
            return status
        sums[0] += 1.0
        sums[1] += won
        sums[2] += float(won) * float(won)
    return events.COMPLETE


def summary(sums: np.ndarray, stake: int) -> dict[str, float]:
    """The mean and its 99% half-width, in multiples of the stake."""
    n, total, squares = sums
    mean = total / n
    std = np.sqrt(max(squares / n - mean * mean, 0.0))
    return {"mean": mean / stake, "ci99": 2.5758 * std / np.sqrt(n) / stake}


def played(game, outcomes, part: int, times: int) -> dict[str, Any]:
    """``times`` of a part (see :func:`play_parts`) at the default stake, from ``outcomes``: the
    mean and its 99% half-width (x stake) and the simulator's tallies."""
    bet = game.parse_bet({})
    tally = np.zeros(len(k.TALLY), dtype=np.int64)
    sums = np.zeros(3)
    arguments = game.bet_arguments(bet, Operator())
    status = play_parts(game.tables, arguments, outcomes, events.off(), game.scratch(), tally, part, times, sums)
    assert status == events.COMPLETE
    return {**summary(sums, bet.total_units), "tally": dict(zip(k.TALLY, tally, strict=True))}


def base_mean(game, times: int, wish: str | None = None, seed: int = 1) -> dict[str, Any]:
    """Base spins' mean line win (x stake) with its 99% half-width: the game's own mix of spins,
    or (``wish``) every spin with the Fairy Godmother appearing, her bonus following and granting
    that wish."""
    draws: list[list[int]] = [[] for _ in game.draw_names]
    if wish is not None:
        draws[k.DRAW_GODMOTHER] = [k.GODMOTHER_APPEARS] * times
        draws[k.DRAW_GODMOTHER_BONUS] = [k.BONUS_FOLLOWS] * times
        draws[k.DRAW_WISH] = [k.WISHES.index(wish)] * times
    outcomes = game.outcomes(xoshiro_stream([seed, 9]), Script(draws=draws), strategy=0)
    return played(game, outcomes, BASE_SPINS, times)


def feature_mean(game, feature: str, times: int, strategy: str | None = None, seed: int = 1) -> dict[str, Any]:
    """A feature played ``times`` times on its own under ``strategy``: its mean prize and the 99%
    half-width (x stake), and the simulator's tallies."""
    part = k.FEATURES.index(feature)
    outcomes = game.outcomes(xoshiro_stream([seed, part]), strategy=game.strategy_index(strategy))
    return played(game, outcomes, part, times)
