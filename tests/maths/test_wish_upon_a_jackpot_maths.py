"""Wish Upon a Jackpot's exact maths: the published range, the Deal Maker's strategies, and every
part held against the paying round's own parts played on their own.

Statistical checks are at 99% confidence (z = 2.5758) with fixed seeds, so they never flake; each
states how tight it is, tight enough to see a wrong weight or a wrong table.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from fractions import Fraction

import pytest

from slotforge.games import load_game, maths_of
from slotforge.games.wish_upon_a_jackpot import maths
from slotforge.reports.simulate import simulate

CONFIDENCE = "99%"


@pytest.fixture(scope="module")
def game():
    return load_game("wish-upon-a-jackpot")


@pytest.fixture(scope="module")
def found(game):
    return maths.rtp_parts(game)


def test_the_best_and_the_worst_deal_maker_strategy_give_the_published_range(game):
    # "from 92.46 to 95.26% ... based on player strategy": exactly computed, and exact to the
    # published digits (and to a ten-thousandth of a point beyond them).
    rtps = maths.strategy_rtps(game)
    assert f"{rtps['best'] * 100:.4f}" == "95.2600"
    assert f"{rtps['worst'] * 100:.4f}" == "92.4600"
    assert max(rtps.values()) == rtps["best"] and min(rtps.values()) == rtps["worst"]


def exact_line_value(strips: list[list[str]], pays: dict[str, dict[str, int]]) -> Fraction:
    """A line's expected win (x line bet) on independent uniform strips, counted exactly and
    apart from the engine: every tuple of symbols, weighted by how many stops show it; a line
    pays the better of its leading WILDs' own pay and the first other symbol's run (WILDs
    substituting), which must be a paying symbol (BONUS and PRINCE break it)."""
    counts = [Counter(strip) for strip in strips]
    total = 0
    for combo in itertools.product(*(list(c.items()) for c in counts)):
        symbols = [symbol for symbol, _ in combo]
        weight = math.prod(n for _, n in combo)
        wilds = next((i for i, s in enumerate(symbols) if s != "WILD"), 5)
        best = pays["WILD"].get(str(wilds), 0)
        if wilds < 5 and symbols[wilds] in pays:
            target = symbols[wilds]
            run = next((i for i, s in enumerate(symbols) if s not in ("WILD", target)), 5)
            best = max(best, pays[target].get(str(run), 0))
        total += weight * best
    return Fraction(total, math.prod(len(strip) for strip in strips))


def test_the_rapunzel_reels_are_enriched_a_spin_at_x1_returns_more_than_a_base_spin(game):
    # "Free Spins are played on enriched reels": a spin's line win at x1 is the line's expected
    # win in line bets (20 lines at a twentieth of the stake each), counted exactly here from the
    # model file's strips; the PRINCE on reel 5 pays nothing and breaks lines.
    raw = json.loads(game.path.read_text())
    rapunzel = exact_line_value(raw["reels"]["rapunzel"], raw["line_pays"])
    base = exact_line_value(raw["reels"]["base"], raw["line_pays"])
    assert rapunzel > base * Fraction(11, 10), (float(rapunzel), float(base))
    # The maths module's figures agree with the count.
    found = maths.rtp_parts(game)
    assert abs(found["rapunzel_line_plain"] - float(rapunzel)) < 1e-12
    assert abs(found["line_plain"] - float(base)) < 1e-12


def test_the_fairy_godmother_appears_in_the_free_spins_too(game):
    # Rapunzel's spins are played on their own: she appears in them, her bonus follows some of her
    # appearances, and the wishes pay (the feature's exact value, which counts them, is held
    # against the same play in test_rapunzel_plays_at_its_exact_value).
    tally = maths.feature_mean(game, "rapunzel", 40_000, seed=8)["tally"]
    assert tally["godmother"] > tally["godmother_bonus"] > 0
    assert tally["free_wish_win"] > 0


def test_the_rtp_report_names_its_strategy_and_every_strategys_rtp(game):
    report = maths_of(game).rtp_report()
    assert report["method"].startswith("exact")
    assert report["strategy"] == "best" and report["rtp"] == report["strategies"]["best"]["rtp"]
    assert abs(sum(report["parts"].values()) - report["rtp"]) < 1e-12
    from slotforge.engine.roles import RtpOptions

    worst = maths_of(game).rtp_report(RtpOptions(strategy="worst"))
    assert worst["rtp"] == report["strategies"]["worst"]["rtp"]
    # Only the Deal Maker's part moves with the strategy.
    moved = {part for part in report["parts"] if report["parts"][part] != worst["parts"][part]}
    assert moved == {"deal_maker"}


def test_backward_induction_is_the_best_and_the_worst_of_every_threshold_policy(game):
    # Independently of the induction: every policy "take offer k when it is at least t_k" (t_k any
    # offered value, or never) has an exact value; the best and the worst strategy are the highest
    # and the lowest of them (offers are independent, so an optimal stopping rule is a threshold,
    # and a pessimal one takes exactly what is below a threshold: "take when below t").
    deal = game.features.deal_maker
    offers = [[(Fraction(w, sum(row)), v) for v, w in zip(deal.values, row, strict=True)] for row in deal.weights]
    thresholds = [*deal.values, max(deal.values) + 1]

    def value(policy, take) -> Fraction:
        after = sum(p * v for p, v in offers[-1])
        for offer, t in zip(reversed(offers[:-1]), reversed(policy), strict=True):
            after = sum(p * (v if take(v, t) else after) for p, v in offer)
        return after

    highest = max(value(policy, lambda v, t: v >= t) for policy in itertools.product(thresholds, repeat=4))
    lowest = min(value(policy, lambda v, t: v < t) for policy in itertools.product(thresholds, repeat=4))
    values = maths.deal_values(game)
    assert values["best"] == highest
    assert values["worst"] == lowest
    assert values["first"] == sum(p * v for p, v in offers[0])
    assert values["last"] == sum(p * v for p, v in offers[-1])


@pytest.mark.parametrize("strategy", maths.STRATEGIES)
def test_each_strategy_plays_the_deal_maker_at_its_exact_value(game, found, strategy):
    played = maths.feature_mean(game, "deal_maker", 200_000, strategy, seed=5)
    assert played["ci99"] < 0.15  # x stake: the strategies' values are 2.1 to 21.4 apart
    assert abs(played["mean"] - float(found["deal"][strategy])) < played["ci99"], CONFIDENCE


def test_the_beanstalk_plays_at_its_exact_value(game, found):
    played = maths.feature_mean(game, "beanstalk", 200_000, seed=6)
    assert played["ci99"] < 0.4
    assert abs(played["mean"] - found["beanstalk"]["value"]) < played["ci99"], CONFIDENCE
    eggs = played["tally"]["eggs"] / 200_000
    assert abs(eggs - found["beanstalk"]["eggs_chance"]) < 2.5758 * (eggs * (1 - eggs) / 200_000) ** 0.5


def test_the_three_little_pigs_play_at_their_exact_value(game, found):
    played = maths.feature_mean(game, "three_little_pigs", 40_000, seed=7)
    assert played["ci99"] < 2.0  # of a mean near 75 x stake
    assert abs(played["mean"] - found["pigs"]["value"]) < played["ci99"], CONFIDENCE


def test_rapunzel_plays_at_its_exact_value(game, found):
    played = maths.feature_mean(game, "rapunzel", 40_000, seed=8)
    assert played["ci99"] < 0.6  # of a mean near 49 x stake
    assert abs(played["mean"] - found["rapunzel"]["value"]) < played["ci99"], CONFIDENCE
    spins = played["tally"]["rapunzel_spins"] / 40_000
    assert abs(spins - found["rapunzel"]["spins"]) < 0.1


def test_base_spins_pay_their_exact_line_win(game, found):
    played = maths.base_mean(game, 2_000_000, seed=9)
    exact = (1 - found["godmother"]) * found["line_plain"] + found["godmother"] * found["wish_mean"]
    assert played["ci99"] < 0.005
    assert abs(played["mean"] - exact) < played["ci99"], CONFIDENCE


@pytest.mark.parametrize("wish", ["puss_in_boots", "pinocchio", "gingerbread_man"])
def test_each_wish_pays_its_exact_line_win(game, found, wish):
    played = maths.base_mean(game, 100_000, wish, seed=10)
    assert played["ci99"] < 0.12
    assert abs(played["mean"] - found["wishes"][wish]) < played["ci99"], CONFIDENCE


def test_simulated_rounds_of_the_worst_strategy_hold_its_exact_rtp(game):
    # (The best strategy's, the published RTP, is held in tests/maths/test_published_rtp.py.)
    result = simulate("wish-upon-a-jackpot", 20_000_000, seed=20261203, strategy="worst")
    exact = maths.strategy_rtps(game)["worst"]
    assert result["ci99"] < 0.005
    assert abs(result["rtp"] - exact) < result["ci99"], CONFIDENCE
