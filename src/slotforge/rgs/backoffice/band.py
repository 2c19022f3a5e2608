"""Live RTP against theory: the interval a game's actual RTP should fall in after the rounds
played, from the game's variance as its PAR sheet states it.

The actual RTP is the stake-weighted one the books show: total wins over total stakes. Round i
stakes ``s_i`` and wins ``W_i``; with ``E[W_i] = rtp * s_i`` and the PAR sheet's standard deviation
of one round ``sigma`` (a multiple of the total bet), ``sum W / sum s`` has mean ``rtp`` and standard
deviation ``sigma * sqrt(sum s_i^2) / sum s_i``, which is ``sigma / sqrt(n)`` when every stake is the
same, as the PAR sheet's "player's RTP after n rounds" table computes it. The band is the normal
approximation ``rtp +- z * that``; over few rounds a slot's return is skewed (most runs below the
RTP, a few far above), so the band is a guide there and exact only as the rounds grow. A return
is never negative: the band's low end stops at 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from slotforge.maths.stats import z

CONFIDENCE = 0.99
PLACES = Decimal("0.000001")


@dataclass(frozen=True)
class Band:
    """The interval ``[low, high]`` of the actual RTP at ``confidence``, and its half-width."""

    low: Decimal
    high: Decimal
    half_width: Decimal
    confidence: float


def effective_rounds(stakes: int, stake_squares: int | float) -> float:
    """The number of equal-stake rounds whose RTP varies as much as these: ``(sum s)^2 / sum s^2``."""
    return stakes * stakes / stake_squares if stake_squares else 0.0


def band(rtp: Decimal, std: Decimal, stakes: int, stake_squares: int | float,
         confidence: float = CONFIDENCE) -> Band | None:
    """The ``confidence`` interval of the actual RTP of rounds staking ``stakes`` in all (minor
    units) with ``stake_squares`` the sum of each stake squared; None before any round."""
    if stakes <= 0:
        return None
    spread = float(std) * math.sqrt(float(stake_squares)) / stakes
    half = Decimal(repr(z(confidence) * spread)).quantize(PLACES)
    return Band(low=max(Decimal(0), rtp - half).quantize(PLACES), high=(rtp + half).quantize(PLACES), half_width=half,
                confidence=confidence)


def outside(actual: Decimal, found: Band | None) -> bool:
    """Whether an actual RTP lies outside its band (never before any round)."""
    return found is not None and not found.low <= actual <= found.high
