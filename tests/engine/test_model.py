"""Model files are validated on load, with errors naming the file and the field."""

from __future__ import annotations

import json

import pytest

from slotforge.engine.model import ModelError
from slotforge.games.dynasty.rules import Dynasty


@pytest.fixture
def raw():
    return json.loads(Dynasty.model_file.read_text())


def load(tmp_path, raw):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(raw))
    return Dynasty(path), path


def error_of(tmp_path, raw) -> str:
    with pytest.raises(ModelError) as caught:
        load(tmp_path, raw)
    return str(caught.value)


def test_the_shipped_model_loads_with_a_fingerprint(tmp_path, raw):
    game, _ = load(tmp_path, raw)
    assert game.model_id.startswith("dynasty/95.00:")
    raw["line_pays"]["DRAGON"]["5"] = 999
    changed, _ = load(tmp_path, raw)
    assert changed.model_id != game.model_id  # a changed paytable is a different model


def test_unknown_symbol_on_a_strip(tmp_path, raw):
    raw["reels"]["base"][2][0] = "UNICORN"
    message = error_of(tmp_path, raw)
    assert "model.json" in message and "reels.base[3]" in message and "UNICORN" in message


def test_wild_on_a_reel_it_may_not_stand_on(tmp_path, raw):
    raw["reels"]["free"][0][0] = "SEAL"
    message = error_of(tmp_path, raw)
    assert "reels.free[1]" in message and "SEAL may only stand on reels [2, 3, 4]" in message


def test_missing_field(tmp_path, raw):
    del raw["grid"]
    assert "grid: Field required" in error_of(tmp_path, raw)


def test_pays_that_fall_with_the_count(tmp_path, raw):
    raw["line_pays"]["KOI"]["5"] = 1
    assert "line_pays.KOI" in error_of(tmp_path, raw)


def test_bad_game_section_names_the_section(tmp_path, raw):
    raw["features"]["free_spins"]["award"] = -1
    message = error_of(tmp_path, raw)
    assert "features.free_spins.award" in message


def test_bad_bet_option_default(tmp_path, raw):
    raw["bet"]["lines"]["default"] = 30
    assert "bet.lines" in error_of(tmp_path, raw)


def test_unknown_field_is_an_error_not_ignored(tmp_path, raw):
    raw["paytable"] = {}
    assert "paytable" in error_of(tmp_path, raw)


def test_not_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{ not json")
    with pytest.raises(ModelError, match=r"broken.json: line 1 column \d+: not valid JSON"):
        Dynasty(path)


# -- the model checked whole: what the code will assume, the model must guarantee ---------------------
def test_more_lines_offered_than_the_paylines_hold_is_refused(tmp_path, raw):
    raw["bet"]["lines"]["max"] = 99
    message = error_of(tmp_path, raw)
    assert "bet.lines: the player may choose 1 to 20 lines of lines_20_5x3; got 1 to 99" in message


def test_a_line_pay_for_more_reels_than_the_grid_has_is_refused(tmp_path, raw):
    raw["line_pays"]["KOI"]["6"] = 500
    message = error_of(tmp_path, raw)
    assert "line_pays.KOI: count 6 cannot happen on a 5x3 screen; expected 1 to 5" in message


def test_a_scatter_pay_beyond_the_cells_is_refused(tmp_path, raw):
    raw["scatter_pays"]["EMPEROR"]["16"] = 5000
    assert "scatter_pays.EMPEROR: count 16 cannot happen on a 5x3 screen; expected 1 to 15" in error_of(tmp_path, raw)


def test_paylines_that_do_not_fit_the_grid_are_refused(tmp_path, raw):
    raw["grid"]["rows"] = 2
    for mode in raw["reels"]:
        raw["reels"][mode] = [strip for strip in raw["reels"][mode]]
    message = error_of(tmp_path, raw)
    assert "paylines: 'lines_20_5x3' uses rows outside a 2-row grid" in message


def test_an_unknown_payline_set_is_refused_naming_the_sets(tmp_path, raw):
    raw["paylines"] = "lines_25_5x3"
    assert "unknown payline set 'lines_25_5x3'; expected one of ['lines_20_5x3', 'lines_40_5x4']" in error_of(
        tmp_path, raw
    )


def test_weights_the_generator_cannot_draw_are_refused(tmp_path):
    from slotforge.games.golden_grimoire.rules import GoldenGrimoire

    raw = json.loads(GoldenGrimoire.model_file.read_text())
    weights = raw["features"]["mystery"]["weights"]
    weights[next(iter(weights))] = 2**32
    path = tmp_path / "model.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ModelError) as refused:
        GoldenGrimoire(path)
    assert "features.mystery.weights" in str(refused.value) and "2**32 - 1" in str(refused.value)
