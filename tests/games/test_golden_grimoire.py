"""Golden Grimoire: one scenario per bullet of the published rules (seeds/004_40ef52866f692753.txt).

Every round is forced through the script interface of SCENARIOS.md (``parse_script`` + ``play``).
Each test states the screen it expects after the transformations, worked out by hand from the
rules, and checks every line win against a plain reference evaluator written here from the
paytable (games/golden-grimoire.md) and the 40 paylines ``lines_40_5x4``. A few tests drive the
``slotforge`` command itself.

Paylines used by name below (row per reel, 0 = top):
     1 [1,1,1,1,1]   2 [2,2,2,2,2]   3 [0,0,0,0,0]   4 [3,3,3,3,3]
"""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.engine import events
from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import Operator, ScriptError
from slotforge.engine.model import ModelError, paylines
from slotforge.engine.rng import buffer_stream
from slotforge.games import load_game
from slotforge.games.golden_grimoire.kernels import POOL, changed_screen_win, screen_win
from slotforge.games.golden_grimoire.rules import GoldenGrimoire
from tests import scripts

PAYTABLE = {
    "SPIDER": {3: 10, 4: 30, 5: 100},
    "OCTOPUS": {3: 8, 4: 25, 5: 75},
    "SNAKE": {3: 5, 4: 20, 5: 40},
    "BEETLE": {3: 5, 4: 15, 5: 30},
    "HEART": {3: 4, 4: 10, 5: 20},
    "DIAMOND": {3: 4, 4: 10, 5: 20},
    "CLUB": {3: 3, 4: 8, 5: 15},
    "SPADE": {3: 3, 4: 8, 5: 15},
}
LINES = paylines("lines_40_5x4")
CENT = Decimal("0.01")

# A screen that pays nothing: reel 1 shows only HEART, reel 2 only CLUB.
ROW = ["HEART", "CLUB", "SPADE", "DIAMOND", "BEETLE"]
BLANK = [list(ROW) for _ in range(4)]
# One SCATTER on each of reels 1, 3 and 5; no line can pay (reel 2 shows no HEART).
TRIGGER = [
    ["SCATTER", "CLUB", "SPADE", "DIAMOND", "BEETLE"],
    ["HEART", "CLUB", "SCATTER", "DIAMOND", "BEETLE"],
    ["HEART", "CLUB", "SPADE", "DIAMOND", "SCATTER"],
    list(ROW),
]


@pytest.fixture(scope="module")
def game() -> GoldenGrimoire:
    return load_game("golden-grimoire")


def screen(**rows: list[str]) -> list[list[str]]:
    """BLANK with some rows replaced: ``screen(row0=[...], row2=[...])``."""
    result = copy.deepcopy(BLANK)
    for name, cells in rows.items():
        result[int(name[3:])] = list(cells)
    return result


def play(game, screens, mysteries=None, seed=7, **options):
    """A scripted round whose Mysteries become ``mysteries`` (symbol codes), in turn."""
    return scripts.play(game, screens, {"mystery_symbol": mysteries or []}, seed=seed, **options)


def reference_wins(grid: list[list[str]]) -> dict[int, tuple[str, int, int]]:
    """Line -> (symbol, count, pay) from a plain reading of the rules: reel 1's symbol, run
    left to right through that symbol or WILD, the paytable's pay for the run."""
    wins = {}
    for number, rows in enumerate(LINES, start=1):
        cells = [grid[row][reel] for reel, row in enumerate(rows)]
        first = cells[0]
        if first not in PAYTABLE:
            continue
        count = 1
        while count < len(cells) and cells[count] in (first, "WILD"):
            count += 1
        if count in PAYTABLE[first]:
            wins[number] = (first, count, PAYTABLE[first][count])
    return wins


def step_wins(step, unit=CENT) -> dict[int, tuple[str, int, int]]:
    wins = {}
    for win in step["wins"]:
        assert win["kind"] == "line"
        assert win["line"] not in wins, "a line is paid only once"
        wins[win["line"]] = (win["symbol"], win["count"], int(Decimal(win["amount"]) / unit))
    return wins


def assert_paid_as_shown(step, unit=CENT):
    """The step's wins are exactly the reference evaluation of the screen it shows."""
    assert step_wins(step, unit) == reference_wins(step["screen"])


def events_of(step, kind):
    return [e for e in step["events"] if e["type"] == kind]


def cells(*pairs):
    return [{"row": row, "reel": reel} for row, reel in pairs]


# -- Game overview -------------------------------------------------------------------------


def test_bet_is_20_coins_per_level_and_line_wins_scale_with_level_and_coin_value(game):
    row3 = ["CLUB", "CLUB", "CLUB", "CLUB", "CLUB"]
    one = play(game, [screen(row3=row3)])
    five = play(game, [screen(row3=row3)], bet={"bet_level": 5, "coin_value": "0.20"})
    assert one["total_bet"] == "0.20"
    assert five["total_bet"] == "20.00"  # 20 coins x 5 x 0.20
    # Line 4 (bottom row) CLUB x5 = 15 coins per level: 15 x 5 coins x 0.20.
    assert step_wins(one["steps"][0])[4] == ("CLUB", 5, 15)
    line4 = next(w for w in five["steps"][0]["wins"] if w["line"] == 4)
    assert Decimal(line4["amount"]) == 15 * 5 * Decimal("0.20")
    assert Decimal(five["total_win"]) == Decimal(one["total_win"]) * 5 * 20


def test_only_the_highest_win_per_line_and_simultaneous_wins_add(game):
    record = play(game, [screen(row3=["CLUB"] * 5)])
    step = record["steps"][0]
    assert_paid_as_shown(step)
    # Line 4 pays CLUB x5 (15) once, not also x3 and x4.
    assert [w["count"] for w in step["wins"] if w["line"] == 4] == [5]
    assert Decimal(record["total_win"]) == sum(Decimal(w["amount"]) for w in step["wins"])
    assert len(step["wins"]) > 1


def test_line_wins_pay_left_to_right_in_succession_only(game):
    record = play(game, [screen(row1=["SPADE", "CLUB", "SPADE", "SPADE", "SPADE"])])
    assert record["total_win"] == "0.00"
    assert record["steps"][0]["wins"] == []


@pytest.mark.parametrize(
    "bet, field",
    [
        ({"bet_level": 0}, "bet.bet_level"),
        ({"bet_level": 11}, "bet.bet_level"),
        ({"bet_level": "3"}, "bet.bet_level"),
        ({"bet_level": 2.0}, "bet.bet_level"),
        ({"bet_level": True}, "bet.bet_level"),
        ({"coin_value": "0.03"}, "bet.coin_value"),
        ({"coin_value": 0.01}, "bet.coin_value"),
        ({"lines": 40}, "bet.lines"),
    ],
)
def test_bad_bets_are_refused_naming_the_field(game, bet, field):
    with pytest.raises(BetError, match=field.replace(".", r"\.")):
        game.parse_bet(bet)


def test_every_offered_bet_is_accepted_with_exact_money(game):
    for level in range(1, 11):
        for value in ("0.01", "0.02", "0.05", "0.10", "0.20", "0.50", "1.00", "2.00"):
            bet = game.parse_bet({"bet_level": level, "coin_value": value})
            assert bet.total_bet == 20 * level * Decimal(value)
            assert bet.amount(7) == 7 * level * Decimal(value)


# -- Mystery symbol feature ----------------------------------------------------------------


def test_two_mysteries_in_one_row_both_fill_toward_reel_1(game):
    record = play(game, [screen(row0=["HEART", "CLUB", "MYSTERY", "SPADE", "MYSTERY"])], ["HEART"])
    step = record["steps"][0]
    assert step["screen"] == screen(row0=["HEART"] * 5)
    (mystery,) = events_of(step, "mystery")
    assert mystery["symbol"] == "HEART"
    assert mystery["positions"] == cells((1, 3), (1, 5))
    assert mystery["filled"] == cells((1, 2), (1, 4))
    assert events_of(step, "draw") == [{"type": "draw", "name": "mystery_symbol", "value": "HEART"}]
    assert events_of(step, "landed")[0]["screen"][0] == ["HEART", "CLUB", "MYSTERY", "SPADE", "MYSTERY"]
    assert step_wins(step)[3] == ("HEART", 5, 20)
    assert_paid_as_shown(step)


def test_a_mystery_that_does_not_match_reel_1_does_not_fill(game):
    record = play(game, [screen(row1=["CLUB", "HEART", "DIAMOND", "MYSTERY", "SPADE"])], ["SNAKE"])
    step = record["steps"][0]
    assert step["screen"] == screen(row1=["CLUB", "HEART", "DIAMOND", "SNAKE", "SPADE"])
    assert events_of(step, "mystery")[0]["filled"] == []
    assert record["total_win"] == "0.00"


def test_a_mystery_matching_reel_1_fills_its_row(game):
    record = play(game, [screen(row3=["SNAKE", "CLUB", "HEART", "MYSTERY", "SPADE"])], ["SNAKE"])
    step = record["steps"][0]
    assert step["screen"] == screen(row3=["SNAKE", "SNAKE", "SNAKE", "SNAKE", "SPADE"])
    assert step_wins(step)[4] == ("SNAKE", 4, 20)
    assert_paid_as_shown(step)


def test_wild_fills_over_a_high_symbol_whatever_reel_1_shows(game):
    record = play(game, [screen(row2=["CLUB", "SPIDER", "OCTOPUS", "SPIDER", "MYSTERY"])], ["WILD"])
    step = record["steps"][0]
    # Reel 1 keeps its CLUB; everything between becomes WILD.
    assert step["screen"] == screen(row2=["CLUB", "WILD", "WILD", "WILD", "WILD"])
    assert step_wins(step)[2] == ("CLUB", 5, 15)
    assert_paid_as_shown(step)


def test_fill_happens_separately_for_every_mystery(game):
    grid = screen(
        row0=["HEART", "CLUB", "MYSTERY", "DIAMOND", "BEETLE"],
        row2=["SPADE", "CLUB", "CLUB", "MYSTERY", "BEETLE"],
    )
    record = play(game, [grid], ["HEART"])
    step = record["steps"][0]
    # Row 0 matches reel 1 and fills; row 2's reel 1 is SPADE, so only the Mystery changes.
    assert step["screen"] == screen(
        row0=["HEART", "HEART", "HEART", "DIAMOND", "BEETLE"],
        row2=["SPADE", "CLUB", "CLUB", "HEART", "BEETLE"],
    )
    assert events_of(step, "mystery")[0]["filled"] == cells((1, 2))
    assert_paid_as_shown(step)


def test_all_mysteries_on_screen_become_one_drawn_symbol(game):
    grid = screen(
        row0=["HEART", "CLUB", "MYSTERY", "DIAMOND", "BEETLE"],
        row1=["HEART", "CLUB", "SPADE", "MYSTERY", "BEETLE"],
        row3=["HEART", "CLUB", "SPADE", "DIAMOND", "MYSTERY"],
    )
    record = play(game, [grid], ["CLUB"])
    step = record["steps"][0]
    assert step["screen"] == screen(
        row0=["HEART", "CLUB", "CLUB", "DIAMOND", "BEETLE"],
        row1=["HEART", "CLUB", "SPADE", "CLUB", "BEETLE"],
        row3=["HEART", "CLUB", "SPADE", "DIAMOND", "CLUB"],
    )
    assert len(events_of(step, "draw")) == 1  # one draw for all Mysteries on screen
    assert_paid_as_shown(step)


@pytest.mark.parametrize("value", ["SCATTER", "SPIDER", "OCTOPUS", "MYSTERY", "STICKY_MYSTERY", "wild", 3])
def test_a_mystery_never_becomes_scatter_or_a_high_symbol(game, value):
    with pytest.raises(ScriptError, match="draws.mystery_symbol"):
        rounds.parse_script(game, {"draws": {"mystery_symbol": [value]}})


def test_the_model_cannot_weight_scatter_or_a_high_symbol(game, tmp_path):
    raw = json.loads(GoldenGrimoire.model_file.read_text())
    raw["features"]["mystery"]["weights"]["SPIDER"] = 5
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="features.mystery.weights"):
        GoldenGrimoire(path)


def test_mystery_lands_on_reels_3_to_5_only_in_the_base_game(game):
    for reel, strip in enumerate(game.spec.reels["base"], start=1):
        assert ("MYSTERY" in strip) == (reel in (3, 4, 5))
        assert "STICKY_MYSTERY" not in strip and "WILD" not in strip
    with pytest.raises(ScriptError, match=r"screens\[0\]\[0\]\[1\]: reel 2 cannot carry MYSTERY"):
        rounds.parse_script(game, {"screens": [screen(row0=["HEART", "MYSTERY", "SPADE", "DIAMOND", "BEETLE"])]})


def test_a_sticky_mystery_cannot_land_in_the_base_game(game):
    with pytest.raises(ScriptError, match=r"screens\[0\]\[0\]\[2\].*cannot carry STICKY_MYSTERY in the base game"):
        play(game, [screen(row0=["HEART", "CLUB", "STICKY_MYSTERY", "DIAMOND", "BEETLE"])])


def test_wins_are_evaluated_only_after_every_transformation(game):
    # Landed, row 3 pays nothing (reel 2 SPADE); transformed, it is CLUB x5 through a WILD fill.
    record = play(game, [screen(row3=["CLUB", "SPADE", "HEART", "SPIDER", "MYSTERY"])], ["WILD"])
    step = record["steps"][0]
    assert events_of(step, "landed")[0]["screen"][3] == ["CLUB", "SPADE", "HEART", "SPIDER", "MYSTERY"]
    assert step["screen"][3] == ["CLUB", "WILD", "WILD", "WILD", "WILD"]
    assert step_wins(step)[4] == ("CLUB", 5, 15)
    assert Decimal(record["total_win"]) == sum(Decimal(w["amount"]) for w in step["wins"])


def test_a_screen_without_mystery_draws_nothing(game):
    record = play(game, [BLANK], ["WILD"])
    step = record["steps"][0]
    assert step["events"] == []
    assert record["inputs"]["script"]["draws"]["mystery_symbol"] == ["WILD"]


# -- Free spins ----------------------------------------------------------------------------


def free_steps(record):
    return [s for s in record["steps"] if s["kind"] == "free"]


def test_one_scatter_on_each_of_reels_1_3_5_awards_8_free_spins(game):
    record = play(game, [TRIGGER] + [BLANK] * 8)
    base = record["steps"][0]
    assert events_of(base, "free_spins_awarded") == [
        {"type": "free_spins_awarded", "count": 8, "remaining": 8, "retrigger": False}
    ]
    assert len(free_steps(record)) == 8
    assert [s["screen"] for s in free_steps(record)] == [BLANK] * 8


def test_scatter_pays_nothing_and_two_scatters_award_nothing(game):
    two = copy.deepcopy(TRIGGER)
    two[2][4] = "BEETLE"
    record = play(game, [two])
    assert [s["kind"] for s in record["steps"]] == ["base"]
    assert record["steps"][0]["wins"] == [] and record["total_win"] == "0.00"
    full = play(game, [TRIGGER] + [BLANK] * 8)
    assert full["steps"][0]["wins"] == []


def test_scatter_lands_on_reels_1_3_5_only(game):
    for reel in (1, 3):
        grid = copy.deepcopy(BLANK)
        grid[0][reel] = "SCATTER"
        with pytest.raises(ScriptError, match=f"reel {reel + 1} cannot carry SCATTER"):
            rounds.parse_script(game, {"screens": [grid]})


def test_no_free_spins_can_be_won_during_free_spins(game):
    # Free-spin strips carry no SCATTER, so a forced one is refused...
    with pytest.raises(ScriptError, match=r"screens\[1\].*cannot carry SCATTER in the free game"):
        play(game, [TRIGGER, TRIGGER])
    # ...and drawn free spins always number exactly 8.
    for seed in range(5):
        record = play(game, [TRIGGER], seed=seed)
        assert len(free_steps(record)) == 8
        assert sum(len(events_of(s, "free_spins_awarded")) for s in record["steps"]) == 1


def test_sticky_landed_on_free_spin_3_transforms_on_every_later_free_spin(game):
    landing = screen(row1=["HEART", "CLUB", "STICKY_MYSTERY", "DIAMOND", "BEETLE"])
    # What lands under the held sticky on spins 4-8 (SPIDER) does not matter: the sticky stays.
    under = screen(row1=["HEART", "CLUB", "SPIDER", "DIAMOND", "BEETLE"])
    draws = ["SNAKE", "HEART", "WILD", "CLUB", "SPADE", "BEETLE"]
    record = play(game, [TRIGGER, BLANK, BLANK, landing] + [under] * 5, draws)
    spins = free_steps(record)
    assert spins[0]["screen"] == spins[1]["screen"] == BLANK
    assert not events_of(spins[0], "draw") and not events_of(spins[1], "draw")
    assert events_of(spins[2], "sticky_landed") == [
        {"type": "sticky_landed", "positions": cells((2, 3)), "held": cells((2, 3))}
    ]
    expected_row1 = {
        "SNAKE": ["HEART", "CLUB", "SNAKE", "DIAMOND", "BEETLE"],
        "HEART": ["HEART", "HEART", "HEART", "DIAMOND", "BEETLE"],  # matches reel 1: fills
        "WILD": ["HEART", "WILD", "WILD", "DIAMOND", "BEETLE"],
        "CLUB": ["HEART", "CLUB", "CLUB", "DIAMOND", "BEETLE"],
        "SPADE": ["HEART", "CLUB", "SPADE", "DIAMOND", "BEETLE"],
        "BEETLE": ["HEART", "CLUB", "BEETLE", "DIAMOND", "BEETLE"],
    }
    for spin, drawn in zip(spins[2:], draws, strict=True):
        assert spin["screen"] == screen(row1=expected_row1[drawn])
        (sticky,) = events_of(spin, "sticky_mystery")
        assert sticky["symbol"] == drawn and sticky["positions"] == cells((2, 3))
        assert_paid_as_shown(spin)
    # Spins 4-8 show the held sticky in the landed screen, not the SPIDER under it.
    assert all(events_of(s, "landed")[0]["screen"][1][2] == "STICKY_MYSTERY" for s in spins[3:])
    assert step_wins(spins[3])[1] == ("HEART", 3, 4)


def test_stickies_on_reels_2_to_5_all_transform_into_one_symbol_with_row_fill(game):
    first = screen(row0=["SNAKE", "STICKY_MYSTERY", "SPADE", "DIAMOND", "BEETLE"])
    # CLUB lands under the held sticky of row 0: the sticky stays.
    second = screen(row0=["SNAKE", "CLUB", "SPADE", "DIAMOND", "BEETLE"],
                    row2=["SNAKE", "CLUB", "SPADE", "DIAMOND", "STICKY_MYSTERY"])
    record = play(game, [TRIGGER, first, second] + [BLANK] * 6, ["CLUB", "SNAKE"] + ["WILD"] * 6)
    spins = free_steps(record)
    assert spins[0]["screen"] == screen(row0=["SNAKE", "CLUB", "SPADE", "DIAMOND", "BEETLE"])
    assert spins[1]["screen"] == screen(
        row0=["SNAKE", "SNAKE", "SPADE", "DIAMOND", "BEETLE"],
        row2=["SNAKE", "SNAKE", "SNAKE", "SNAKE", "SNAKE"],
    )
    # Spin 3 lands BLANK (reel 1 all HEART); WILD fills whatever reel 1 shows.
    assert spins[2]["screen"] == screen(
        row0=["HEART", "WILD", "SPADE", "DIAMOND", "BEETLE"],
        row2=["HEART", "WILD", "WILD", "WILD", "WILD"],
    )
    assert step_wins(spins[1])[2] == ("SNAKE", 5, 40)
    assert step_wins(spins[2])[2] == ("HEART", 5, 20)
    for spin in spins:
        assert_paid_as_shown(spin)


def test_sticky_mystery_cannot_land_on_reel_1(game):
    with pytest.raises(ScriptError, match="reel 1 cannot carry STICKY_MYSTERY"):
        rounds.parse_script(game, {"screens": [BLANK, screen(row0=["STICKY_MYSTERY"] + ROW[1:])]})


def test_free_spin_total_is_added_to_the_trigger_win(game):
    trigger = copy.deepcopy(TRIGGER)
    trigger[3] = ["CLUB", "CLUB", "CLUB", "DIAMOND", "BEETLE"]  # line 4: CLUB x3 = 3
    win = screen(row3=["SPADE", "SPADE", "SPADE", "SPADE", "BEETLE"])  # line 4: SPADE x4 = 8
    record = play(game, [trigger] + [win] * 8)
    base, spins = record["steps"][0], free_steps(record)
    base_win = sum(Decimal(w["amount"]) for w in base["wins"])
    free_win = sum(Decimal(w["amount"]) for s in spins for w in s["wins"])
    assert step_wins(base)[4] == ("CLUB", 3, 3)
    assert all(step_wins(s)[4] == ("SPADE", 4, 8) for s in spins)
    assert Decimal(record["total_win"]) == base_win + free_win
    assert events_of(spins[-1], "free_spins_total") == [{"type": "free_spins_total", "amount": str(free_win)}]


def test_free_spins_play_at_the_triggering_bet_level_and_coin_value(game):
    landing = screen(row1=["HEART", "CLUB", "STICKY_MYSTERY", "DIAMOND", "BEETLE"])
    script = [TRIGGER, landing] + [BLANK] * 7
    draws = ["HEART"] * 8
    one = play(game, script, draws)
    high = play(game, script, draws, bet={"bet_level": 4, "coin_value": "0.05"})
    assert Decimal(one["total_win"]) > 0
    assert Decimal(high["total_win"]) == Decimal(one["total_win"]) * 4 * 5
    for spin in free_steps(high):
        assert_paid_as_shown(spin, unit=4 * Decimal("0.05"))


def test_a_mystery_on_the_trigger_screen_transforms_and_free_spins_follow(game):
    grid = copy.deepcopy(TRIGGER)
    grid[0][3] = "MYSTERY"  # row 1: SCATTER on reel 1, the Mystery on reel 4
    grid[1][3] = "MYSTERY"  # row 2: SCATTER on reel 3 between reel 1 and the Mystery
    record = play(game, [grid], ["WILD"])
    base = record["steps"][0]
    # WILD fills both rows toward reel 1; the fill changes every symbol between, the SCATTER
    # on reel 3 too, but the trigger was made by the SCATTERs as they landed.
    assert base["screen"][0] == ["SCATTER", "WILD", "WILD", "WILD", "BEETLE"]
    assert base["screen"][1] == ["HEART", "WILD", "WILD", "WILD", "BEETLE"]
    assert events_of(base, "landed")[0]["screen"] == grid
    assert events_of(base, "free_spins_awarded")[0]["count"] == 8
    assert len(free_steps(record)) == 8
    # Row 1 starts with SCATTER (no line pay); row 2: HEART then WILD x3 then BEETLE.
    assert step_wins(base)[1] == ("HEART", 4, 10)
    assert_paid_as_shown(base)


# -- Wild symbol ---------------------------------------------------------------------------


def test_wild_appears_only_from_a_mystery(game):
    for mode in ("base", "free"):
        assert all("WILD" not in strip for strip in game.spec.reels[mode])
    with pytest.raises(ScriptError, match="cannot carry WILD"):
        rounds.parse_script(game, {"screens": [screen(row0=["HEART", "WILD", "SPADE", "DIAMOND", "BEETLE"])]})


def test_wild_does_not_stand_in_for_scatter(game):
    # Reel 1 SCATTER followed by WILDs is no line win, and no trigger either.
    record = play(game, [screen(row0=["SCATTER", "CLUB", "SPADE", "DIAMOND", "MYSTERY"])], ["WILD"])
    step = record["steps"][0]
    assert step["screen"][0] == ["SCATTER", "WILD", "WILD", "WILD", "WILD"]
    assert 3 not in step_wins(step)
    assert len(record["steps"]) == 1


# -- Scripts, records, replay ---------------------------------------------------------------


def test_unknown_draw_names_and_carried_state_are_refused(game):
    with pytest.raises(ScriptError, match="draws.card"):
        rounds.parse_script(game, {"draws": {"card": ["HEARTS"]}})
    with pytest.raises(ScriptError, match="state"):
        play(game, [BLANK], state={"stickies": [1]})


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_drawn_rounds_replay_and_never_show_an_untransformed_mystery(game, seed):
    record = rounds.play(game, source=rounds.seeded_words(seed))
    for step in record["steps"]:
        shown = {code for row in step["screen"] for code in row}
        assert not shown & {"MYSTERY", "STICKY_MYSTERY"}
        for draw in events_of(step, "draw"):
            assert draw["value"] in POOL
        assert_paid_as_shown(step)
    assert len(free_steps(record)) in (0, 8)
    matches, _ = rounds.replay(game, json.loads(json.dumps(record)))
    assert matches


def test_cli_plays_a_script_as_json(game, tmp_path):
    path = tmp_path / "two-mysteries.json"
    path.write_text(json.dumps({
        "bet": {"bet_level": 2, "coin_value": "0.10"},
        "screens": [screen(row0=["HEART", "CLUB", "MYSTERY", "SPADE", "MYSTERY"])],
        "draws": {"mystery_symbol": ["HEART"]},
    }))
    result = CliRunner().invoke(app, ["play", "golden-grimoire", "--script", str(path), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["total_bet"] == "4.00"
    assert record["steps"][0]["screen"][0] == ["HEART"] * 5
    line3 = next(w for w in record["steps"][0]["wins"] if w["line"] == 3)
    assert line3["amount"] == "4.00"  # HEART x5 = 20 x level 2 x 0.10


def test_cli_refuses_a_bad_bet_with_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"bet": {"bet_level": 12}, "screens": [BLANK]}))
    result = CliRunner().invoke(app, ["play", "golden-grimoire", "--script", str(path), "--json"])
    assert result.exit_code == 2
    assert "bet.bet_level" in result.output


# -- The paying code and the maths -----------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), pick=st.integers(min_value=0, max_value=len(POOL) - 1))
def test_recoloured_masks_pay_as_freshly_built_masks(game, seed, pick):
    """The simulator's shortcut (recolouring changed cells) pays what the full build pays."""
    from slotforge.games.golden_grimoire.kernels import read_window, transform

    tables, work = game.tables, game.scratch()
    rng = np.random.default_rng(seed)
    for reel in range(5):
        work.stops[reel] = rng.integers(tables.base.lengths[reel])
    marked = read_window(tables.base_cells, work.stops, work.window, game.spec.symbol_id("MYSTERY"))
    filled = transform(work.window, marked, tables.pool[pick], game.spec.symbol_id("WILD"))
    log = events.off()
    enabled = np.uint64((1 << 40) - 1)
    assert changed_screen_win(tables, work, enabled, marked | filled, log) == screen_win(tables, work, enabled, log)


SMALL_BASE = [
    ["HEART", "SCATTER", "CLUB", "HEART", "SNAKE"],
    ["CLUB", "HEART", "HEART", "SNAKE", "SPADE"],
    ["MYSTERY", "HEART", "SCATTER", "CLUB", "HEART", "SNAKE"],
    ["HEART", "MYSTERY", "CLUB", "SNAKE", "HEART"],
    ["SCATTER", "HEART", "MYSTERY", "CLUB", "SPIDER", "HEART"],
]
SMALL_FREE = [["HEART", "CLUB", "SNAKE", "HEART"]] + [["STICKY_MYSTERY", "HEART", "CLUB", "SNAKE", "HEART", "SPADE"]] * 4


def small_model(tmp_path) -> GoldenGrimoire:
    """The shipped paytable and weights on short strips, small enough to enumerate every screen."""
    raw = json.loads(GoldenGrimoire.model_file.read_text())
    raw["reels"] = {"base": SMALL_BASE, "free": SMALL_FREE}
    path = tmp_path / "small.json"
    path.write_text(json.dumps(raw))
    return GoldenGrimoire(path)


def reference_transform(grid: list[list[str]], symbol: str) -> list[list[str]]:
    """The Mystery rules read plainly: every MYSTERY becomes ``symbol``; each fills its row back
    to reel 2 when ``symbol`` is WILD or equals the row's reel-1 symbol."""
    out = [list(row) for row in grid]
    for r, row in enumerate(grid):
        for c, code in enumerate(row):
            if code == "MYSTERY":
                out[r][c] = symbol
                if symbol in ("WILD", row[0]):
                    for left in range(1, c):
                        out[r][left] = symbol
    return out


def test_exact_base_game_equals_brute_force_over_every_screen(tmp_path):
    """The class enumeration of maths.base_by_draw against every stop combination of short
    strips, transformed and paid by the plain reference code of this file."""
    from itertools import product

    from slotforge.games.golden_grimoire import maths

    game = small_model(tmp_path)
    weights = game.features.mystery.weights
    total_weight = sum(weights.values())
    expected = 0.0
    combos = list(product(*(range(len(s)) for s in SMALL_BASE)))
    for stops in combos:
        grid = [[SMALL_BASE[c][(stops[c] + r) % len(SMALL_BASE[c])] for c in range(5)] for r in range(4)]
        if any("MYSTERY" in row for row in grid):
            for symbol, weight in weights.items():
                pays = reference_wins(reference_transform(grid, symbol))
                expected += weight / total_weight * sum(p for _, _, p in pays.values())
        else:
            expected += sum(p for _, _, p in reference_wins(grid).values())
    expected /= len(combos) * 20
    exact = maths.mix(maths.base_by_draw(game), game.tables.base_weights)
    assert exact == pytest.approx(expected, rel=1e-12)


def test_simulation_agrees_with_the_rtp_report(tmp_path, monkeypatch):
    """The simulator (the round function) against rtp_report, on short strips to keep it fast.

    Both are estimates only in the free spins: the difference is compared with both intervals
    combined at 99.9% confidence (z = 3.29), with fixed seeds, so the test is never flaky and a
    wrong RTP part of a percent fails it.
    """
    from slotforge.games.golden_grimoire import maths
    from slotforge.reports.simulate import report, simulate_chunk

    monkeypatch.setattr(maths, "FREE_FEATURES", 1 << 16)
    monkeypatch.setattr(maths, "FREE_MAX_BATCHES", 1)
    game = small_model(tmp_path)
    shown = CliRunner().invoke(app, ["rtp", "golden-grimoire", "--model", str(tmp_path / "small.json"), "--json"])
    assert shown.exit_code == 0, shown.output
    figures = json.loads(shown.stdout)
    assert figures["method"].startswith("exact base game + simulation")
    assert set(figures["parts"]) == {"base_lines", "free_spins"}
    assert figures["rtp"] == pytest.approx(sum(figures["parts"].values()))
    part = simulate_chunk("golden-grimoire", 5, 0, 1_000_000, str(tmp_path / "small.json"))
    result = report(game, game.simulation_bet(), part, 1.0, 5, 1, False)
    sim_error = result["std"] / math.sqrt(part.rounds)
    rtp_error = figures["ci99"] / 2.5758
    assert abs(result["rtp"] - figures["rtp"]) < 3.29 * math.hypot(sim_error, rtp_error)
    # The base game alone is exact on one side; its spread is at most the whole round's.
    assert abs(result["features"]["base_game"]["rtp"] - figures["parts"]["base_lines"]) < 3.29 * sim_error
    assert result["features"]["free_spins"]["frequency"] == pytest.approx(figures["free_spins_frequency"], rel=0.05)


def test_cli_simulates_with_the_feature_report(game):
    result = CliRunner().invoke(app, ["simulate", "golden-grimoire", "-n", "200000", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    base, free = figures["features"]["base_game"], figures["features"]["free_spins"]
    assert base["rtp"] + free["rtp"] == pytest.approx(figures["rtp"])
    assert sum(base["mysteries_landed"].values()) == pytest.approx(1.0)
    assert set(base["mysteries_landed"]) <= {"0", "1", "2", "3"}  # at most one Mystery per reel
    assert free["spins_played"] == 8 * free["triggered"]
    assert sum(free["draws"].values()) == pytest.approx(1.0)


def test_shipped_model_hits_one_round_in_three_near_the_published_rtp(game):
    from slotforge.reports.simulate import report, simulate_chunk

    part = simulate_chunk("golden-grimoire", 3, 0, 2_000_000)
    result = report(game, game.simulation_bet(), part, 1.0, 3, 1, False)
    assert result["hit_frequency"] > 1 / 3
    assert abs(result["rtp"] - float(game.spec.rtp)) < 3.29 * result["std"] / math.sqrt(part.rounds)


def test_round_function_agrees_with_the_recorded_round(game):
    """The compiled round with recording off (the simulator's way) wins what the recorded
    round (the server's way) wins from the same random words."""
    played = game.parse_bet({})
    bet = game.bet_arguments(played, Operator())
    for seed in range(40):
        record = rounds.play(game, source=rounds.seeded_words(seed))
        words = np.array([int(w, 16) for w in record["inputs"]["random"]], dtype=np.uint64)
        outcomes = game.outcomes(buffer_stream(words))
        tally = np.zeros(len(game.tally_names), dtype=np.int64)
        _, win = game.play_once(bet, game.state_array({}, played), outcomes, events.off(), game.scratch(), tally)
        assert Decimal(record["total_win"]) == win * CENT


def test_versions_that_differ_in_the_mystery_weights_alone_share_one_base_enumeration(tmp_path, monkeypatch):
    """The shipped versions differ in the Mystery's weights only, which the exact base game
    does not read: one enumeration serves them all; another base game gets its own, and a
    caller that changes the figures it got does not change the next caller's."""
    from slotforge.games import versions_of
    from slotforge.games.golden_grimoire import maths

    shipped = {maths.base_fingerprint(GoldenGrimoire(info.path)) for info in versions_of("golden-grimoire")}
    assert len(shipped) == 1
    small = small_model(tmp_path)
    assert maths.base_fingerprint(small) not in shipped

    enumerated = []
    monkeypatch.setattr(maths, "_BASE_BY_DRAW", {})
    monkeypatch.setattr(maths, "enumerate_base", lambda game: enumerated.append(game) or {"plain": 0.5, "by_draw": {}})
    first = maths.base_by_draw(small)
    first["plain"] = 9.0
    assert maths.base_by_draw(small) == {"plain": 0.5, "by_draw": {}}
    assert enumerated == [small]
