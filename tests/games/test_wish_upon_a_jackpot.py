"""Wish Upon a Jackpot: a scenario for every rule of the published text, through the script interface.

Amounts are worked by hand at a stake of 1.00 unless a test says otherwise: the line bet is
0.05, so a line pay of N is N x 0.05, and a prize of N x stake is N.00. Screens are three rows
of five letters (see ``CODES``); cells are numbered in reading order from 0 (row 2, reel 3 is 7).

Every script says whether the Fairy Godmother appears (draw ``godmother``, on every spin, base and
free): left to the random stream she could change the screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import ScriptError
from slotforge.games import load_game
from slotforge.games.wish_upon_a_jackpot.kernels import fields
from tests import scripts

ROOT = Path(__file__).resolve().parents[2]

CODES = {
    "W": "WILD",
    "B": "BONUS",
    "L": "LOGO",
    "H": "HARP",
    "P": "PALACE",
    "S": "SLIPPER",
    "A": "ACE",
    "K": "KING",
    "Q": "QUEEN",
    "J": "JACK",
    "T": "TEN",
    "R": "PRINCE",
}
# No line win, no BONUS: reel 1 shows ACE, KING, QUEEN and reel 2 JACK, TEN, PALACE, so no line
# has two of a kind from reel 1.
QUIET = "AJAJA KTKTK QPQPQ"
# A BONUS on each of reels 1, 3 and 5, and still no line win.
TRIGGER = "BJBJB KTKTK QPQPQ"


def screen(rows: str) -> list[list[str]]:
    return [[CODES[letter] for letter in row] for row in rows.split()]


@pytest.fixture(scope="module")
def game():
    return load_game("wish-upon-a-jackpot")


def play(game, screens, draws=None, choices=None, stake="1.00"):
    """A scripted round at ``stake``; the Fairy Godmother stays away unless ``draws`` call her."""
    return scripts.play(game, screens, draws, choices, bet={"stake": stake}, seed=7, shape=screen,
                        draw_defaults={"godmother": [False] * 40})


def line_wins(record, step=0):
    return {
        w["line"]: (w["symbol"], w["count"], w["amount"]) for w in record["steps"][step]["wins"] if w["kind"] == "line"
    }


def events_of(record, kind):
    return [e for step in record["steps"] for e in step["events"] if e["type"] == kind]


def bonus_wins(record):
    return [(w["symbol"], w["amount"]) for step in record["steps"] for w in step["wins"] if w["kind"] == "bonus"]


# -- the base game -----------------------------------------------------------------------------------
def test_5x3_with_20_fixed_lines_and_the_stake_options(game):
    record = play(game, [QUIET])
    assert len(record["steps"][0]["screen"]) == 3 and all(len(row) == 5 for row in record["steps"][0]["screen"])
    assert record["total_win"] == "0.00"
    stakes = ["0.20", "0.40", "1.00", "2.00", "5.00", "10.00", "20.00", "50.00", "100.00", "200.00", "500.00"]
    for stake in stakes:
        assert play(game, [QUIET], stake=stake)["total_bet"] == stake
    # Three HARP on line 1 pay 20 line bets: 0.20 at a stake of 0.20 (line bet 0.01), 500.00 at 500.00.
    assert play(game, ["AJAJA HHHTK QPQPQ"], stake="0.20")["total_win"] == "0.20"
    assert play(game, ["AJAJA HHHTK QPQPQ"], stake="500.00")["total_win"] == "500.00"


def test_a_bad_stake_is_refused_clearly(game):
    with pytest.raises(BetError, match=r"bet\.stake: expected one of 0\.20, 0\.40, 1\.00.*500\.00, got '0\.30'"):
        game.parse_bet({"stake": "0.30"})
    with pytest.raises(BetError, match=r"bet\.lines: not a bet field of this game; expected \['stake'\]"):
        game.parse_bet({"lines": 10})


def test_a_line_pays_from_the_far_left_reel_on_consecutive_reels(game):
    # HARP HARP HARP on line 1 from reel 1: 20 x 0.05 = 1.00; no other line has two of a kind.
    record = play(game, ["AJAJA HHHTK QPQPQ"])
    assert line_wins(record) == {1: ("HARP", 3, "1.00")}
    assert record["total_win"] == "1.00"
    # The same three HARP on reels 2-4 pay nothing.
    assert play(game, ["AJAJA KHHHK QPQPQ"])["total_win"] == "0.00"


def test_wild_and_logo_pay_from_two_of_a_kind(game):
    # LOGO LOGO on reels 1-2 of row 2: lines 1, 14 and 15 cross both (then KING, ACE, QUEEN): 2 each.
    record = play(game, ["AJAJA LLKTK QPQPQ"])
    assert line_wins(record) == {1: ("LOGO", 2, "0.10"), 14: ("LOGO", 2, "0.10"), 15: ("LOGO", 2, "0.10")}
    assert record["total_win"] == "0.30"
    # WILD WILD then a BONUS on line 1: the WILDs pay on their own, 5 x 0.05.
    assert line_wins(play(game, ["AJAJA WWBTK QPQPQ"]))[1] == ("WILD", 2, "0.25")


def test_only_the_highest_of_the_wilds_own_pay_and_their_substituted_pay_counts(game):
    # WILD WILD WILD LOGO on line 1: LOGO x4 (100) beats WILD x3 (50): 5.00.
    assert line_wins(play(game, ["AJAJA WWWLT QPQPQ"]))[1] == ("LOGO", 4, "5.00")
    # WILD WILD WILD TEN: WILD x3 (50) beats TEN x4 (10): 2.50.
    assert line_wins(play(game, ["AJAJA WWWTK QPQPQ"]))[1] == ("WILD", 3, "2.50")


def test_wild_never_substitutes_for_bonus(game):
    # Line 2 shows BONUS WILD BONUS JACK BONUS: no line win (BONUS has no line pay, WILD does not
    # make one); the three BONUS start the Fairy Tale Bonus, which waits for its storybook.
    record = play(game, ["BWBJB KTKTK QPQPQ"])
    assert 2 not in line_wins(record)
    assert record["awaiting"]["decision"] == "storybook"


# -- the Fairy Tale Bonus ---------------------------------------------------------------------------
def test_a_bonus_on_each_of_reels_1_3_and_5_starts_the_fairy_tale_bonus(game):
    record = play(game, [TRIGGER])
    assert record["status"] == "awaiting"
    assert record["awaiting"] == {
        "decision": "storybook",
        "options": ["book_1", "book_2", "book_3", "book_4"],
        "win": "0.00",
    }
    # Two BONUS on reel 1 and one on reel 3 are three BONUS, but not on reels 1, 3 and 5.
    assert play(game, ["BJBJA BTKTK QPQPQ"])["status"] == "complete"


def test_the_storybook_pick_waits_and_the_feature_is_drawn(game):
    record = play(game, [TRIGGER], draws={"feature": ["deal_maker"], "offer": [12]}, choices=["book_3", "take"])
    assert events_of(record, "fairy_tale_bonus") == [
        {"type": "fairy_tale_bonus", "storybook": "book_3", "feature": "deal_maker"}
    ]
    assert record["total_win"] == "12.00"


def test_scatter_wins_add_to_line_wins(game):
    # HARP x3 on line 1 (1.00) and a Deal Maker offer of 5 x stake taken: 6.00.
    record = play(
        game, ["BJBJB HHHTK QPQPQ"], draws={"feature": ["deal_maker"], "offer": [5]}, choices=["book_1", "take"]
    )
    assert line_wins(record) == {1: ("HARP", 3, "1.00")}
    assert bonus_wins(record) == [("DEAL", "5.00")]
    assert record["total_win"] == "6.00"


# -- Rumpelstiltskin's Deal Maker -------------------------------------------------------------------
def test_deal_maker_take_it_pays_the_offer_on_the_table(game):
    record = play(
        game, [TRIGGER], draws={"feature": ["deal_maker"], "offer": [3, 20]}, choices=["book_1", "leave", "take"]
    )
    offers = events_of(record, "offer")
    assert [(o["offer"], o["multiplier"], o["amount"], o["scrolls_left"]) for o in offers] == [
        (1, 3, "3.00", 4),
        (2, 20, "20.00", 3),
    ]
    assert events_of(record, "deal") == [{"type": "deal", "offer": 2, "amount": "20.00"}]
    assert record["total_win"] == "20.00"


def test_deal_maker_left_four_times_pays_the_fifth_offer(game):
    record = play(
        game,
        [TRIGGER],
        draws={"feature": ["deal_maker"], "offer": [50, 30, 20, 12, 2]},
        choices=["book_1", "leave", "leave", "leave", "leave"],
    )
    assert [o["scrolls_left"] for o in events_of(record, "offer")] == [4, 3, 2, 1, 0]
    assert events_of(record, "deal") == [{"type": "deal", "offer": 5, "amount": "2.00"}]
    assert record["status"] == "complete"
    assert record["total_win"] == "2.00"


def test_deal_maker_waits_for_take_it_or_leave_it_after_each_of_the_first_four_offers(game):
    record = play(game, [TRIGGER], draws={"feature": ["deal_maker"], "offer": [1, 2, 3, 5, 8]}, choices=["book_1"])
    for answered in range(4):
        assert record["awaiting"] == {"decision": "deal", "options": ["take", "leave"], "win": "0.00"}
        assert len(events_of(record, "offer")) == answered + 1
        record = rounds.resume(game, record, "leave", source=rounds.seeded_words(7))
    assert record["status"] == "complete" and record["total_win"] == "8.00"


# -- Jack and the Beanstalk -------------------------------------------------------------------------
def test_beans_grow_the_stalk_until_collect_pays_the_prize_reached(game):
    # Two beans grow it from level 1 to 3; the third reveals COLLECT: level 3's prize, 20 x stake.
    record = play(
        game,
        [TRIGGER],
        draws={"feature": ["beanstalk"], "bean": [True, True, False]},
        choices=["book_2", "bean_1", "bean_3", "bean_2"],
    )
    beans = [(e["bean"], e["revealed"], e["level"]) for e in events_of(record, "bean")]
    assert beans == [("bean_1", "grow", 2), ("bean_3", "grow", 3), ("bean_2", "collect", 3)]
    assert bonus_wins(record) == [("BEANSTALK", "20.00")]
    assert record["total_win"] == "20.00"


def test_a_beanstalk_that_reaches_the_top_picks_a_golden_goose_egg(game):
    record = play(
        game,
        [TRIGGER],
        draws={"feature": ["beanstalk"], "bean": [True] * 8, "egg": [400]},
        choices=["book_2", *["bean_1"] * 8],
    )
    assert record["awaiting"]["decision"] == "egg"
    assert record["awaiting"]["options"] == ["egg_1", "egg_2", "egg_3"]
    record = rounds.resume(game, record, "egg_2", source=rounds.seeded_words(7))
    assert events_of(record, "golden_egg") == [{"type": "golden_egg", "egg": "egg_2", "amount": "400.00"}]
    assert bonus_wins(record) == [("GOLDEN_EGG", "400.00")]
    assert record["total_win"] == "400.00"


# -- 3 Little Pigs Free Spins -----------------------------------------------------------------------
PIG_SPINS = 10


def pigs(game, events, cells, stake="1.00"):
    return play(
        game,
        [TRIGGER, *[QUIET] * PIG_SPINS],
        stake=stake,
        draws={"feature": ["three_little_pigs"], "pig": events, "wild_cell": cells},
        choices=["book_3"],
    )


def test_pigs_turn_cells_wild_and_the_wilds_stay_until_the_spins_run_out(game):
    # Pig 2 turns cells 5 and 6 (row 2, reels 1 and 2) WILD on a quiet screen: KING x3 on line 1 (10),
    # ACE x3 on lines 12 and 14 (10 each), QUEEN x3 on line 13 (5) and line 15 (QUEEN x3 = WILD x2 = 5):
    # 40 x 0.05 = 2.00 a spin, on each of the 10 spins.
    record = pigs(game, ["pig_2"] + ["none"] * 9, [5, 6])
    free = [s for s in record["steps"] if s["kind"] == "free"]
    assert len(free) == PIG_SPINS
    assert all(s["screen"][1][:2] == ["WILD", "WILD"] for s in free)
    assert sum(float(w["amount"]) for w in free[0]["wins"]) == 2.00
    assert events_of(record, "free_spins") == [{"type": "free_spins", "feature": "three_little_pigs", "spins": 10}]
    assert record["total_win"] == "20.00"


def test_the_wolf_blows_the_pigs_wilds_away(game):
    # The WILDs pay 2.00 on spins 1-3; the wolf on spin 4 clears them: 6.00 in all.
    record = pigs(game, ["pig_2", "none", "none", "wolf"] + ["none"] * 6, [5, 6])
    free = [s for s in record["steps"] if s["kind"] == "free"]
    assert [e["wilds_standing"] for e in events_of(record, "pig") + events_of(record, "wolf")] == [2, 0]
    assert all("WILD" not in row for s in free[3:] for row in s["screen"])
    assert record["total_win"] == "6.00"


def test_free_spins_play_at_the_triggering_stake(game):
    # The same 3 spins of 40 line bets at a stake of 2.00 (line bet 0.10): 12.00.
    record = pigs(game, ["pig_2", "none", "none", "wolf"] + ["none"] * 6, [5, 6], stake="2.00")
    assert record["total_win"] == "12.00"


def test_a_pig_never_picks_a_cell_that_is_wild_already(game):
    with pytest.raises(ScriptError, match=r"draws\.wild_cell: cell 5 is WILD already"):
        pigs(game, ["pig_1", "pig_1"] + ["none"] * 8, [5, 5])


# -- Rapunzel Free Spins ----------------------------------------------------------------------------
def test_a_prince_reaching_the_top_ends_rapunzel_and_pays_the_bonus_winnings(game):
    # HARP x3 on line 1 pays 1.00 a spin times the tower's multiplier. Spin 1: PRINCE, level 1, x2;
    # spin 2: no PRINCE, still x2; spins 3-6: PRINCE each, levels 2-5 at x3, x4, x6 and x10 (the top).
    # 2 + 2 + 3 + 4 + 6 + 10 = 27.00.
    prince, plain = "AJAJR HHHTK QPQPQ", "AJAJA HHHTK QPQPQ"
    record = play(
        game,
        [TRIGGER, prince, plain, prince, prince, prince, prince],
        draws={"feature": ["rapunzel"]},
        choices=["book_4"],
    )
    free = [s for s in record["steps"] if s["kind"] == "free"]
    assert len(free) == 6
    climbs = [(e["level"], e["multiplier"]) for e in events_of(record, "prince_climbs")]
    assert climbs == [(1, 2), (2, 3), (3, 4), (4, 6), (5, 10)]
    assert [s["wins"][0]["amount"] for s in free] == ["2.00", "2.00", "3.00", "4.00", "6.00", "10.00"]
    assert events_of(record, "bonus_winnings") == [{"type": "bonus_winnings", "feature": "rapunzel", "amount": "27.00"}]
    assert record["total_win"] == "27.00"


def test_wild_never_substitutes_for_prince(game):
    # WILD x4 then PRINCE on line 1: WILD x4 (200) at level 1's x2, not five of anything: 20.00; the
    # other four spins climb to the top with no win.
    record = play(
        game,
        [TRIGGER, "AJAJA WWWWR QPQPQ", *["AJAJR KTKTK QPQPQ"] * 4],
        draws={"feature": ["rapunzel"]},
        choices=["book_4"],
    )
    free = [s for s in record["steps"] if s["kind"] == "free"]
    assert [(w["symbol"], w["count"], w["amount"]) for w in free[0]["wins"] if w["line"] == 1] == [("WILD", 4, "20.00")]


def test_prince_lands_only_on_reel_5_of_the_rapunzel_reels(game):
    with pytest.raises(ScriptError, match=r"screens\[0\]\[0\]\[4\]: PRINCE does not land on reel 5"):
        play(game, ["AJAJR KTKTK QPQPQ"])
    with pytest.raises(ScriptError, match=r"screens\[0\]\[0\]\[0\]: reel 1 cannot carry PRINCE"):
        play(game, ["RJAJA KTKTK QPQPQ"])


# -- the Fairy Godmother Bonus ----------------------------------------------------------------------
def godmother(game, rows, draws, choices=("orb_2",)):
    return play(game, [rows], draws={"godmother": [True], "godmother_bonus": [True], **draws}, choices=list(choices))


def test_the_orb_pick_waits_for_the_player_before_the_wish(game):
    record = play(game, [QUIET], draws={"godmother": [True], "godmother_bonus": [True]})
    assert record["awaiting"] == {"decision": "orb", "options": ["orb_1", "orb_2", "orb_3"], "win": "0.00"}
    assert record["steps"][0]["screen"] == screen(QUIET)  # as landed, while the pick waits


def test_gingerbread_man_turns_a_whole_reel_wild(game):
    # Reel 2 WILD on the quiet screen: KING x3 on lines 1, 10, 11 (10 each), ACE x3 on lines 2, 12,
    # 18 (10 each), QUEEN x3 on lines 3, 13, 19 (5 each): 75 x 0.05 = 3.75.
    record = godmother(game, QUIET, {"wish": ["gingerbread_man"], "gingerbread_reel": [2]})
    assert events_of(record, "fairy_godmother_appears") == [
        {"type": "fairy_godmother_appears", "bonus": True, "during": "base"}
    ]
    assert events_of(record, "fairy_godmother") == [{"type": "fairy_godmother", "orb": "orb_2"}]
    assert events_of(record, "wish") == [
        {"type": "wish", "wish": "gingerbread_man", "reel": 2, "wild_cells": [1, 6, 11]}
    ]
    assert record["steps"][0]["screen"] == screen("AWAJA KWKTK QWQPQ")
    assert record["total_win"] == "3.75"


def test_puss_in_boots_turns_the_symbols_next_to_him_wild(game):
    # Puss on cell 7 (row 2, reel 3): it and cells 2, 6, 8, 12 turn WILD. KING x5 on lines 1, 14,
    # 15 (80 each), ACE x5 on lines 4, 12, 16 (100 each), QUEEN x5 on lines 5, 13, 17 (60 each):
    # 720 x 0.05 = 36.00.
    record = godmother(game, QUIET, {"wish": ["puss_in_boots"], "puss_cell": [7]})
    assert record["steps"][0]["screen"] == screen("AJWJA KWWWK QPWPQ")
    assert events_of(record, "wish")[0]["wild_cells"] == [2, 6, 7, 8, 12]
    assert record["total_win"] == "36.00"


def test_pinocchio_turns_chosen_positions_anywhere_wild(game):
    # Cells 0, 1, 2 (row 1, reels 1-3): WILD x3 on line 2 (50, above JACK x4's 15), KING x3 on lines
    # 6, 9, 10 (10 each), TEN x4 on line 12 (10), PALACE x4 on line 18 (50), QUEEN x3 on line 19 (5):
    # 145 x 0.05 = 7.25.
    record = godmother(game, QUIET, {"wish": ["pinocchio"], "pinocchio_wilds": [3], "wild_cell": [0, 1, 2]})
    assert record["steps"][0]["screen"] == screen("WWWJA KTKTK QPQPQ")
    assert line_wins(record)[2] == ("WILD", 3, "2.50")
    assert record["total_win"] == "7.25"


def test_a_wish_keeps_a_bonus(game):
    # The Gingerbread Man on reel 3 leaves its BONUS standing: the Fairy Tale Bonus still starts.
    record = godmother(game, TRIGGER, {"wish": ["gingerbread_man"], "gingerbread_reel": [3]})
    assert record["steps"][0]["screen"] == screen("BJBJB KTWTK QPWPQ")
    assert record["awaiting"]["decision"] == "storybook"


def test_both_bonuses_in_one_spin(game):
    # The Gingerbread Man turns reel 2 WILD on the trigger screen: KING x3 on lines 1, 10, 11 (10
    # each), QUEEN x3 on lines 3, 13, 19 (5 each): 45 x 0.05 = 2.25; then the Deal Maker's first
    # offer, 5 x stake, is taken: 7.25.
    record = play(
        game,
        [TRIGGER],
        draws={
            "godmother": [True],
            "godmother_bonus": [True],
            "wish": ["gingerbread_man"],
            "gingerbread_reel": [2],
            "feature": ["deal_maker"],
            "offer": [5],
        },
        choices=["orb_1", "book_4", "take"],
    )
    assert record["steps"][0]["screen"] == screen("BWBJB KWKTK QWQPQ")
    assert sum(float(w["amount"]) for w in record["steps"][0]["wins"]) == 2.25
    assert bonus_wins(record) == [("DEAL", "5.00")]
    assert record["total_win"] == "7.25"


# "Reveal the Gingerbread Man and turn any reel WILD."
# No win as landed (reel 1 shows ACE, JACK, QUEEN, reel 2 HARP, TEN, PALACE: no two alike), but
# reels 2 and 3 both show HARP on row 1.
HARPS = "AHHJA JTKTK QPQPQ"


@pytest.mark.parametrize("reel", [1, 2, 3, 4, 5])
def test_the_gingerbread_man_may_turn_any_of_the_five_reels_wild(game, reel):
    record = godmother(game, QUIET, {"wish": ["gingerbread_man"], "gingerbread_reel": [reel]})
    cells = [reel - 1, reel + 4, reel + 9]
    assert events_of(record, "wish") == [{"type": "wish", "wish": "gingerbread_man", "reel": reel, "wild_cells": cells}]
    assert [record["steps"][0]["screen"][row][reel - 1] for row in range(3)] == ["WILD"] * 3


def test_the_gingerbread_man_on_reel_1_completes_the_lines_that_start_there(game):
    # Reel 1 WILD: HARP x3 (20) on lines 2 and 9, which cross row 1 on reels 2 and 3; no other
    # line has reels 2 and 3 alike: 40 x 0.05 = 2.00.
    record = godmother(game, HARPS, {"wish": ["gingerbread_man"], "gingerbread_reel": [1]})
    assert line_wins(record) == {2: ("HARP", 3, "1.00"), 9: ("HARP", 3, "1.00")}
    assert record["total_win"] == "2.00"


def test_a_model_that_keeps_the_gingerbread_man_off_a_reel_is_refused(tmp_path):
    from slotforge.engine.model import ModelError
    from slotforge.games import load_game as load

    raw = json.loads((ROOT / "src/slotforge/games/wish_upon_a_jackpot/model.json").read_text())
    raw["features"]["godmother"]["gingerbread_reels"] = [2, 3, 4]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ModelError, match=r"features\.godmother\.gingerbread_reels: expected \[1, 2, 3, 4, 5\]"):
        load("wish-upon-a-jackpot", path)


# "If the Fairy Godmother appears during any game there is chance the Fairy Godmother Bonus can be
# triggered."
def test_her_appearance_is_only_a_chance_of_the_bonus(game):
    record = play(game, [QUIET], draws={"godmother": [True], "godmother_bonus": [False]})
    assert record["status"] == "complete"
    assert events_of(record, "fairy_godmother_appears") == [
        {"type": "fairy_godmother_appears", "bonus": False, "during": "base"}
    ]
    assert events_of(record, "fairy_godmother") == [] and events_of(record, "wish") == []
    assert record["steps"][0]["screen"] == screen(QUIET)


def test_the_bonus_chance_is_drawn_when_she_appears(game):
    # Left to the random stream, the appearance and the bonus are two draws: over many spins the
    # bonus follows about as often as the model's chance says, and never without an appearance.
    g = game.features.godmother
    bonus = g.bonus_chance[0] / g.bonus_chance[1]
    seen = followed = 0
    for seed in range(400):
        script = rounds.parse_script(game, {"screens": [screen(QUIET)], "draws": {"godmother": [True]}})
        record = rounds.play(game, script=script, source=rounds.seeded_words(seed))
        shown = events_of(record, "fairy_godmother_appears")
        assert len(shown) == 1
        seen += 1
        followed += shown[0]["bonus"]
        assert (record["status"] == "awaiting") == shown[0]["bonus"]
    # 99% interval of a binomial proportion over 400 draws.
    assert abs(followed / seen - bonus) < 2.5758 * (bonus * (1 - bonus) / seen) ** 0.5


def test_she_may_grant_a_wish_on_a_3_little_pigs_spin_for_that_spin_only(game):
    # Pig 2's WILDs (cells 5 and 6) pay 2.00 a spin on the quiet screen. On spin 2 the Gingerbread
    # Man turns reel 3 WILD as well: WILD x3 (50) on lines 1, 14, 15; PALACE x4 (50) on lines 8,
    # 11; JACK x4 (15) on lines 9, 10; ACE x3 (10) on lines 4, 12, 16; QUEEN x3 (5) on lines 5, 13,
    # 17: 325 x 0.05 = 16.25. Spins 3-10 are back to 2.00: 2.00 + 16.25 + 8 x 2.00 = 34.25.
    record = play(
        game,
        [TRIGGER, *[QUIET] * PIG_SPINS],
        draws={
            "feature": ["three_little_pigs"],
            "pig": ["pig_2"] + ["none"] * 9,
            "wild_cell": [5, 6],
            "godmother": [False, False, True] + [False] * 8,
            "godmother_bonus": [True],
            "wish": ["gingerbread_man"],
            "gingerbread_reel": [3],
        },
        choices=["book_3", "orb_1"],
    )
    free = [s for s in record["steps"] if s["kind"] == "free"]
    assert free[1]["screen"] == screen("AJWJA WWWTK QPWPQ")
    assert free[2]["screen"] == screen("AJAJA WWKTK QPQPQ")
    assert events_of(record, "fairy_godmother_appears") == [
        {"type": "fairy_godmother_appears", "bonus": True, "during": "pigs"}
    ]
    assert f"{sum(float(w['amount']) for w in free[1]['wins']):.2f}" == "16.25"
    assert record["total_win"] == "34.25"


def test_she_may_grant_a_wish_on_a_rapunzel_spin_paid_at_the_towers_multiplier(game):
    # Spin 1 climbs to level 1 (x2) and the Gingerbread Man turns reel 2 WILD on the quiet screen
    # (PRINCE on reel 5 stays): KING x3 on lines 1, 10, 11, ACE x3 on lines 2, 12, 18, QUEEN x3 on
    # lines 3, 13, 19: 75 x 0.05 x 2 = 7.50. Four more PRINCEs reach the top with no win.
    climb = "AJAJR KTKTK QPQPQ"
    record = play(
        game,
        [TRIGGER, *[climb] * 5],
        draws={
            "feature": ["rapunzel"],
            "godmother": [False, True] + [False] * 4,
            "godmother_bonus": [True],
            "wish": ["gingerbread_man"],
            "gingerbread_reel": [2],
        },
        choices=["book_4", "orb_1"],
    )
    free = [s for s in record["steps"] if s["kind"] == "free"]
    assert free[0]["screen"] == screen("AWAJR KWKTK QWQPQ")
    assert events_of(record, "fairy_godmother_appears")[0]["during"] == "rapunzel"
    assert record["total_win"] == "7.50"


def test_the_orb_pick_on_a_free_spin_waits_for_the_player(game):
    record = play(
        game,
        [TRIGGER, *[QUIET] * PIG_SPINS],
        draws={"feature": ["three_little_pigs"], "pig": ["none"] * 10, "godmother": [False, True], "godmother_bonus": [True]},
        choices=["book_3"],
    )
    assert record["awaiting"]["decision"] == "orb"
    assert [s["kind"] for s in record["steps"]][-1] == "free"


# -- every pick and decision waits in the record -----------------------------------------------------
def test_every_pick_and_decision_waits_and_survives_a_replay_and_a_resume(game, tmp_path):
    draws = {
        "godmother": [True],
        "godmother_bonus": [True],
        "wish": ["gingerbread_man"],
        "gingerbread_reel": [4],
        "feature": ["beanstalk"],
        "bean": [True] * 8,
        "egg": [250],
    }
    script = rounds.parse_script(game, {"screens": [screen(TRIGGER)], "draws": draws})
    record = rounds.play(game, script=script, source=rounds.seeded_words(3))
    asked = []
    while record["status"] == "awaiting":
        ok, _ = rounds.replay(game, record)
        assert ok, "an awaiting record replays to itself"
        asked.append(record["awaiting"]["decision"])
        saved = tmp_path / "round.json"
        saved.write_text(json.dumps(record))
        record = rounds.resume(
            game, json.loads(saved.read_text()), record["awaiting"]["options"][-1], source=rounds.seeded_words(3)
        )
    assert asked == ["orb", "storybook", *["bean"] * 8, "egg"]
    assert record["inputs"]["choices"] == ["orb_3", "book_4", *["bean_3"] * 8, "egg_3"]
    ok, _ = rounds.replay(game, record)
    assert ok
    assert bonus_wins(record) == [("GOLDEN_EGG", "250.00")]


def test_a_choice_the_decision_does_not_offer_is_refused(game):
    with pytest.raises(ScriptError, match=r"choices: 'take' is not offered at storybook"):
        play(game, [TRIGGER], choices=["take"])


# -- the example scripts of docs/games/wish-upon-a-jackpot.md ---------------------------------------
@pytest.mark.parametrize(
    ("example", "total"),
    [
        ("deal-maker", "3.00"),  # HARP x3 (1.00), four offers left, the fifth (2 x stake) paid
        ("beanstalk", "400.00"),  # eight beans grow, egg 2 holds 400 x stake
        ("three-little-pigs", "6.00"),  # two pig WILDs pay 2.00 on 3 spins, then the wolf
        ("rapunzel", "27.00"),  # HARP x3 at x2, x2, x3, x4, x6, x10
        ("fairy-godmother", "7.25"),  # the Gingerbread Man's reel (2.25) and a 5 x stake deal
    ],
)
def test_each_example_script_plays_its_feature(game, example, total):
    path = ROOT / f"examples/wish-upon-a-jackpot-{example}.json"
    record = rounds.play(
        game, script=rounds.parse_script(game, json.loads(path.read_text())), source=rounds.seeded_words(1)
    )
    assert record["status"] == "complete"
    assert record["total_win"] == total


# -- the packed arrays' field tables -----------------------------------------------------------
def indexes_of(prefix: str) -> dict[str, int]:
    """The module-level indexes of ``fields`` named with ``prefix``."""
    return {name: value for name, value in vars(fields).items()
            if name.startswith(prefix) and name.isupper() and isinstance(value, int)}


@pytest.mark.parametrize("prefix", sorted(fields.TABLES))
def test_every_field_of_a_packed_array_is_named_by_exactly_one_index(prefix):
    table = fields.TABLES[prefix]
    named: list[int] = []
    for name, index in indexes_of(prefix).items():
        named.extend(range(index, index + fields.TALLY_RUNS.get(name, 1)))
    assert sorted(named) == list(range(len(table))), f"{prefix}*: each of {table} named once"


def test_a_run_of_tallies_follows_its_own_table():
    for wish, name in enumerate(fields.WISHES):
        assert fields.TALLY[fields.T_WISH + wish] == f"wish_{name}"
    for offer in range(fields.OFFERS):
        assert fields.TALLY[fields.T_DEAL_TAKEN + offer] == f"deal_taken_{offer + 1}"


def test_the_rules_name_their_draws_decisions_and_strategies_from_the_tables(game):
    assert game.draw_names == fields.DRAWS
    assert tuple(decision.name for decision in game.decisions) == fields.DECISIONS
    assert game.strategies == fields.STRATEGIES
    assert game.tally_names == fields.TALLY
    assert game.tables.params.shape == (len(fields.PARAMS),)
