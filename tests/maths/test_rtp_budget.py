"""How a report that simulates spends its budget (Golden Grimoire's free-spin features)."""

from __future__ import annotations

import math

from slotforge.engine.roles import RtpOptions
from slotforge.games.golden_grimoire import maths
from slotforge.games.golden_grimoire.maths import FREE_FEATURES, FREE_HALF_WIDTH, FREE_MAX_BATCHES, next_batch


def batches(options: RtpOptions, half_widths, spent_per_batch: float = 1.0) -> list[int]:
    sizes, done, half_width = [], 0, math.inf
    widths = iter(half_widths)
    while size := next_batch(options, done, half_width, spent_per_batch * len(sizes)):
        sizes.append(size)
        done += size
        half_width = next(widths, half_width)
    return sizes


def test_rounds_asks_for_exactly_that_many_features():
    assert batches(RtpOptions(rounds=FREE_FEATURES * 2 + 5), []) == [FREE_FEATURES, FREE_FEATURES, 5]
    assert batches(RtpOptions(rounds=10), []) == [10]


def test_seconds_runs_batches_until_the_time_is_spent():
    assert batches(RtpOptions(seconds=3.0), [], spent_per_batch=1.0) == [FREE_FEATURES] * 3


def test_the_default_stops_at_the_target_interval_or_the_batch_limit():
    assert batches(RtpOptions(), [FREE_HALF_WIDTH * 2, FREE_HALF_WIDTH * 0.9]) == [FREE_FEATURES] * 2
    assert len(batches(RtpOptions(), [FREE_HALF_WIDTH * 2] * 100)) == FREE_MAX_BATCHES


def test_progress_reports_features_done_against_the_plan(monkeypatch):
    monkeypatch.setattr(maths, "FREE_FEATURES", 1000)
    from slotforge.games import load_game

    seen = []
    maths.free_by_draw(load_game("golden-grimoire"), options=RtpOptions(rounds=2500, progress=lambda d, t: seen.append((d, t))))
    assert seen[:3] == [(1000, 2500), (2000, 2500), (2500, 2500)]
