"""Exact expectations of line games by combinatorics over the reel strips.

Reel stops are uniform and independent, and a strip is a cycle, so the symbol a payline shows
on a reel has the same distribution on every row: the strip's symbol frequencies. Every line
therefore has the same win distribution, which is the distribution of a one-line screen whose
reels show one symbol each. We enumerate every distinct symbol tuple of that one-line screen
and pay it with the engine's own line evaluator, so the RTP we certify is computed by the code
that pays players.

Scatter counts add up over independent reels: the count's distribution is the convolution of
each reel's distribution of how many scatters its window shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet, column_masks, line_wins
from slotforge.engine.jit import entry


@dataclass(frozen=True)
class ScreenMaths:
    """Exact per-spin figures of one reel set, in multiples of the total bet."""

    line_rtp: float  # expected line win per coin bet on each line (= x total bet)
    scatter_rtp: float  # expected scatter pay, x total bet
    scatter_distribution: np.ndarray  # P(scatter count = n)

    def at_least(self, count: int) -> float:
        """Probability of at least ``count`` scatters."""
        return float(self.scatter_distribution[count:].sum())


def symbol_probabilities(reelset: ReelSet, symbols: int) -> np.ndarray:
    """``[reel, symbol]``: the chance a given row of the reel shows the symbol."""
    probs = np.zeros((reelset.strips.shape[0], symbols))
    for reel, length in enumerate(reelset.lengths):
        ids, counts = np.unique(reelset.strips[reel, :length], return_counts=True)
        probs[reel, ids] = counts / length
    return probs


def one_line_table(table: PayTable, reels: int) -> PayTable:
    """The paytable restricted to a single straight line, for enumeration."""
    return table._replace(line_rows=np.zeros((1, reels), dtype=np.int64))


@entry
def _expected_one_line(table, probs):
    reels, symbols = probs.shape
    masks = np.zeros((reels, symbols, symbols), dtype=np.uint64)
    column = np.zeros(1, dtype=np.int64)
    for reel in range(reels):
        for symbol in range(symbols):
            column[0] = symbol
            column_masks(column, reel, table.line_rows, table.counts_as, masks[reel, symbol])
    stops = np.zeros(reels, dtype=np.int64)
    log = np.zeros((0, events.WIDTH), dtype=np.int64)
    expected = 0.0
    while True:
        p = 1.0
        for reel in range(reels):
            p *= probs[reel, stops[reel]]
        if p > 0.0:
            expected += p * line_wins(table, masks, stops, np.uint64(1), 1, log)
        reel = reels - 1
        while reel >= 0:
            stops[reel] += 1
            if stops[reel] < symbols:
                break
            stops[reel] = 0
            reel -= 1
        if reel < 0:
            return expected


def expected_one_line(table: PayTable, probs: np.ndarray) -> float:
    """Expected win of one straight line (``table`` from :func:`one_line_table`), in line bets,
    when reel r shows symbol s with ``probs[r, s]``: every screen of the line enumerated."""
    return float(_expected_one_line(table, probs))


def expected_line_win(table: PayTable, reelset: ReelSet, symbols: int) -> float:
    """Expected win of one payline, in coins per coin bet on it."""
    reels = reelset.strips.shape[0]
    return expected_one_line(one_line_table(table, reels), symbol_probabilities(reelset, symbols))


def count_distribution(reelset: ReelSet, symbol: int) -> np.ndarray:
    """P(the screen shows n of ``symbol``), for n = 0..cells."""
    distribution = np.array([1.0])
    for reel, length in enumerate(reelset.lengths):
        per_reel = np.bincount(reelset.counts[reel, :length, symbol]) / length
        distribution = np.convolve(distribution, per_reel)
    return distribution


def screen_maths(table: PayTable, reelset: ReelSet, symbols: int) -> ScreenMaths:
    """Exact line and scatter expectations of one spin on ``reelset``; the count distribution
    is the first scatter symbol's (the one a game's trigger reads)."""
    line = expected_line_win(table, reelset, symbols)
    if table.scatter_symbols.shape[0] == 0:
        return ScreenMaths(line, 0.0, np.array([1.0]))
    scatter = 0.0
    distributions = [count_distribution(reelset, symbol) for symbol in table.scatter_symbols]
    for distribution, pays in zip(distributions, table.scatter_pays, strict=True):
        scatter += float(distribution @ pays[: len(distribution)])
    return ScreenMaths(line, scatter, distributions[0])


def retrigger_spins(award: int, retrigger_chance: float, retrigger_award: int) -> float:
    """Expected free spins played from one award when each spin retriggers with a chance.

    Each spin adds ``retrigger_award`` spins with probability ``q``, so the expected total N
    solves N = award + q * retrigger_award * N.
    """
    growth = retrigger_chance * retrigger_award
    if growth >= 1.0:
        raise ValueError(f"free spins never end on average: each spin adds {growth:.3f} spins")
    return award / (1.0 - growth)
