"""Random numbers: unbiased bounded draws, weighted draws, replayable buffers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from slotforge.engine import rng

CONFIDENCE = 0.999  # a fair draw fails at most one run in a thousand (fixed seeds: never flaky)


def draw_many(stream, n, count):
    return np.array([rng.bounded(stream, n) for _ in range(count)])


@pytest.mark.parametrize("n", [2, 3, 37, 101, 1000])
def test_bounded_draws_are_uniform(n):
    values = draw_many(rng.xoshiro_stream(20261202 + n), n, 40 * n)
    assert values.min() >= 0 and values.max() < n
    observed = np.bincount(values, minlength=n)
    assert chisquare(observed).pvalue > 1 - CONFIDENCE


def test_bounded_draw_rejects_the_biased_zone():
    """With n close to 2**32 a modulo draw would favour small values by a factor near 2;
    Lemire's rejection keeps the lower and upper halves equally likely."""
    n = 3 * 2**30  # 3/4 of 2**32: modulo would give [0, 2**30) twice the weight
    values = draw_many(rng.xoshiro_stream(7), n, 40_000)
    low = int((values < 2**30).sum())
    expected = len(values) / 3
    assert chisquare([low, len(values) - low], [expected, len(values) - expected]).pvalue > 1 - CONFIDENCE


def test_weighted_draws_follow_their_weights():
    weights = np.array([1, 5, 0, 10, 4])
    cumulative = np.cumsum(weights)
    stream = rng.xoshiro_stream(11)
    picks = np.array([rng.weighted(stream, cumulative) for _ in range(40_000)])
    observed = np.bincount(picks, minlength=len(weights))
    assert observed[2] == 0  # a zero weight is never drawn
    nonzero = weights > 0
    expected = weights[nonzero] / weights.sum() * len(picks)
    assert chisquare(observed[nonzero], expected).pvalue > 1 - CONFIDENCE


def test_same_seed_same_words_and_different_chunks_differ():
    a, b, c = rng.xoshiro_stream([1, 0]), rng.xoshiro_stream([1, 0]), rng.xoshiro_stream([1, 1])
    first = [rng.next_word(a) for _ in range(8)]
    assert first == [rng.next_word(b) for _ in range(8)]
    assert first != [rng.next_word(c) for _ in range(8)]


def test_buffer_replays_its_words_then_flags_exhaustion():
    words = rng.secure_words(4)
    stream = rng.buffer_stream(words)
    assert [rng.next_word(stream) for _ in range(4)] == list(words)
    assert not rng.is_exhausted(stream)
    rng.next_word(stream)  # one past the end still answers, from the fallback
    assert rng.is_exhausted(stream)
    assert list(rng.consumed_words(stream)) == list(words)


def test_secure_words_are_fresh():
    assert not np.array_equal(rng.secure_words(4), rng.secure_words(4))
