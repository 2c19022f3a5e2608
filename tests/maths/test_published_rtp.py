"""Each shipped model pays its published RTP, at 99% confidence with fixed seeds.

Two independent checks per game: the RTP report (exact, or exact with a simulated part and its
99% interval) and a simulation of complete rounds through the round function that pays players,
whose 99% interval must hold the published figure. A model off by a few tenths of a percent
fails; with the seeds fixed the tests never flake.

Golden Grimoire's RTP report is checked in tests/design/test_certify.py, beside the
certifications of its versions: they share its exact base game, enumerated once per process.
"""

from __future__ import annotations

import pytest

from slotforge.games import load_game, maths_of
from slotforge.reports.simulate import simulate

CONFIDENCE = "99%"  # the level of every interval below (z = 2.5758)


def test_dynasty_exact_rtp_is_the_published_rtp():
    game = load_game("dynasty")
    report = maths_of(game).rtp_report()
    assert report["method"] == "exact"
    # Published to two decimals of a percent: the exact figure rounds to it.
    assert abs(report["rtp"] - float(game.spec.rtp)) <= 0.00005


def test_dynasty_simulated_rounds_hold_the_published_rtp():
    game = load_game("dynasty")
    result = simulate("dynasty", 50_000_000, seed=20261203)
    assert result["ci99"] < 0.002  # tight enough to see a wrong strip
    assert abs(result["rtp"] - float(game.spec.rtp)) < result["ci99"], CONFIDENCE


@pytest.mark.slow
@pytest.mark.slow
def test_golden_grimoire_simulated_rounds_hold_the_published_rtp():
    game = load_game("golden-grimoire")
    result = simulate("golden-grimoire", 30_000_000, seed=20261203)
    assert result["ci99"] < 0.002
    assert abs(result["rtp"] - float(game.spec.rtp)) < result["ci99"], CONFIDENCE


def test_wish_upon_a_jackpot_exact_rtp_is_the_published_range():
    # Published as "from 92.46 to 95.26%": the worst and the best Deal Maker strategy.
    game = load_game("wish-upon-a-jackpot")
    report = maths_of(game).rtp_report()
    assert report["method"].startswith("exact")
    assert abs(report["strategies"]["best"]["rtp"] - float(game.spec.rtp)) <= 0.00005
    assert abs(report["strategies"]["worst"]["rtp"] - 0.9246) <= 0.00005


def test_wish_upon_a_jackpot_simulated_rounds_hold_the_published_rtp():
    game = load_game("wish-upon-a-jackpot")
    result = simulate("wish-upon-a-jackpot", 40_000_000, seed=20261203, strategy="best")
    assert result["ci99"] < 0.0035  # the features' spread: 7.8 x stake per round
    assert abs(result["rtp"] - float(game.spec.rtp)) < result["ci99"], CONFIDENCE
