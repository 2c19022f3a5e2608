"""The designer's integer search and the weight helpers, on functions whose answer is known."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotforge.design.designers import pad, rebalance, tilted
from slotforge.design.search import Lever, Search, Unreachable


@settings(max_examples=200, deadline=None)
@given(
    offset=st.floats(0.5, 0.9),
    slope=st.floats(-1e-3, 1e-3).filter(lambda s: abs(s) > 1e-7),
    where=st.floats(0.0, 1.0),
    high=st.integers(2, 100_000),
)
def test_a_linear_lever_is_found_within_half_a_step(offset: float, slope: float, where: float, high: int) -> None:
    def rtp(values: dict[str, int]) -> float:
        return offset + slope * values["x"]

    ends = sorted((rtp({"x": 0}), rtp({"x": high})))
    target = ends[0] + where * (ends[1] - ends[0])
    search = Search([Lever("x", 0, high, high // 2)], rtp, target, tolerance=1e-12)
    found = search.run()
    assert abs(rtp(found) - target) <= abs(slope) / 2 + 1e-12
    assert len(search.seen) <= 4 + 2 * high.bit_length()  # never a walk over every value


def test_a_finer_lever_closes_what_the_coarse_one_leaves() -> None:
    def rtp(values: dict[str, int]) -> float:
        return 0.95 - 0.01 * values["coarse"] - 0.0003 * values["fine"]

    found = Search([Lever("coarse", 0, 50, 0), Lever("fine", -40, 40, 0)], rtp, 0.9123, 0.00005).run()
    assert abs(rtp(found) - 0.9123) <= 0.00015


def test_a_target_beyond_the_levers_says_how_far_they_go() -> None:
    with pytest.raises(Unreachable, match=r"out of reach within the rules: moving x from 0 to 10 gives 90\.0000% "
                                          r"to 95\.0000%"):
        Search([Lever("x", 0, 10, 0)], lambda v: 0.95 - 0.005 * v["x"], 0.80, 0.0001).run()


@given(
    weights=st.dictionaries(st.sampled_from("ABCDEFG"), st.integers(1, 10_000), min_size=3),
    share=st.floats(0.01, 0.9),
)
def test_rebalance_keeps_the_total_and_gives_the_group_its_weight(weights: dict[str, int], share: float) -> None:
    group = tuple(sorted(weights))[:1]
    total = sum(weights.values())
    wanted = max(1, int(share * total))
    result = rebalance(weights, group, wanted)
    assert sum(result.values()) == total
    assert set(result) == set(weights)
    assert all(w >= 1 for w in result.values())
    assert abs(result[group[0]] - wanted) <= 1


@given(tilt=st.floats(-0.05, 0.05))
def test_a_positive_tilt_lowers_the_mean_value(tilt: float) -> None:
    values, weights = [10, 20, 50, 100, 200], [100_000] * 5
    after = tilted(weights, values, tilt)
    mean = sum(v * w for v, w in zip(values, after, strict=True)) / sum(after)
    assert (mean < 76 if tilt > 1e-4 else mean > 76 if tilt < -1e-4 else abs(mean - 76) < 1)


def test_padding_adds_and_takes_away_in_turn_never_below_one() -> None:
    counts = {"A": 3, "B": 1}
    pad(counts, ("A", "B"), 3, 0)
    assert counts == {"A": 5, "B": 2}
    pad(counts, ("A", "B"), -10, 0)
    assert counts == {"A": 1, "B": 1}
