"""Moon of Fortune: a scenario for every rule of the published text, through the script interface.

Amounts are worked by hand at a base bet of 1.00 unless a test says otherwise, so a value of
"N x bet" is N.00. Screens are written as four rows of four letters (see ``CODES``).
"""

from __future__ import annotations

from decimal import Decimal
from functools import partial

import pytest

from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import Operator, ScriptError
from slotforge.games import load_game
from tests import scripts

CODES = {
    "L": "LANTERN", "M": "MOONCAKE", "F": "FAN", "T": "TEAPOT", "A": "ACE", "K": "KING", "Q": "QUEEN",
    "J": "JACK", "W": "WILD", "C": "CASH", "Y": "MYSTERY", "R": "RABBIT_MYSTERY", "_": "BLANK",
    "1": "MINI", "2": "MINOR", "3": "MAJOR", "X": "COLLECTOR",
}
BET = {"bet": "1.00"}
KEY = "1.00/x1/standard"  # the state entry of BET
# No count win, no bonus symbol: at most 3 of any paying symbol and 2 WILD.
QUIET = "LMFT AKQJ LMFT AKQW"


def screen(rows: str) -> list[list[str]]:
    """Four rows of four letters, separated by spaces."""
    return [[CODES[letter] for letter in row] for row in rows.split()]


def put(rows: str, cells: dict[int, str]) -> str:
    """``rows`` with some cells (0-15, reading order) replaced by letters."""
    letters = [c for c in rows if c != " "]
    for cell, letter in cells.items():
        letters[cell] = letter
    flat = "".join(letters)
    return " ".join(flat[i : i + 4] for i in range(0, 16, 4))


def bonus(filled: dict[int, str]) -> str:
    """A bonus-game screen: BLANK except the given cells."""
    return put("____ ____ ____ ____", filled)


@pytest.fixture(scope="module")
def game():
    return load_game("moon-of-fortune")


play = partial(scripts.play, bet=BET, state={}, operator=Operator(gamble_limit=None), shape=screen)


def wins(record):
    return [(w["kind"], w["symbol"], w["count"], w["amount"]) for step in record["steps"] for w in step["wins"]]


def events_of(record, kind):
    return [e for step in record["steps"] for e in step["events"] if e["type"] == kind]


def held(record, key=KEY):
    return {(h["cell"], h["symbol"]) for h in record["state"].get(key, {}).get("held", [])}


# -- Game rules ------------------------------------------------------------------------------------
def test_16_independent_reels_on_a_4x4_grid(game):
    record = rounds.play(game, BET, source=rounds.seeded_words(1))
    assert len(record["steps"][0]["screen"]) == 4 and all(len(row) == 4 for row in record["steps"][0]["screen"])
    # A forced screen lands cell by cell: any symbol on any cell, e.g. a column of one symbol.
    record = play(game, ["AKQJ AKQJ AKQJ LMFT"])
    assert record["steps"][0]["screen"] == screen("AKQJ AKQJ AKQJ LMFT")


def test_a_win_is_at_least_10_symbols_of_a_kind_anywhere(game):
    # 10 ACE scattered over the grid: 0.5 x bet.
    record = play(game, ["AKAK AQAJ AAFA LAAA"])
    assert wins(record) == [("count", "ACE", 10, "0.50")]
    assert record["total_win"] == "0.50"
    # 9 ACE pay nothing.
    assert play(game, ["AKAK AQAJ AAFA LAAM"])["total_win"] == "0.00"


def test_only_the_highest_win_is_paid(game):
    # 4 WILD, 6 LANTERN, 6 JACK: LANTERN 10 (2.00) and JACK 10 (0.40) both count; only LANTERN pays.
    record = play(game, ["WWWW LLLL LLJJ JJJJ"])
    assert wins(record) == [("count", "LANTERN", 10, "2.00")]


def test_of_two_wins_of_the_same_value_the_symbol_higher_in_the_paytable_pays(game):
    # 4 WILD, 6 ACE, 6 KING: ACE 10 and KING 10 both pay 0.5 x bet; ACE is higher in the paytable.
    record = play(game, ["WWWW AAAA AAKK KKKK"])
    assert wins(record) == [("count", "ACE", 10, "0.50")]
    # FAN 10 (1.00) and TEAPOT 10 (1.00): FAN.
    assert wins(play(game, ["WWWW FFFF FFTT TTTT"])) == [("count", "FAN", 10, "1.00")]


def test_pays_that_are_fractions_of_the_bet_are_exact(game):
    # 10 QUEEN pay 0.4 x bet: 0.04 at a bet of 0.10, 40.00 at 100.00.
    rows = "QQQQ QQQQ QQLM FTAK"
    assert play(game, [rows], bet={"bet": "0.10"})["total_win"] == "0.04"
    assert play(game, [rows], bet={"bet": "100.00"})["total_win"] == "40.00"
    # 11 TEAPOT pay 1.5 x bet: 0.15 at 0.10.
    assert play(game, ["TTTT TTTT TTTL MFAK"], bet={"bet": "0.10"})["total_win"] == "0.15"


def test_wild_substitutes_for_all_symbols_except_bonus_symbols(game):
    # 6 WILD + 4 LANTERN: LANTERN 10 pays 2.00. The 5 CASH are not helped by the WILDs: 5 bonus
    # symbols do not start the bonus game (they are held instead).
    record = play(game, ["WWWW WWLL LLCC CCCA"], draws={"cash_value": [1, 1, 1, 1, 1]})
    assert wins(record) == [("count", "LANTERN", 10, "2.00")]
    assert events_of(record, "hold_the_jackpot") == []


def test_wild_is_not_a_paying_symbol_by_itself(game):
    assert play(game, ["WWWW WWWW WWWW WWWW"])["total_win"] == "0.00"
    # 12 WILD and no paying symbol: nothing; with one JACK, 13 JACK pay 2 x bet.
    assert play(game, ["WWWW WWWW WWWW CCCC"], draws={"cash_value": [1] * 4})["total_win"] == "0.00"
    assert wins(play(game, ["WWWW WWWW WWWW JCCC"], draws={"cash_value": [1] * 3})) == [("count", "JACK", 13, "2.00")]


def test_bonus_symbols_pay_only_in_the_bonus_game(game):
    # 5 CASH worth 15 x bet each on a base screen: no win.
    record = play(game, [put(QUIET, {0: "C", 1: "C", 2: "C", 3: "C", 4: "C"})], draws={"cash_value": [15] * 5})
    assert record["total_win"] == "0.00"
    assert [e["value"] for e in events_of(record, "cash")] == ["15.00"] * 5


def test_at_least_6_bonus_symbols_of_any_type_start_hold_the_jackpot(game):
    six = put(QUIET, {0: "C", 5: "C", 6: "Y", 9: "Y", 12: "R", 15: "R"})
    record = play(game, [six], draws={"cash_value": [1, 1]})
    assert events_of(record, "hold_the_jackpot") == [{"type": "hold_the_jackpot", "bonus_symbols": 6}]
    five = put(QUIET, {0: "C", 5: "C", 6: "Y", 9: "Y", 12: "R"})
    assert events_of(play(game, [five], draws={"cash_value": [1, 1]}), "hold_the_jackpot") == []


def test_4_or_5_cash_stick_for_one_spin(game):
    four = put(QUIET, {0: "C", 1: "C", 2: "C", 3: "C"})
    first = play(game, [four], draws={"cash_value": [1, 2, 3, 4]})
    assert held(first) == {(0, "CASH"), (1, "CASH"), (2, "CASH"), (3, "CASH")}
    assert [h["value"] for h in first["state"][KEY]["held"]] == [1, 2, 3, 4]
    # The next spin shows them in place without landing them again ...
    second = play(game, [four], state=first["state"])
    assert second["steps"][0]["screen"][0] == ["CASH"] * 4
    assert events_of(second, "cash") == []  # no new CASH landed, no value drawn
    # ... and then they are gone: exactly one spin.
    assert second["state"] == {}
    third = play(game, [QUIET], state=second["state"])
    assert third["steps"][0]["screen"] == screen(QUIET)
    # 3 CASH or 6 are not held (6 start the bonus game).
    three = play(game, [put(QUIET, {0: "C", 1: "C", 2: "C"})], draws={"cash_value": [1, 1, 1]})
    assert three["state"] == {}


def test_held_cash_count_toward_the_trigger(game):
    first = play(game, [put(QUIET, {0: "C", 1: "C", 2: "C", 3: "C"})], draws={"cash_value": [1, 2, 3, 4]})
    # Next spin: the 4 held CASH and 2 new ones make 6. The bonus game keeps the held values.
    grid = {0: "C", 1: "C", 2: "C", 3: "C", 8: "C", 9: "C"}
    second = play(game, [put(QUIET, grid)] + [bonus(grid)] * 3, draws={"cash_value": [5, 6]}, state=first["state"])
    assert events_of(second, "hold_the_jackpot") == [{"type": "hold_the_jackpot", "bonus_symbols": 6}]
    # 1 + 2 + 3 + 4 + 5 + 6 = 21 x bet.
    assert ("bonus", "CASH", 6, "21.00") in wins(second)
    assert second["total_win"] == "21.00"


def test_a_sticky_symbol_leaves_the_other_cells_random(game):
    state = {KEY: {"held": [{"cell": 5, "symbol": "MYSTERY"}]}}
    screens = [rounds.play(game, BET, state=state, source=rounds.seeded_words(seed))["steps"][0]["screen"]
               for seed in range(20)]
    assert all(s[1][1] == "MYSTERY" for s in screens)
    others = {tuple(c for r, row in enumerate(s) for c2, c in enumerate(row) if (r, c2) != (1, 1)) for s in screens}
    assert len(others) == 20  # the other 15 cells spin freely


def test_the_maximum_win_is_1500x_bet(game):
    # A bonus game on 15 cells: 10 CASH of 15 (150), 5 mysteries that open into COLLECTORs x10
    # (1,500 each) = 7,650 x bet; the round pays 1,500.
    cells = {c: "C" for c in range(10)} | {c: "Y" for c in range(10, 15)}
    trigger = put("CCCC CCCC CCYY YYYA", {})
    record = play(game, [trigger] + [bonus(cells)] * 3,
                  draws={"cash_value": [15] * 10, "mystery": ["COLLECTOR"] * 5, "collector_multiplier": [10] * 5})
    assert ("bonus", "COLLECTOR", 5, "7500.00") in wins(record)
    assert events_of(record, "max_win") == [{"type": "max_win", "won": "7650.00", "paid": "1500.00"}]
    assert record["total_win"] == "1500.00"


# -- Sticky to Infinity ----------------------------------------------------------------------------
def test_mysteries_stick_until_the_end_of_the_bonus_game(game):
    first = play(game, [put(QUIET, {5: "Y", 10: "R"})])
    assert held(first) == {(5, "MYSTERY"), (10, "RABBIT_MYSTERY")}
    assert [e["symbol"] for e in events_of(first, "sticky")] == ["MYSTERY", "RABBIT_MYSTERY"]
    # They stay spin after spin ...
    second = play(game, [put(QUIET, {5: "Y", 10: "R"})], state=first["state"])
    third = play(game, [put(QUIET, {5: "Y", 10: "R"})], state=second["state"])
    assert held(third) == held(first)
    # ... until a bonus game they entered ends: 2 stickies + 4 CASH start it.
    trigger = put(QUIET, {0: "C", 1: "C", 2: "C", 3: "C", 5: "Y", 10: "R"})
    grid = {0: "C", 1: "C", 2: "C", 3: "C", 5: "Y", 10: "R"}
    fourth = play(game, [trigger] + [bonus(grid)] * 3, state=third["state"],
                  draws={"cash_value": [1, 1, 1, 1, 1], "mystery": ["CASH"], "rabbit_mystery": ["MINI"]})
    assert events_of(fourth, "hold_the_jackpot")
    assert fourth["state"] == {}


def test_stickies_count_toward_the_trigger(game):
    state = {KEY: {"held": [{"cell": 0, "symbol": "MYSTERY"}, {"cell": 15, "symbol": "RABBIT_MYSTERY"}]}}
    trigger = put(QUIET, {0: "Y", 15: "R", 4: "C", 5: "C", 6: "C", 7: "C"})
    record = play(game, [trigger], state=state, draws={"cash_value": [1] * 4})
    assert events_of(record, "hold_the_jackpot") == [{"type": "hold_the_jackpot", "bonus_symbols": 6}]


def test_stickies_only_appear_on_the_bet_level_they_were_won_on(game):
    won = play(game, [put(QUIET, {5: "Y"})])
    # At 2.00 the MYSTERY is hidden: cell 5 spins like any other (here it lands a KING).
    other = play(game, [QUIET], bet={"bet": "2.00"}, state=won["state"])
    assert other["steps"][0]["screen"] == screen(QUIET)
    # Back at 1.00 it shows again, in its cell.
    back = play(game, [put(QUIET, {5: "Y"})], state=other["state"])
    assert held(back) == {(5, "MYSTERY")}
    with pytest.raises(ScriptError, match=r"screens\[0\]\[1\]\[1\]: the cell holds MYSTERY, got KING"):
        play(game, [QUIET], state=other["state"])


@pytest.mark.parametrize("field, value, key", [("chance_level", 2, "1.00/x2/standard"),
                                               ("volatility", "high", "1.00/x1/high")])
def test_stickies_only_appear_on_the_chance_and_volatility_level_they_were_won_on(game, field, value, key):
    won = play(game, [put(QUIET, {5: "Y"})])
    switched = play(game, [put(QUIET, {6: "R"})], bet={**BET, field: value}, state=won["state"])
    assert held(switched, KEY) == {(5, "MYSTERY")}  # kept, hidden
    assert held(switched, key) == {(6, "RABBIT_MYSTERY")}  # the other configuration's own
    assert switched["steps"][0]["screen"][1][1] == "KING"
    back = play(game, [put(QUIET, {5: "Y"})], state=switched["state"])
    assert held(back) == {(5, "MYSTERY")}


def test_mysteries_open_one_by_one_at_the_end_of_the_bonus_game(game):
    grid = {0: "C", 1: "C", 2: "C", 3: "C", 9: "R", 6: "Y"}
    trigger = put(QUIET, grid)
    record = play(game, [trigger] + [bonus(grid)] * 3,
                  draws={"cash_value": [2, 2, 2, 2, 5], "mystery": ["CASH"], "rabbit_mystery": ["MINOR"]})
    opened = events_of(record, "mystery_open")
    assert [(e["cell"], e["symbol"], e["becomes"]) for e in opened] == [(6, "MYSTERY", "CASH"),
                                                                        (9, "RABBIT_MYSTERY", "MINOR")]
    assert opened[0]["value"] == "5.00"
    # 4 x 2 + 5 CASH and a MINOR (25): 38 x bet.
    assert record["total_win"] == "38.00"


# -- Hold the Jackpot ------------------------------------------------------------------------------
SIX_CASH = {0: "C", 1: "C", 2: "C", 3: "C", 4: "C", 5: "C"}


def test_bonus_symbols_stick_and_each_new_one_resets_the_respins_to_3(game):
    after_first = SIX_CASH | {15: "C"}
    screens = [put(QUIET, SIX_CASH), bonus(SIX_CASH), bonus(SIX_CASH), bonus(after_first),
               bonus(after_first), bonus(after_first), bonus(after_first)]
    record = play(game, screens, draws={"cash_value": [1] * 7})
    respins = [(e["left"], e["filled"]) for e in events_of(record, "respins")]
    # 3 at the start; two empty spins; a CASH resets to 3; three empty spins end it.
    assert respins == [(3, 6), (2, 6), (1, 6), (3, 7), (2, 7), (1, 7), (0, 7)]
    assert [s["kind"] for s in record["steps"]] == ["base"] + ["bonus"] * 7
    assert record["total_win"] == "7.00"


def test_the_bonus_game_ends_when_all_reels_are_filled_with_grand_instead_of_values(game):
    full = {c: "C" for c in range(16)}
    record = play(game, [put(QUIET, SIX_CASH), bonus(full)], draws={"cash_value": [15] * 16})
    assert ("jackpot", "GRAND", 1, "1500.00") in wins(record)
    assert not [w for w in wins(record) if w[1] == "CASH"]  # values are not added
    assert record["total_win"] == "1500.00"
    assert len(record["steps"]) == 2


def test_cash_values_range_1_to_10_12_and_15_x_bet(game):
    record = play(game, [put(QUIET, SIX_CASH)] + [bonus(SIX_CASH)] * 3, draws={"cash_value": [1, 2, 9, 10, 12, 15]},
                  bet={"bet": "0.50"})
    # (1 + 2 + 9 + 10 + 12 + 15) x 0.50 = 24.50.
    assert record["total_win"] == "24.50"
    with pytest.raises(ScriptError, match=r"draws.cash_value: expected a CASH value x bet, one of \[1, 2, 3, 4, 5, "
                                          r"6, 7, 8, 9, 10, 12, 15\], got 11"):
        play(game, [QUIET], draws={"cash_value": [11]})


def test_mini_minor_and_major_appear_in_the_bonus_game_only_and_several_of_a_kind_all_pay(game):
    with pytest.raises(ScriptError, match=r"screens\[0\]\[0\]\[0\]: MINI does not land in the base game"):
        play(game, [put(QUIET, {0: "1"})])
    grid = SIX_CASH | {8: "1", 9: "1", 10: "2", 11: "3"}
    record = play(game, [put(QUIET, SIX_CASH), bonus(grid)] + [bonus(grid)] * 3, draws={"cash_value": [1] * 6})
    # 6 CASH of 1, two MINI (10 each), a MINOR (25) and a MAJOR (150): 6 + 20 + 25 + 150 = 201.
    assert ("jackpot", "MINI", 2, "20.00") in wins(record)
    assert ("jackpot", "MINOR", 1, "25.00") in wins(record)
    assert ("jackpot", "MAJOR", 1, "150.00") in wins(record)
    assert record["total_win"] == "201.00"


def test_a_mystery_can_become_any_other_bonus_symbol(game):
    grid = SIX_CASH | {8: "Y", 9: "Y", 10: "Y", 11: "Y", 12: "Y"}
    record = play(game, [put(QUIET, SIX_CASH), bonus(grid)] + [bonus(grid)] * 3,
                  draws={"cash_value": [1] * 6 + [3], "mystery": ["CASH", "MINI", "MINOR", "MAJOR", "COLLECTOR"],
                         "collector_multiplier": [2]})
    assert [e["becomes"] for e in events_of(record, "mystery_open")] == ["CASH", "MINI", "MINOR", "MAJOR",
                                                                        "COLLECTOR"]
    # CASH 6 + 3 = 9; COLLECTOR 9 x 2 = 18; MINI 10, MINOR 25, MAJOR 150: 212.
    assert record["total_win"] == "212.00"


def test_a_rabbit_mystery_becomes_only_a_collector_or_a_jackpot(game):
    with pytest.raises(ScriptError, match=r"draws.rabbit_mystery: expected one of \['COLLECTOR', 'MINI', 'MINOR', "
                                          r"'MAJOR'\], got 'CASH'"):
        play(game, [QUIET], draws={"rabbit_mystery": ["CASH"]})


def test_a_collector_collects_all_cash_values_times_1_to_10(game):
    # Two mysteries open into CASH (3 and 4), then one into a COLLECTOR: it takes all CASH on the
    # grid, 6 x 1 + 3 + 4 = 13, times its drawn 7 = 91. Prize 13 + 91 = 104.
    grid = SIX_CASH | {6: "Y", 7: "Y", 8: "Y"}
    record = play(game, [put(QUIET, SIX_CASH), bonus(grid)] + [bonus(grid)] * 3,
                  draws={"cash_value": [1] * 6 + [3, 4], "mystery": ["CASH", "CASH", "COLLECTOR"],
                         "collector_multiplier": [7]})
    assert events_of(record, "collector") == [{"type": "collector", "cell": 8, "cash": "13.00", "multiplier": 7,
                                               "value": "91.00"}]
    assert record["total_win"] == "104.00"
    with pytest.raises(ScriptError, match="collector_multiplier: expected a whole number from 1 to 10, got 11"):
        play(game, [QUIET], draws={"collector_multiplier": [11]})


def test_a_collector_is_only_drawn_on_mysteries(game):
    with pytest.raises(ScriptError, match=r"screens\[0\]\[0\]\[0\]: reel 1 cannot carry COLLECTOR"):
        play(game, [put(QUIET, {0: "X"})])


def test_the_bonus_game_pays_the_sum_of_its_values_at_the_end(game):
    grid = SIX_CASH | {6: "1"}
    record = play(game, [put(QUIET, SIX_CASH), bonus(grid)] + [bonus(grid)] * 3, draws={"cash_value": [2] * 6})
    bonus_steps = [s for s in record["steps"] if s["kind"] == "bonus"]
    assert all(not s["wins"] for s in bonus_steps[:-1])  # nothing pays before the end
    assert bonus_steps[-1]["wins"] == [
        {"kind": "bonus", "symbol": "CASH", "count": 6, "amount": "12.00"},
        {"kind": "jackpot", "symbol": "MINI", "count": 1, "amount": "10.00", "jackpot": "MINI"},
    ]
    assert record["total_win"] == "22.00"


def test_the_bonus_game_is_played_at_the_bet_and_levels_of_the_spin_that_started_it(game):
    screens = [put(QUIET, SIX_CASH)] + [bonus(SIX_CASH)] * 3
    draws = {"cash_value": [5] * 6}
    at_two = play(game, screens, draws=draws, bet={"bet": "2.00", "chance_level": 6, "volatility": "high"})
    # 6 x 5 x 2.00 = 60.00 at a stake of 12.00: Chance Level x6 multiplies the stake, not the values.
    assert at_two["total_bet"] == "12.00"
    assert at_two["total_win"] == "60.00"
    assert at_two["bet"] == {"bet": "2.00", "chance_level": 6, "volatility": "high"}


# -- Chance Level and bets -------------------------------------------------------------------------
def test_chance_level_multiplies_the_stake_and_not_the_paytable(game):
    for level in (1, 2, 4, 6):
        record = play(game, ["AKAK AQAJ AAFA LAAA"], bet={**BET, "chance_level": level})
        assert record["total_bet"] == f"{level}.00"
        assert record["total_win"] == "0.50"


def test_a_bet_the_game_does_not_offer_is_refused(game):
    with pytest.raises(BetError, match=r"bet.chance_level: expected one of 1, 2, 4, 6, got 3"):
        game.parse_bet({"chance_level": 3})
    with pytest.raises(BetError, match=r"bet.volatility: expected one of low, standard, high, got 'wild'"):
        game.parse_bet({"volatility": "wild"})
    with pytest.raises(BetError, match=r"bet.bet: expected one of 0.10, 0.20, 0.50, 1.00"):
        game.parse_bet({"bet": "0.30"})
    with pytest.raises(BetError, match=r"bet.lines: not a bet field of this game"):
        game.parse_bet({"lines": 20})


# -- Gamble ----------------------------------------------------------------------------------------
TEN_ACE = "AKAK AQAJ AAFA LAAA"  # pays 0.50


def test_the_gamble_takes_the_win_or_picks_one_of_two_symbols(game):
    waiting = play(game, [TEN_ACE])
    assert waiting["status"] == "awaiting"
    assert waiting["awaiting"] == {"decision": "gamble", "options": ["collect", "sun", "moon"], "win": "0.50"}
    taken = play(game, [TEN_ACE], choices=["collect"])
    assert taken["total_win"] == "0.50" and taken["status"] == "complete"
    won = play(game, [TEN_ACE], choices=["sun", "collect"], draws={"gamble": ["SUN"]})
    assert won["total_win"] == "1.00"
    lost = play(game, [TEN_ACE], choices=["moon"], draws={"gamble": ["SUN"]})
    assert lost["total_win"] == "0.00" and lost["status"] == "complete"
    assert events_of(lost, "gamble") == [{"type": "gamble", "choice": "moon", "drawn": "SUN", "stake": "0.50",
                                          "won": False}]


def test_the_gamble_is_played_for_at_most_7_rounds(game):
    record = play(game, [TEN_ACE], choices=["sun"] * 7, draws={"gamble": ["SUN"] * 7})
    # 0.50 doubled 7 times = 64.00, then collected automatically.
    assert record["total_win"] == "64.00"
    assert events_of(record, "collect") == [{"type": "collect", "amount": "64.00", "automatic": True}]


def test_a_gamble_is_refused_beyond_1500x_bet(game):
    # At a bet of 0.10 the most a round pays is 150.00: a win of 80.00 cannot be doubled.
    rows = put("WWWW WWWW WWWW WWWW", {0: "L", 1: "M"})  # LANTERN 15 (75x) beats MOONCAKE 15 (50x)
    record = play(game, [rows], bet={"bet": "0.10"})
    assert record["total_win"] == "7.50" and record["status"] == "awaiting"
    doubled = play(game, [rows], bet={"bet": "0.10"}, choices=["sun"] * 4, draws={"gamble": ["SUN"] * 4})
    # 7.50 -> 15 -> 30 -> 60 -> 120; 240 would exceed 150: collected.
    assert doubled["total_win"] == "120.00"
    assert events_of(doubled, "collect") == [{"type": "collect", "amount": "120.00", "automatic": True}]


def test_a_gamble_is_refused_beyond_the_operators_cap(game):
    rows = put("WWWW WWWW WWWW WWWW", {0: "L", 1: "M"})  # LANTERN 15: 75 x bet
    # The default cap is 7,500: at a bet of 100.00 the win is 7,500.00 and cannot be doubled.
    record = play(game, [rows], bet={"bet": "100.00"})
    assert record["total_win"] == "7500.00" and record["status"] == "complete"
    # An operator cap of 100.00 refuses doubling 75.00 at a bet of 1.00.
    capped = play(game, [rows], operator=Operator(gamble_limit=Decimal("100.00")))
    assert capped["status"] == "complete" and capped["total_win"] == "75.00"
    assert play(game, [rows], operator=Operator(gamble_limit=Decimal("150.00")))["status"] == "awaiting"


def test_a_round_replays_with_its_state(game):
    first = play(game, [put(QUIET, {5: "Y"})])
    record = rounds.play(game, BET, state=first["state"], source=rounds.seeded_words(4))
    same, again = rounds.replay(game, record)
    assert same, again
    assert record["inputs"]["state"] == first["state"]
