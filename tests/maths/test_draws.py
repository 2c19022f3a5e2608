"""Every mapped draw of every game against its design (chi-square, fixed seed, a stated
family-wise significance level), the enumeration of draws from the models, the bounded mapping's
exactness, and `slotforge rng report`."""

from __future__ import annotations

import re
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
from pydantic import BaseModel, Field
from services import require
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.engine import rng
from slotforge.games import game_codes, load_game
from slotforge.maths import draws as d
from slotforge.reports.rng_report import FAMILY_ALPHA, all_draw_tests, lemire_is_exact, parse_dieharder

SEED = 7_2026


@pytest.fixture(scope="module")
def every_test():
    return [t for by_game in all_draw_tests(SEED).values() for t in by_game]


def test_every_mapped_draw_of_every_game_follows_its_design(every_test):
    """H0 for each draw: its outcomes follow the model's weights. With m tests, each is held at
    FAMILY_ALPHA / m (Bonferroni), so a correct engine fails this test with probability at most
    1% for a random seed; the seed is fixed, so the result is reproducible."""
    alpha = FAMILY_ALPHA / len(every_test)
    rejected = [(t.draw.game, t.draw.where, t.p_value) for t in every_test if t.p_value < alpha]
    assert rejected == []
    assert len({t.draw.game for t in every_test}) == len(game_codes())


def test_the_tests_reject_a_wrong_table_or_range_at_the_same_level(every_test):
    """The same sample sizes catch a real mapping error: draws made with the wrong table, and a
    range one short (a reel stop that never lands)."""
    alpha = FAMILY_ALPHA / len(every_test)
    game = load_game("golden-grimoire")
    found = {t.where: t for t in d.game_draws(game)}
    base, sticky = found["features.mystery.weights"], found["features.sticky_mystery.weights"]
    counts = d.sample(base, d.samples_for(sticky, 200), rng.xoshiro_stream([SEED, 1]))
    assert d.chi_square(sticky, counts).p_value < alpha
    reel = found["reels.base[0] (reel 1 stop)"]
    short = d.Draw(reel.game, reel.where, d.UNIFORM, reel.weights[:-1])
    counts = np.append(d.sample(short, d.samples_for(reel, 200), rng.xoshiro_stream([SEED, 2])), 0)
    assert d.chi_square(reel, counts).p_value < alpha


@pytest.mark.parametrize("code", game_codes())
def test_every_reel_strip_and_cell_table_of_the_model_is_a_draw(code):
    game = load_game(code)
    found = d.game_draws(game)
    strips = [len(strip) for strips in game.spec.reels.values() for strip in strips]
    assert [x.outcomes for x in found if x.where.startswith("reels.")] == strips
    cells = [list(t.values()) for tables in game.spec.cell_weights.values() for t in tables]
    assert [list(x.weights) for x in found if x.where.startswith("cell_weights.")] == cells


def test_feature_tables_are_found_by_their_keys_and_the_game_draw_names():
    game = SimpleNamespace(code="toy", draw_names=("orb",), decisions=(), grid=(3, 5))
    features = {
        "free_spins": {"award": 10, "trigger": 3},  # settings, not weights
        "orb": {"RED": 3, "BLUE": 1},  # named after the game's draw "orb"
        "orb_values": [5, 10],  # amounts
        "levels": [{"prize_weights": [1, 2, 3], "land_chance": [3, 10]}],
    }
    found = d._feature_tables(game, features, "features")
    assert [(x.where, x.weights) for x in found] == [
        ("features.orb", (3, 1)),
        ("features.levels[0].prize_weights", (1, 2, 3)),
        ("features.levels[0].land_chance (3 in 10)", (3, 7)),
    ]


def test_a_validated_schema_s_descriptions_name_its_tables():
    class Feature(BaseModel):
        grow: list[tuple[int, int]] = Field(description="weights of grows and COLLECT at each level")
        reels: list[int] = Field(description="the reels it may turn WILD, equally")
        trail: list[int] = Field(description="the prize at each level")
        chance: tuple[int, int]

    game = SimpleNamespace(code="toy", draw_names=(), decisions=(), grid=(3, 5))
    found = d._feature_tables(game, Feature(grow=[(7, 3), (6, 4)], reels=[2, 3, 4], trail=[1, 5], chance=(1, 8)),
                              "features")
    assert [(x.where, x.kind, x.weights) for x in found] == [
        ("features.grow[0]", d.WEIGHTED, (7, 3)),
        ("features.grow[1]", d.WEIGHTED, (6, 4)),
        ("features.reels (one of 3, equally)", d.UNIFORM, (1, 1, 1)),
        ("features.chance (1 in 8)", d.WEIGHTED, (1, 7)),
    ]


def test_the_engine_draws_a_game_makes_are_listed():
    names = {code: [x.where for x in d.game_draws(load_game(code))] for code in ("dynasty", "moon-of-fortune")}
    assert "gamble card (suit; engine.gamble.card_result)" in names["dynasty"]
    assert "gamble pick (1 of 2; engine.gamble.pick_gamble)" in names["moon-of-fortune"]


def test_a_table_with_a_zero_weight_never_draws_it():
    draw = d.Draw("toy", "t", d.WEIGHTED, (5, 0, 5))
    counts = d.sample(draw, 20_000, rng.xoshiro_stream([SEED, 3]))
    assert counts[1] == 0 and counts.sum() == 20_000
    assert d.chi_square(draw, np.array([9_999, 1, 10_000])).p_value == 0.0


def test_the_bounded_mapping_is_exact_on_small_words():
    assert lemire_is_exact(8)


def test_a_weak_result_that_dieharder_re_ran_counts_once_with_its_outcome():
    """``-Y 1`` prints a weak result, then the same test re-run with more samples: the report
    counts the test once, as the re-run decided."""
    output = """#=============================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
   sts_monobit|   1|    100000|     100|0.99950400|   WEAK
   sts_monobit|   1|    100000|     200|0.61231100|  PASSED
      sts_serial|   1|    100000|     100|0.44100000|  PASSED
      sts_serial|   2|    100000|     100|0.00000010|  FAILED
"""
    results = parse_dieharder(output)
    assert [(r.test, r.ntup, r.psamples, r.assessment) for r in results] == [
        ("sts_monobit", 1, 200, "PASSED"), ("sts_serial", 1, 100, "PASSED"), ("sts_serial", 2, 100, "FAILED")]


def test_rng_report_runs_dieharder_and_every_chi_square(tmp_path):
    require(shutil.which("dieharder") is not None, "dieharder is not installed: apt-get install dieharder")
    path = tmp_path / "rng.md"
    result = CliRunner().invoke(app, ["rng", "report", "--out", str(path), "--dieharder-tests", "100"])
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert "| sts_monobit | 1 | 100,000 | 100 |" in text
    # dieharder calls a p-value below 0.005 or above 0.995 weak: a perfect generator's one test is
    # weak one run in a hundred, and fails (p below 0.000001) one in a million.
    assert re.search(r"\*\*(1 passed, 0 weak|0 passed, 1 weak), 0 failed\.\*\*", text), text
    for code in game_codes():
        assert f"`{code}`" in text
    assert "0 reject the design" in text


def test_rng_report_without_dieharder_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    result = CliRunner().invoke(app, ["rng", "report", "--out", str(tmp_path / "rng.md")])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: dieharder: not found on PATH; the RNG report runs the live generator through it: install "
        "Debian's package: apt-get install dieharder"
    ]
    assert not (tmp_path / "rng.md").exists()


def test_bad_dieharder_test_numbers_are_bad_input(tmp_path):
    result = CliRunner().invoke(app, ["rng", "report", "--out", str(tmp_path / "r.md"), "--dieharder-tests", "1,x"])
    assert result.exit_code == 2
    assert "--dieharder-tests: expected test numbers separated by commas" in result.stderr
