"""Dynasty: one scenario per bullet of the published rules (seeds/002_b52349776d48b294.txt).

Every round is forced through the script interface of SCENARIOS.md (``parse_script`` + ``play``)
and every expected amount is worked out by hand from the design's paytable
(games/dynasty.md) and the 20 paylines ``lines_20_5x3`` (games/paylines.json), quoted below.
A few tests drive the ``slotforge`` command itself.

Paylines (row per reel, 0 = top):
     1 [1,1,1,1,1]   2 [0,0,0,0,0]   3 [2,2,2,2,2]   4 [0,1,2,1,0]   5 [2,1,0,1,2]
     6 [0,0,1,0,0]   7 [2,2,1,2,2]   8 [1,2,2,2,1]   9 [1,0,0,0,1]  10 [1,0,1,0,1]
    11 [1,2,1,2,1]  12 [0,1,0,1,0]  13 [2,1,2,1,2]  14 [1,1,0,1,1]  15 [1,1,2,1,1]
    16 [0,1,1,1,0]  17 [2,1,1,1,2]  18 [0,2,0,2,0]  19 [2,0,2,0,2]  20 [0,2,2,2,0]
So lines starting on the top row of reel 1 are 2 4 6 12 16 18 20 (7), on the middle row
1 8 9 10 11 14 15 (7), on the bottom row 3 5 7 13 17 19 (6).
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import Operator, ScriptError
from slotforge.games import maths_of

# Line pays in coins per coin bet on the line (games/dynasty.md), and the EMPEROR scatter
# schedule (x total bet).
PAYTABLE = {
    "DRAGON": {2: 2, 3: 50, 4: 250, 5: 1000},
    "PHOENIX": {3: 40, 4: 150, 5: 500},
    "TIGER": {3: 30, 4: 100, 5: 400},
    "KOI": {3: 25, 4: 75, 5: 250},
    "ACE": {3: 15, 4: 50, 5: 150},
    "KING": {3: 15, 4: 40, 5: 125},
    "QUEEN": {3: 10, 4: 30, 5: 100},
    "JACK": {3: 5, 4: 25, 5: 100},
    "TEN": {3: 5, 4: 20, 5: 75},
    "NINE": {3: 5, 4: 15, 5: 75},
}
ALL_OPTIONS = ["collect", "red", "black", "hearts", "diamonds", "clubs", "spades"]

# A screen that pays nothing: reel 1 shows only ACE, reel 2 only KING, no EMPEROR.
BLANK = [["ACE", "KING", "QUEEN", "JACK", "TEN"] for _ in range(3)]
# Three EMPEROR (reels 1-3) and no line win: reel 1's ACEs meet KING/EMPEROR on reel 2.
# Scatter 3 -> 5 x total bet, and 10 free spins.
TRIGGER = [
    ["EMPEROR", "KING", "QUEEN", "JACK", "TEN"],
    ["ACE", "EMPEROR", "QUEEN", "JACK", "TEN"],
    ["ACE", "KING", "EMPEROR", "JACK", "TEN"],
]
# TIGER TIGER TIGER ACE on line 1 only (lines 14/15 leave the middle row on reel 3, lines 8-11
# meet KING on reel 2), plus two EMPEROR (reel 1 top, reel 5 bottom).
# Line 1: TIGER x3 = 30 coins; scatter 2 -> 1 x total bet.
TIGER_AND_TWO_EMPERORS = [
    ["EMPEROR", "KING", "QUEEN", "JACK", "TEN"],
    ["TIGER", "TIGER", "TIGER", "ACE", "NINE"],
    ["ACE", "KING", "QUEEN", "JACK", "EMPEROR"],
]
# Two EMPEROR and nothing else (lines=20, 1 coin, 0.01: scatter 1 x 0.20 = 0.20).
TWO_EMPERORS = [
    ["EMPEROR", "KING", "QUEEN", "JACK", "TEN"],
    ["ACE", "KING", "QUEEN", "JACK", "TEN"],
    ["ACE", "KING", "QUEEN", "JACK", "EMPEROR"],
]


def row_screen(middle: list[str]) -> list[list[str]]:
    """A screen whose middle row (line 1) is ``middle`` and whose other rows pay nothing."""
    return [BLANK[0], middle, BLANK[2]]


def run(game, screens, bet=None, *, draws=None, choices=None, operator=None):
    raw = {"bet": bet or {"lines": 20, "coins_per_line": 1, "coin_value": "0.01"}, "screens": screens}
    if draws is not None:
        raw["draws"] = draws
    if choices is not None:
        raw["choices"] = choices
    kwargs = {"operator": operator} if operator is not None else {}
    return rounds.play(game, script=rounds.parse_script(game, raw), **kwargs)


def line_wins(step):
    return sorted((w["line"], w["symbol"], w["count"], w["amount"]) for w in step["wins"] if w["kind"] == "line")


def scatter_wins(step):
    return [(w["symbol"], w["count"], w["amount"]) for w in step["wins"] if w["kind"] == "scatter"]


def free_steps(record):
    return [s for s in record["steps"] if s["kind"] == "free"]


def gamble_steps(record):
    return [s for s in record["steps"] if s["kind"] == "gamble"]


def awards(record):
    return [e for s in record["steps"] for e in s["events"] if e["type"] == "free_spins_awarded"]


def collects(record):
    return [e for s in record["steps"] for e in s["events"] if e["type"] == "collect"]


# ------------------------------------------------------------------------------------------
# General rules
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("coins", "coin_value", "total_bet", "line_amount", "scatter_amount", "total"),
    [
        # 20 lines x 3 coins = 60 coins x 0.25 = 15.00; TIGER x3 = 30 coins/coin x 3 x 0.25.
        (3, "0.25", "15.00", "22.50", "15.00", "37.50"),
        (1, "0.01", "0.20", "0.30", "0.20", "0.50"),
    ],
)
def test_all_payouts_are_in_credits(dynasty, coins, coin_value, total_bet, line_amount, scatter_amount, total):
    """All payouts are in credits."""
    record = run(
        dynasty, [TIGER_AND_TWO_EMPERORS], {"lines": 20, "coins_per_line": coins, "coin_value": coin_value},
        choices=["collect"],
    )
    base = record["steps"][0]
    assert record["total_bet"] == total_bet
    assert line_wins(base) == [(1, "TIGER", 3, line_amount)]
    assert scatter_wins(base) == [("EMPEROR", 2, scatter_amount)]
    assert record["total_win"] == total
    for amount in [record["total_bet"], record["total_win"]] + [w["amount"] for w in base["wins"]]:
        assert isinstance(amount, str) and Decimal(amount) == Decimal(amount).quantize(Decimal("0.01"))


def test_malfunctions_void_all_plays_and_pays(dynasty, tmp_path):
    """Malfunctions void all plays and pays."""
    # A round that cannot go on (the script picks a guess that is not offered) yields no
    # record at all, so nothing of it is paid, and the command prints no record.
    with pytest.raises(ScriptError):
        run(dynasty, [TWO_EMPERORS], choices=["hearts"], operator=Operator(gamble_limit=Decimal("0.50")))
    script = tmp_path / "bad.json"
    script.write_text(json.dumps({"screens": [TWO_EMPERORS], "choices": ["hearts"]}))
    result = CliRunner().invoke(app, ["play", "dynasty", "--script", str(script), "--gamble-limit", "0.50", "--json"])
    assert result.exit_code != 0
    assert result.stdout == ""
    assert "not offered" in result.stderr


# ------------------------------------------------------------------------------------------
# Wild symbol rules
# ------------------------------------------------------------------------------------------


def test_the_seal_symbol_is_a_wild_symbol(dynasty):
    """The Seal symbol is a wild symbol."""
    assert dynasty.spec.wild.symbol == "SEAL"
    kinds = {s.code: s.kind for s in dynasty.spec.symbols}
    assert kinds["SEAL"] == "wild"
    # KOI SEAL KOI on line 1 (lines=1): KOI x3 = 25 coins = 0.25 at 1 coin of 0.01.
    record = run(dynasty, [row_screen(["KOI", "SEAL", "KOI", "ACE", "NINE"])], {"lines": 1}, choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "KOI", 3, "0.25")]


def test_the_seal_symbol_substitutes_for_other_symbols(dynasty):
    """The Seal symbol substitutes for other symbols to complete winning combinations."""
    # Middle row TIGER SEAL TIGER NINE NINE, 20 lines. Line 1 is TIGER x3 = 30 coins.
    # Line 14 goes SEAL (reel 2 mid) -> QUEEN (reel 3 top): TIGER x2 pays nothing; line 15
    # likewise (QUEEN bottom). ACE lines meet SEAL then QUEEN/TIGER: ACE x2 pays nothing.
    screen = [
        ["ACE", "KING", "QUEEN", "JACK", "TEN"],
        ["TIGER", "SEAL", "TIGER", "NINE", "NINE"],
        ["ACE", "KING", "QUEEN", "JACK", "TEN"],
    ]
    record = run(dynasty, [screen], choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "TIGER", 3, "0.30")]
    assert record["total_win"] == "0.30"
    # The same screen with KING where the SEAL was pays nothing: the SEAL made the win.
    without = copy.deepcopy(screen)
    without[1][1] = "KING"
    assert run(dynasty, [without])["total_win"] == "0.00"


@pytest.mark.parametrize("symbol", sorted(PAYTABLE))
def test_the_seal_symbol_substitutes_for_every_paying_symbol(dynasty, symbol):
    """The Seal symbol substitutes for other symbols to complete winning combinations."""
    # X SEAL SEAL SEAL Y on line 1 only (lines=1): X x4.
    last = "NINE" if symbol != "NINE" else "TEN"
    record = run(dynasty, [row_screen([symbol, "SEAL", "SEAL", "SEAL", last])], {"lines": 1}, choices=["collect"])
    coins = PAYTABLE[symbol][4]
    assert line_wins(record["steps"][0]) == [(1, symbol, 4, f"{Decimal(coins) * Decimal('0.01'):.2f}")]


def test_the_seal_symbol_does_not_substitute_for_the_emperor(dynasty):
    """The Seal symbol does not substitute for the Emperor symbol to complete winning scatter
    combinations or activate the Free Spins bonus game."""
    # Full SEAL stacks on reels 2, 3 and 4 (9 SEALs) and two EMPEROR; lines=1, 0.10 a coin.
    # Line 1: QUEEN SEAL SEAL SEAL EMPEROR -> QUEEN x4 = 30 coins = 3.00.
    # Scatter: two EMPEROR -> 1 x total bet (1 coin) = 0.10. No free spins.
    screen = [
        ["EMPEROR", "SEAL", "SEAL", "SEAL", "KING"],
        ["QUEEN", "SEAL", "SEAL", "SEAL", "EMPEROR"],
        ["JACK", "SEAL", "SEAL", "SEAL", "KING"],
    ]
    record = run(dynasty, [screen], {"lines": 1, "coin_value": "0.10"}, choices=["collect"])
    base = record["steps"][0]
    assert line_wins(base) == [(1, "QUEEN", 4, "3.00")]
    assert scatter_wins(base) == [("EMPEROR", 2, "0.10")]
    assert awards(record) == []
    assert free_steps(record) == []
    assert record["total_win"] == "3.10"


def test_the_seal_symbol_does_not_complete_a_single_emperor(dynasty):
    """The Seal symbol does not substitute for the Emperor symbol to complete winning scatter
    combinations."""
    # One EMPEROR beside nine SEALs: no scatter win. Line 1 (lines=1): NINE SEAL SEAL SEAL
    # NINE -> NINE x5 = 75 coins = 0.75.
    screen = [
        ["EMPEROR", "SEAL", "SEAL", "SEAL", "KING"],
        ["NINE", "SEAL", "SEAL", "SEAL", "NINE"],
        ["JACK", "SEAL", "SEAL", "SEAL", "KING"],
    ]
    record = run(dynasty, [screen], {"lines": 1}, choices=["collect"])
    base = record["steps"][0]
    assert scatter_wins(base) == []
    assert line_wins(base) == [(1, "NINE", 5, "0.75")]
    assert record["total_win"] == "0.75"


@pytest.mark.parametrize(("row", "reel"), [(0, 0), (1, 0), (2, 0), (1, 4)])
def test_the_seal_symbol_only_displays_on_reels_2_3_and_4(dynasty, row, reel):
    """The Seal symbols only display on reels 2, 3 and 4."""
    screen = copy.deepcopy(BLANK)
    screen[row][reel] = "SEAL"
    with pytest.raises(ScriptError) as error:
        rounds.parse_script(dynasty, {"screens": [screen]})
    assert f"screens[0][{row}][{reel}]" in str(error.value)
    assert f"reel {reel + 1} cannot carry SEAL" in str(error.value)
    # No reel strip of any mode carries SEAL on reels 1 or 5; reels 2-4 do carry it.
    for mode, strips in dynasty.spec.reels.items():
        assert "SEAL" not in strips[0] and "SEAL" not in strips[4], mode
        assert all("SEAL" in strips[r] for r in (1, 2, 3)), mode


@pytest.mark.parametrize("reel", [1, 2, 3])
def test_the_seal_symbol_is_accepted_on_reels_2_3_and_4(dynasty, reel):
    """The Seal symbols only display on reels 2, 3 and 4."""
    screen = copy.deepcopy(BLANK)
    screen[0][reel] = "SEAL"
    assert len(rounds.parse_script(dynasty, {"screens": [screen]}).screens) == 1


def test_there_are_no_payouts_for_seal_symbol_combinations(dynasty):
    """There are no payouts for any Seal symbol combinations."""
    # Three SEALs in a row on line 1 behind an EMPEROR (which has no line pay), and nothing
    # else: no line win, one EMPEROR is no scatter win.
    record = run(dynasty, [row_screen(["EMPEROR", "SEAL", "SEAL", "SEAL", "KING"])], {"lines": 1})
    assert record["steps"][0]["wins"] == []
    assert record["total_win"] == "0.00"
    assert record["status"] == "complete"
    # With all 20 lines and SEAL stacks on reels 2-4 behind reel 1's EMPEROR/NINE/TEN and a
    # fifth reel of KING: every line pays its reel-1 symbol x4 and no win is ever "SEAL".
    # Top row (7 lines) EMPEROR: nothing. Middle (7 lines) NINE x4 = 15; bottom (6) TEN x4 = 20.
    # 7 x 15 + 6 x 20 = 225 coins = 2.25.
    screen = [
        ["EMPEROR", "SEAL", "SEAL", "SEAL", "KING"],
        ["NINE", "SEAL", "SEAL", "SEAL", "KING"],
        ["TEN", "SEAL", "SEAL", "SEAL", "KING"],
    ]
    record = run(dynasty, [screen], choices=["collect"])
    wins = line_wins(record["steps"][0])
    assert all(symbol != "SEAL" for _, symbol, _, _ in wins)
    assert [line for line, *_ in wins] == sorted([1, 8, 9, 10, 11, 14, 15, 3, 5, 7, 13, 17, 19])
    assert record["total_win"] == "2.25"


def test_seal_symbols_stack_on_a_reel(dynasty):
    """During the regular slot game and the Free Spins bonus game, it is possible for multiple
    wild symbols to display on a reel simultaneously, forming a Seal symbol stack."""
    # Full stacks on reels 2, 3 and 4; reel 1 DRAGON/KOI/ACE, reel 5 NINE.
    # Top-row lines (7): DRAGON x4 = 250 each; middle (7): KOI x4 = 75; bottom (6): ACE x4 = 50.
    # 1750 + 525 + 300 = 2575 coins = 25.75 at 1 coin of 0.01.
    screen = [
        ["DRAGON", "SEAL", "SEAL", "SEAL", "NINE"],
        ["KOI", "SEAL", "SEAL", "SEAL", "NINE"],
        ["ACE", "SEAL", "SEAL", "SEAL", "NINE"],
    ]
    record = run(dynasty, [screen], choices=["collect"])
    base = record["steps"][0]
    assert base["screen"] == screen
    expected = (
        [(line, "DRAGON", 4, "2.50") for line in (2, 4, 6, 12, 16, 18, 20)]
        + [(line, "KOI", 4, "0.75") for line in (1, 8, 9, 10, 11, 14, 15)]
        + [(line, "ACE", 4, "0.50") for line in (3, 5, 7, 13, 17, 19)]
    )
    assert line_wins(base) == sorted(expected)
    assert record["total_win"] == "25.75"


def test_a_seal_stack_increases_the_chances_of_winning(dynasty):
    """The Seal symbol stack increases your chances of winning by substituting for other
    symbols to complete winning combinations."""
    # Reel 3 a full SEAL stack; TIGER TIGER on reels 1-2 of the middle row; reel 4 TIGER mid.
    # Lines 1, 14, 15 all read TIGER TIGER SEAL TIGER JACK (reel 3 mid/top/bottom): TIGER x4
    # = 100 coins each = 3.00. Every other line meets KING/QUEEN on reel 2.
    stacked = [
        ["KOI", "KING", "SEAL", "ACE", "NINE"],
        ["TIGER", "TIGER", "SEAL", "TIGER", "JACK"],
        ["KOI", "QUEEN", "SEAL", "KOI", "NINE"],
    ]
    record = run(dynasty, [stacked], choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "TIGER", 4, "1.00"), (14, "TIGER", 4, "1.00"), (15, "TIGER", 4, "1.00")]
    assert record["total_win"] == "3.00"
    # A single SEAL in the middle of reel 3 completes line 1 only: 1.00.
    single = copy.deepcopy(stacked)
    single[0][2], single[2][2] = "ACE", "QUEEN"
    record = run(dynasty, [single], choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "TIGER", 4, "1.00")]


def test_only_the_highest_combination_is_paid_per_payline(dynasty):
    """Only one winning combination is paid out per payline. If there is more than one possible
    winning combination on a payline, you are paid out the value of the highest combination
    only."""
    # DRAGON SEAL SEAL SEAL DRAGON on line 1: 5 DRAGON = 1000 coins = 10.00, nothing else
    # (not also DRAGON x2, x3 or x4).
    record = run(dynasty, [row_screen(["DRAGON", "SEAL", "SEAL", "SEAL", "DRAGON"])], {"lines": 1}, choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "DRAGON", 5, "10.00")]
    assert record["total_win"] == "10.00"
    # DRAGON DRAGON DRAGON ACE: DRAGON x3 = 50 coins, not 50 + the x2 pay of 2.
    record = run(dynasty, [row_screen(["DRAGON", "DRAGON", "DRAGON", "ACE", "NINE"])], {"lines": 1}, choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "DRAGON", 3, "0.50")]
    assert record["total_win"] == "0.50"


def test_dragon_pays_two_of_a_kind_with_a_seal(dynasty):
    """The Seal symbol substitutes for other symbols to complete winning combinations."""
    # DRAGON SEAL ACE: DRAGON x2 = 2 coins = 0.02 (the only 2-of-a-kind pay).
    record = run(dynasty, [row_screen(["DRAGON", "SEAL", "ACE", "JACK", "TEN"])], {"lines": 1}, choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "DRAGON", 2, "0.02")]


# ------------------------------------------------------------------------------------------
# Scatter symbol rules
# ------------------------------------------------------------------------------------------


def test_the_emperor_symbol_is_a_scatter_symbol(dynasty):
    """The Emperor symbol is a scatter symbol."""
    kinds = {s.code: s.kind for s in dynasty.spec.symbols}
    assert kinds["EMPEROR"] == "scatter"
    assert "EMPEROR" not in dynasty.spec.line_pays
    # Three EMPEROR on line 1 pay nothing as a line, only as a scatter: 5 x 0.01 (lines=1).
    screen = row_screen(["EMPEROR", "EMPEROR", "EMPEROR", "JACK", "TEN"])
    record = run(dynasty, [screen] + [BLANK] * 10, {"lines": 1}, choices=["collect"])
    assert line_wins(record["steps"][0]) == []
    assert scatter_wins(record["steps"][0]) == [("EMPEROR", 3, "0.05")]


def test_the_emperor_does_not_need_to_appear_on_an_enabled_payline(dynasty):
    """The Emperor symbol does not need to appear on an enabled payline to win."""
    # lines=1 (the middle row); the EMPERORs are on the top and bottom rows, on no enabled
    # line. 2 EMPEROR -> 1 x total bet (1 line x 1 coin x 0.50) = 0.50.
    screen = [
        ["EMPEROR", "KING", "QUEEN", "JACK", "TEN"],
        ["ACE", "KING", "QUEEN", "JACK", "TEN"],
        ["NINE", "KING", "QUEEN", "JACK", "EMPEROR"],
    ]
    record = run(dynasty, [screen], {"lines": 1, "coin_value": "0.50"}, choices=["collect"])
    assert record["total_bet"] == "0.50"
    assert line_wins(record["steps"][0]) == []
    assert scatter_wins(record["steps"][0]) == [("EMPEROR", 2, "0.50")]
    assert record["total_win"] == "0.50"


EMPEROR_CELLS = [(0, 2), (2, 2), (1, 0), (0, 4), (2, 1)]


@pytest.mark.parametrize(
    ("count", "amount"),
    # lines=5, 2 coins per line, 0.05 a coin: total bet 10 coins = 0.50.
    [(1, None), (2, "0.50"), (3, "2.50"), (4, "10.00"), (5, "50.00")],
)
def test_scatter_wins_are_the_emperor_payout_times_the_total_bet(dynasty, count, amount):
    """The Emperor symbol can be scattered anywhere on the five reels to complete winning
    combinations, provided two or more Emperor symbols are displayed. Scatter wins are
    calculated by multiplying the Emperor symbol combination payout, according to the Scatter
    Symbol Payout Schedule, by the total bet."""
    screen = copy.deepcopy(BLANK)
    for row, reel in EMPEROR_CELLS[:count]:  # two on the same reel count as two
        screen[row][reel] = "EMPEROR"
    record = run(
        dynasty, [screen] + [BLANK] * 10, {"lines": 5, "coins_per_line": 2, "coin_value": "0.05"}, choices=["collect"]
    )
    assert record["total_bet"] == "0.50"
    base = record["steps"][0]
    assert line_wins(base) == []
    assert scatter_wins(base) == ([("EMPEROR", count, amount)] if amount else [])
    assert record["total_win"] == (amount or "0.00")


def test_three_or_more_emperors_activate_free_spins(dynasty):
    """Three or more Emperor symbols scattered anywhere on the reels activates the Free Spins
    bonus game."""
    record = run(dynasty, [TRIGGER] + [BLANK] * 10, choices=["collect"])
    assert awards(record) == [{"type": "free_spins_awarded", "count": 10, "remaining": 10, "retrigger": False}]
    assert len(free_steps(record)) == 10
    # Two are not enough.
    record = run(dynasty, [TWO_EMPERORS], choices=["collect"])
    assert awards(record) == [] and free_steps(record) == []
    assert [s["kind"] for s in record["steps"]] == ["base"]


def test_the_seal_does_not_substitute_for_the_emperor_in_scatter_combinations(dynasty):
    """The Seal symbol does not substitute for the Emperor symbol to complete scatter symbol
    combinations."""
    # Two EMPEROR with a SEAL stack right beside them: still a 2-scatter (1 x total bet).
    # Lines=20: reel 1 EMPEROR/ACE/ACE; SEAL stack on reel 2, then QUEEN/KING/JACK on reel 3.
    # ACE lines reach SEAL then reel 3: top QUEEN, mid KING, bottom JACK -> ACE x2 pays nothing.
    screen = [
        ["EMPEROR", "SEAL", "QUEEN", "JACK", "TEN"],
        ["ACE", "SEAL", "KING", "JACK", "TEN"],
        ["ACE", "SEAL", "JACK", "EMPEROR", "TEN"],
    ]
    record = run(dynasty, [screen], choices=["collect"])
    assert line_wins(record["steps"][0]) == []
    assert scatter_wins(record["steps"][0]) == [("EMPEROR", 2, "0.20")]
    assert free_steps(record) == []


def test_scatter_and_line_wins_are_both_paid(dynasty):
    """If you have a scatter win and a regular win, you are paid out for both wins, as the
    scatter symbol does not need to appear on an enabled payline to win. Scatter wins are added
    to payline wins."""
    # Line 1 TIGER x3 = 30 coins = 0.30; 2 EMPEROR = 1 x 0.20 = 0.20; total 0.50.
    record = run(dynasty, [TIGER_AND_TWO_EMPERORS], choices=["collect"])
    base = record["steps"][0]
    assert line_wins(base) == [(1, "TIGER", 3, "0.30")]
    assert scatter_wins(base) == [("EMPEROR", 2, "0.20")]
    assert record["total_win"] == "0.50"
    assert collects(record) == [{"type": "collect", "amount": "0.50", "automatic": False}]


# ------------------------------------------------------------------------------------------
# Free Spins bonus game
# ------------------------------------------------------------------------------------------


def test_you_win_ten_free_spins(dynasty):
    """You win ten free spins in the Free Spins bonus game."""
    # Scripting exactly 1 + 10 screens: an 11th screen would be drawn at random, so the count
    # of steps shows the round played exactly ten free spins.
    record = run(dynasty, [TRIGGER] + [BLANK] * 10, choices=["collect"])
    assert [s["kind"] for s in record["steps"]] == ["base"] + ["free"] * 10
    assert record["steps"][0]["events"][0] == {"type": "free_spins_awarded", "count": 10, "remaining": 10, "retrigger": False}
    assert all(s["wins"] == [] for s in free_steps(record))
    # Base: 3 EMPEROR = 5 x 0.20 = 1.00; the free spins are blank.
    assert record["total_win"] == "1.00"


def test_all_regular_winnings_are_doubled_during_free_spins(dynasty):
    """All regular winnings are doubled during the Free Spins bonus game."""
    # Free spin 1: line 1 TIGER x3 = 30 coins x 2 = 0.60; 2 EMPEROR = 1 x 0.20 x 2 = 0.40.
    # Base: 3 EMPEROR = 5 x 0.20 = 1.00. Total 2.00.
    record = run(dynasty, [TRIGGER, TIGER_AND_TWO_EMPERORS] + [BLANK] * 9, choices=["collect"])
    first = free_steps(record)[0]
    assert line_wins(first) == [(1, "TIGER", 3, "0.60")]
    assert scatter_wins(first) == [("EMPEROR", 2, "0.40")]
    assert all(w["multiplier"] == 2 for w in first["wins"])
    assert record["total_win"] == "2.00"
    # The same screen in the base game pays 0.30 + 0.20.
    base = run(dynasty, [TIGER_AND_TWO_EMPERORS], choices=["collect"])["steps"][0]
    assert line_wins(base) == [(1, "TIGER", 3, "0.30")] and scatter_wins(base) == [("EMPEROR", 2, "0.20")]


def test_the_seal_does_not_activate_free_spins(dynasty):
    """Three or more Emperor symbols scattered anywhere on the reels activates the Free Spins
    bonus game. The Seal symbol does not substitute for the Emperor symbol to activate the Free
    Spins bonus game."""
    # Two EMPEROR (reel 1 and 5 tops) with SEALs on the tops of reels 2 and 3: no free spins.
    # Top-row lines start with EMPEROR (no line pay). The ACE lines that reach reel 2's top
    # SEAL are 9 [1,0,0,0,1], 10 [1,0,1,0,1] and 19 [2,0,2,0,2]; all others meet KING.
    # Line 9: ACE SEAL SEAL JACK -> ACE x3 = 15 coins = 0.15. Lines 10, 19: ACE SEAL QUEEN.
    # Scatter: 2 EMPEROR = 1 x 0.20. Total 0.35.
    screen = [
        ["EMPEROR", "SEAL", "SEAL", "JACK", "EMPEROR"],
        ["ACE", "KING", "QUEEN", "JACK", "TEN"],
        ["ACE", "KING", "QUEEN", "JACK", "TEN"],
    ]
    record = run(dynasty, [screen], choices=["collect"])
    base = record["steps"][0]
    assert scatter_wins(base) == [("EMPEROR", 2, "0.20")]
    assert line_wins(base) == [(9, "ACE", 3, "0.15")]
    assert awards(record) == [] and free_steps(record) == []
    assert record["total_win"] == "0.35"


def test_free_spins_use_the_bet_and_paylines_of_the_triggering_game(dynasty):
    """All bets and paylines played in the free spins are the same as the game that activated
    the Free Spins bonus game."""
    # lines=1, 3 coins per line of 0.02: total bet 3 coins = 0.06.
    # Base: 3 EMPEROR = 5 x 0.06 = 0.30.
    # Free spin 1: DRAGON on every cell of reels 1-3, so all 20 lines would read DRAGON x3;
    # only line 1 is enabled: 50 coins x 2 (free spins) x 3 coins x 0.02 = 6.00.
    dragons = [["DRAGON", "DRAGON", "DRAGON", "ACE", "NINE"]] * 3
    bet = {"lines": 1, "coins_per_line": 3, "coin_value": "0.02"}
    record = run(dynasty, [TRIGGER, dragons] + [BLANK] * 9, bet, choices=["collect"])
    assert record["bet"] == bet
    assert record["total_bet"] == "0.06"
    assert scatter_wins(record["steps"][0]) == [("EMPEROR", 3, "0.30")]
    assert line_wins(free_steps(record)[0]) == [(1, "DRAGON", 3, "6.00")]
    assert record["total_win"] == "6.30"


def test_a_retrigger_adds_ten_free_spins_to_the_remaining_count(dynasty):
    """If three or more Emperor symbols are displayed anywhere on the reels during the free
    spins, you win another ten free spins. The additional free spins are added to your remaining
    number of free spins."""
    # Retrigger on the 4th free spin: 6 left + 10 = 16 more, 20 free spins in all.
    # Base scatter 5 x 0.20 = 1.00; the retrigger's scatter is doubled: 2.00. Total 3.00.
    screens = [TRIGGER] + [BLANK] * 3 + [TRIGGER] + [BLANK] * 16
    record = run(dynasty, screens, choices=["collect"])
    frees = free_steps(record)
    assert len(frees) == 20
    assert len(record["steps"]) == 21
    assert frees[3]["events"] == [{"type": "free_spins_awarded", "count": 10, "remaining": 16, "retrigger": True}]
    assert awards(record) == [
        {"type": "free_spins_awarded", "count": 10, "remaining": 10, "retrigger": False},
        {"type": "free_spins_awarded", "count": 10, "remaining": 16, "retrigger": True},
    ]
    assert scatter_wins(frees[3]) == [("EMPEROR", 3, "2.00")]
    assert record["total_win"] == "3.00"


def test_retriggers_during_retriggered_free_spins(dynasty):
    """If three or more Emperor symbols are displayed anywhere on the reels during the free
    spins, you win another ten free spins. The additional free spins are added to your remaining
    number of free spins."""
    # Retrigger on free spins 10 (the last: 0 left + 10) and 20 (again the last): 30 in all.
    screens = [TRIGGER] + [BLANK] * 9 + [TRIGGER] + [BLANK] * 9 + [TRIGGER] + [BLANK] * 10
    record = run(dynasty, screens, choices=["collect"])
    assert len(free_steps(record)) == 30
    assert [(e["remaining"], e["retrigger"]) for e in awards(record)] == [(10, False), (10, True), (10, True)]
    # 1.00 + 2 x 2.00
    assert record["total_win"] == "5.00"


def test_seal_stacks_during_free_spins(dynasty):
    """During the regular slot game and the Free Spins bonus game, it is possible for multiple
    wild symbols to display on a reel simultaneously, forming a Seal symbol stack. The Seal
    symbol stack increases your chances of winning by substituting for other symbols to
    complete winning combinations."""
    # The full-stack screen of test_seal_symbols_stack_on_a_reel (2575 coins) in free spin 1:
    # doubled, 5150 coins = 51.50; base 1.00; total 52.50.
    stacks = [
        ["DRAGON", "SEAL", "SEAL", "SEAL", "NINE"],
        ["KOI", "SEAL", "SEAL", "SEAL", "NINE"],
        ["ACE", "SEAL", "SEAL", "SEAL", "NINE"],
    ]
    record = run(dynasty, [TRIGGER, stacks] + [BLANK] * 9, choices=["collect"])
    first = free_steps(record)[0]
    assert first["screen"] == stacks
    assert len(line_wins(first)) == 20
    assert sum(Decimal(w["amount"]) for w in first["wins"]) == Decimal("51.50")
    assert record["total_win"] == "52.50"


def test_emperor_scatter_pays_times_total_bet_in_free_spins(dynasty):
    """The Emperor symbol is also a scatter symbol. Winnings are calculated by multiplying the
    Emperor symbol combination payout, according to the Scatter Symbol Payout Schedule, by the
    total bet."""
    # lines=5, 2 coins of 0.05: total bet 0.50. Base: 3 EMPEROR = 5 x 0.50 = 2.50.
    # Free spin 1: 2 EMPEROR = 1 x 0.50 x 2 = 1.00. Total 3.50.
    bet = {"lines": 5, "coins_per_line": 2, "coin_value": "0.05"}
    record = run(dynasty, [TRIGGER, TWO_EMPERORS] + [BLANK] * 9, bet, choices=["collect"])
    assert scatter_wins(record["steps"][0]) == [("EMPEROR", 3, "2.50")]
    assert scatter_wins(free_steps(record)[0]) == [("EMPEROR", 2, "1.00")]
    assert record["total_win"] == "3.50"


def test_scatter_and_free_spin_wins_are_added_to_payline_wins(dynasty):
    """Scatter and bonus game wins are added to payline wins."""
    # Base: TIGER x3 on line 1 with three EMPEROR (reel 1 top, reel 4 top, reel 5 bottom):
    #   line 1 TIGER TIGER TIGER ACE -> 30 coins = 0.30; scatter 3 = 5 x 0.20 = 1.00.
    # Free spin 1: 0.60 + 0.40 (doubled TIGER + 2 EMPEROR); free spin 2: 0.40 (2 EMPEROR x2).
    # Total 0.30 + 1.00 + 0.60 + 0.40 + 0.40 = 2.70.
    base_screen = [
        ["EMPEROR", "KING", "QUEEN", "EMPEROR", "TEN"],
        ["TIGER", "TIGER", "TIGER", "ACE", "NINE"],
        ["ACE", "KING", "QUEEN", "JACK", "EMPEROR"],
    ]
    record = run(dynasty, [base_screen, TIGER_AND_TWO_EMPERORS, TWO_EMPERORS] + [BLANK] * 8, choices=["collect"])
    base = record["steps"][0]
    assert line_wins(base) == [(1, "TIGER", 3, "0.30")]
    assert scatter_wins(base) == [("EMPEROR", 3, "1.00")]
    assert len(free_steps(record)) == 10
    assert record["total_win"] == "2.70"
    assert collects(record) == [{"type": "collect", "amount": "2.70", "automatic": False}]


def test_after_free_spins_the_bonus_winnings_can_be_gambled(dynasty):
    """When the bonus game is complete, you are returned to the regular slot game. You can
    choose to gamble the bonus game winnings or continue playing the regular slot game."""
    # Base 1.00 + free spin 1.00 (0.60 + 0.40) = 2.00, offered for the gamble as a whole.
    screens = [TRIGGER, TIGER_AND_TWO_EMPERORS] + [BLANK] * 9
    waiting = run(dynasty, screens)
    assert waiting["status"] == "awaiting"
    assert waiting["awaiting"] == {"decision": "gamble", "options": ALL_OPTIONS, "win": "2.00"}
    assert waiting["steps"][-1]["kind"] == "free"
    # Gambling it: the whole 2.00 is the stake; black on CLUBS doubles it to 4.00.
    record = run(dynasty, screens, draws={"card": ["CLUBS"]}, choices=["black", "collect"])
    gamble = gamble_steps(record)
    assert len(gamble) == 1
    assert gamble[0]["events"][0] == {"type": "gamble", "choice": "black", "card": "CLUBS", "stake": "2.00", "won": True}
    assert record["total_win"] == "4.00"
    # Or continue playing: collect keeps 2.00.
    record = run(dynasty, screens, choices=["collect"])
    assert record["status"] == "complete" and record["total_win"] == "2.00"


# ------------------------------------------------------------------------------------------
# Gamble bonus game
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("screen", "win"),
    [
        (TWO_EMPERORS, "0.20"),  # a scatter win only
        # Line wins only: middle row KING SEAL KING ACE NINE, reel 2 KING top and bottom:
        # line 1 KING SEAL KING, line 10 [1,0,1] KING KING KING, line 11 [1,2,1] KING KING KING
        # -> 3 x KING x3 = 3 x 15 coins = 0.45 (lines 8, 9, 14, 15 meet QUEEN on reel 3).
        (row_screen(["KING", "SEAL", "KING", "ACE", "NINE"]), "0.45"),
    ],
)
def test_any_win_activates_the_gamble(dynasty, screen, win):
    """Any win activates the Gamble bonus game."""
    record = run(dynasty, [screen])
    assert len(record["steps"]) == 1
    assert record["status"] == "awaiting"
    assert record["awaiting"] == {"decision": "gamble", "options": ALL_OPTIONS, "win": win}
    assert record["total_win"] == win


def test_no_win_offers_no_gamble(dynasty):
    """Any win activates the Gamble bonus game (and no win, nothing)."""
    record = run(dynasty, [BLANK], choices=["red"])
    assert record["status"] == "complete"
    assert record["awaiting"] is None
    assert gamble_steps(record) == []
    assert record["total_win"] == "0.00"
    assert record["inputs"]["choices"] == []  # the scripted choice was never asked for


@pytest.mark.parametrize(
    ("choice", "card"), [("red", "HEARTS"), ("red", "DIAMONDS"), ("black", "CLUBS"), ("black", "SPADES")]
)
def test_a_correct_card_colour_doubles_the_win(dynasty, choice, card):
    """To play the Gamble bonus game, choose either a card colour or a card suit. A correct
    guess for the card colour doubles your win."""
    record = run(dynasty, [TWO_EMPERORS], draws={"card": [card]}, choices=[choice])
    (gamble,) = gamble_steps(record)
    assert gamble["card"] == card
    assert gamble["events"] == [{"type": "gamble", "choice": choice, "card": card, "stake": "0.20", "won": True}]
    assert gamble["wins"][0]["amount"] == "0.40"
    assert record["total_win"] == "0.40"
    assert record["status"] == "awaiting" and record["awaiting"]["win"] == "0.40"


@pytest.mark.parametrize("suit", ["hearts", "diamonds", "clubs", "spades"])
def test_a_correct_card_suit_quadruples_the_win(dynasty, suit):
    """To play the Gamble bonus game, choose either a card colour or a card suit. A correct
    guess for the card suit quadruples your win."""
    record = run(dynasty, [TWO_EMPERORS], draws={"card": [suit.upper()]}, choices=[suit, "collect"])
    (gamble,) = gamble_steps(record)
    assert gamble["events"][0] == {"type": "gamble", "choice": suit, "card": suit.upper(), "stake": "0.20", "won": True}
    assert record["total_win"] == "0.80"
    assert collects(record) == [{"type": "collect", "amount": "0.80", "automatic": False}]


@pytest.mark.parametrize(
    ("choice", "card"),
    [("red", "CLUBS"), ("black", "HEARTS"), ("hearts", "DIAMONDS"), ("spades", "CLUBS"), ("diamonds", "SPADES")],
)
def test_a_wrong_guess_loses_the_win_and_ends_the_round(dynasty, choice, card):
    """A correct guess for the card colour doubles your win; a correct guess for the card suit
    quadruples your win (a wrong guess loses the gambled win and ends the round)."""
    record = run(dynasty, [TWO_EMPERORS], draws={"card": [card]}, choices=[choice, "red", "red"])
    assert record["status"] == "complete"
    assert record["awaiting"] is None
    assert record["total_win"] == "0.00"
    (gamble,) = gamble_steps(record)
    assert gamble["events"][0]["won"] is False and gamble["wins"][0]["amount"] == "0.00"
    assert record["inputs"]["choices"] == [choice]  # nothing after the loss was asked for
    assert collects(record) == []


def test_gamble_or_continue_the_regular_game(dynasty):
    """If you have a win on any combination, you can choose to play the Gamble bonus game, or
    you can continue to play the regular game."""
    record = run(dynasty, [TWO_EMPERORS], choices=["collect"])
    assert record["status"] == "complete" and record["awaiting"] is None
    assert record["total_win"] == "0.20"
    assert gamble_steps(record) == []
    assert collects(record) == [{"type": "collect", "amount": "0.20", "automatic": False}]


def test_no_gamble_when_the_win_exceeds_the_gamble_limit(dynasty):
    """The Gamble bonus game only activates if your win does not exceed the gamble limit."""
    # A 0.20 win against an operator limit of 0.10: collected automatically, no choice asked.
    record = run(dynasty, [TWO_EMPERORS], choices=["red"], operator=Operator(gamble_limit=Decimal("0.10")))
    assert record["status"] == "complete" and record["awaiting"] is None
    assert gamble_steps(record) == []
    assert record["total_win"] == "0.20"
    assert collects(record) == [{"type": "collect", "amount": "0.20", "automatic": True}]
    assert record["inputs"]["operator"]["gamble_limit"] == "0.10"


@pytest.mark.parametrize(
    ("limit", "options"),
    [
        ("0.80", ALL_OPTIONS),  # 0.20 x 4 = 0.80 is within the limit
        ("0.79", ["collect", "red", "black"]),  # x4 over, x2 = 0.40 within
        ("0.40", ["collect", "red", "black"]),
        ("0.39", None),  # no guess fits: collected automatically
    ],
)
def test_a_guess_is_offered_only_within_the_gamble_amount_limit(dynasty, limit, options):
    """The Gamble bonus game only activates if your win does not exceed the gamble limit. The
    gamble limit is set at five gambles per game, or until the gamble amount limit is reached."""
    record = run(dynasty, [TWO_EMPERORS], operator=Operator(gamble_limit=Decimal(limit)))
    if options is None:
        assert record["status"] == "complete"
        assert collects(record) == [{"type": "collect", "amount": "0.20", "automatic": True}]
    else:
        assert record["status"] == "awaiting"
        assert record["awaiting"]["options"] == options


@pytest.mark.parametrize(("limit", "suits"), [("0.40", True), ("0.39", False), ("0.399", False)])
def test_the_gamble_amount_limit_is_in_currency(dynasty, limit, suits):
    """The gamble limit is set at five gambles per game, or until the gamble amount limit is
    reached."""
    # lines=1, 2 coins of 0.05: total bet 0.10; 2 EMPEROR = 1 x 0.10 = 0.10; x4 = 0.40.
    record = run(
        dynasty, [TWO_EMPERORS], {"lines": 1, "coins_per_line": 2, "coin_value": "0.05"},
        operator=Operator(gamble_limit=Decimal(limit)),
    )
    assert record["awaiting"]["win"] == "0.10"
    assert ("hearts" in record["awaiting"]["options"]) is suits
    assert {"collect", "red", "black"} <= set(record["awaiting"]["options"])


def test_you_can_gamble_until_the_gamble_limit_is_reached(dynasty):
    """You can gamble your winnings until the gamble limit is reached."""
    # Limit 1.00, win 0.20: everything offered; red wins -> 0.40, suits (1.60) no longer fit;
    # red wins -> 0.80, colours (1.60) no longer fit: collected automatically.
    operator = Operator(gamble_limit=Decimal("1.00"))
    record = run(dynasty, [TWO_EMPERORS], operator=operator)
    assert record["awaiting"]["options"] == ALL_OPTIONS
    record = run(dynasty, [TWO_EMPERORS], draws={"card": ["HEARTS"]}, choices=["red"], operator=operator)
    assert record["awaiting"] == {"decision": "gamble", "options": ["collect", "red", "black"], "win": "0.40"}
    record = run(dynasty, [TWO_EMPERORS], draws={"card": ["HEARTS", "DIAMONDS"]}, choices=["red", "red"], operator=operator)
    assert record["status"] == "complete"
    assert record["total_win"] == "0.80"
    assert collects(record) == [{"type": "collect", "amount": "0.80", "automatic": True}]


def test_at_most_five_gambles_then_the_win_is_collected_automatically(dynasty):
    """The gamble limit is set at five gambles per game, or until the gamble amount limit is
    reached. Winnings are automatically collected during the Gamble bonus game."""
    # 0.20 doubled five times = 6.40, then no more gambles: collected without a choice.
    record = run(dynasty, [TWO_EMPERORS], draws={"card": ["HEARTS"] * 6}, choices=["red"] * 6)
    assert record["status"] == "complete" and record["awaiting"] is None
    stakes = [g["events"][0]["stake"] for g in gamble_steps(record)]
    assert stakes == ["0.20", "0.40", "0.80", "1.60", "3.20"]
    assert record["total_win"] == "6.40"
    assert collects(record) == [{"type": "collect", "amount": "6.40", "automatic": True}]
    assert record["inputs"]["choices"] == ["red"] * 5
    # After four gambles it still waits for the fifth.
    four = run(dynasty, [TWO_EMPERORS], draws={"card": ["HEARTS"] * 4}, choices=["red"] * 4)
    assert four["status"] == "awaiting" and four["awaiting"]["win"] == "3.20"


def test_a_choice_that_is_not_offered_is_refused(dynasty):
    """To play the Gamble bonus game, choose either a card colour or a card suit (only what is
    offered)."""
    with pytest.raises(ScriptError) as error:
        run(dynasty, [TWO_EMPERORS], choices=["hearts"], operator=Operator(gamble_limit=Decimal("0.79")))
    message = str(error.value)
    assert "'hearts' is not offered" in message
    assert "['collect', 'red', 'black']" in message


# ------------------------------------------------------------------------------------------
# Payout rules
# ------------------------------------------------------------------------------------------


def test_winnings_are_paid_on_the_highest_combination_of_each_enabled_payline(dynasty):
    """Winnings are paid out on the highest combination on each enabled payline only."""
    # Middle row DRAGON SEAL DRAGON SEAL DRAGON: line 1 DRAGON x5 = 1000 coins = 10.00 only
    # (not also x2, x3 or x4 of it).
    record = run(dynasty, [row_screen(["DRAGON", "SEAL", "DRAGON", "SEAL", "DRAGON"])], {"lines": 1}, choices=["collect"])
    assert line_wins(record["steps"][0]) == [(1, "DRAGON", 5, "10.00")]
    assert record["total_win"] == "10.00"


@pytest.mark.parametrize(("lines", "total"), [(1, "0.51"), (7, "3.57"), (20, "10.20")])
def test_only_enabled_paylines_pay_except_scatters(dynasty, lines, total):
    """You are paid out for winning combinations on enabled paylines only, except for scatter
    wins."""
    # DRAGON on every cell of reels 1-3: every one of the 20 lines reads DRAGON x3 (50 coins),
    # but only lines 1..k are enabled. Two EMPEROR on reel 5 pay 1 x total bet (k coins)
    # whatever the lines. k x 50 + k coins at 0.01.
    screen = [
        ["DRAGON", "DRAGON", "DRAGON", "ACE", "EMPEROR"],
        ["DRAGON", "DRAGON", "DRAGON", "ACE", "NINE"],
        ["DRAGON", "DRAGON", "DRAGON", "ACE", "EMPEROR"],
    ]
    record = run(dynasty, [screen], {"lines": lines}, choices=["collect"])
    base = record["steps"][0]
    assert line_wins(base) == [(line, "DRAGON", 3, "0.50") for line in range(1, lines + 1)]
    assert scatter_wins(base) == [("EMPEROR", 2, f"{Decimal(lines) * Decimal('0.01'):.2f}")]
    assert record["total_win"] == total


@pytest.mark.parametrize(
    "middle",
    [
        ["ACE", "DRAGON", "DRAGON", "DRAGON", "DRAGON"],  # starts on reel 2
        ["NINE", "ACE", "KOI", "KOI", "KOI"],  # right to left only
        ["DRAGON", "ACE", "DRAGON", "DRAGON", "DRAGON"],  # not consecutive from reel 1
        ["KING", "SEAL", "TIGER", "TIGER", "TIGER"],  # reel 1 KING + wild, then another symbol
    ],
)
def test_combinations_pay_left_to_right_from_the_first_reel(dynasty, middle):
    """Regular winning combinations pay out from left to right. At least one of the symbols
    must be displayed on the first slot reel. A symbol combination starting from the second slot
    reel onwards does not pay out."""
    record = run(dynasty, [row_screen(middle)], {"lines": 1})
    assert record["steps"][0]["wins"] == []
    assert record["total_win"] == "0.00"
    assert record["status"] == "complete"


def test_scatter_and_regular_wins_both_pay(dynasty):
    """If you have a winning scatter combination on the reels and a regular winning combination
    on an enabled payline, you are paid out for both wins. The scatter symbols do not need to
    appear on an enabled payline to win. Scatter and bonus game wins are added to payline wins."""
    # lines=1, 1 coin of 1.00: line 1 TIGER x3 = 30.00; EMPERORs on the top and bottom rows
    # (no enabled line) = 1 x 1.00. Total 31.00.
    record = run(dynasty, [TIGER_AND_TWO_EMPERORS], {"lines": 1, "coin_value": "1.00"}, choices=["collect"])
    base = record["steps"][0]
    assert line_wins(base) == [(1, "TIGER", 3, "30.00")]
    assert scatter_wins(base) == [("EMPEROR", 2, "1.00")]
    assert record["total_win"] == "31.00"


@pytest.mark.parametrize(
    ("coins", "coin_value", "total_bet", "amount"),
    [
        # lines=1; TIGER x3 = 30 coins per coin bet: 30 x coins x coin size.
        (1, "0.01", "0.01", "0.30"),
        (3, "0.25", "0.75", "22.50"),
        (7, "0.05", "0.35", "10.50"),
        (10, "1.00", "10.00", "300.00"),
        (2, "0.02", "0.04", "1.20"),
    ],
)
def test_coins_times_coin_size_is_the_amount_in_credits(dynasty, coins, coin_value, total_bet, amount):
    """The formula to calculate the conversion of your coins to credits is: Number of coins x
    coin size bet = amount in credits."""
    bet = {"lines": 1, "coins_per_line": coins, "coin_value": coin_value}
    record = run(dynasty, [row_screen(["TIGER", "TIGER", "TIGER", "ACE", "NINE"])], bet, choices=["collect"])
    assert record["total_bet"] == total_bet
    assert line_wins(record["steps"][0]) == [(1, "TIGER", 3, amount)]
    assert record["total_win"] == amount


def test_the_rtp_for_dynasty_is_95_percent(dynasty):
    """The RTP for Dynasty is 95%."""
    report = maths_of(dynasty).rtp_report()
    assert report["published_rtp"] == pytest.approx(0.95)
    assert report["rtp"] == pytest.approx(0.95, abs=5e-5)
    assert sum(report["parts"].values()) == pytest.approx(report["rtp"])


# ------------------------------------------------------------------------------------------
# Bets
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bet", "field", "allowed"),
    [
        ({"lines": 0}, "bet.lines", "from 1 to 20"),
        ({"lines": 21}, "bet.lines", "from 1 to 20"),
        ({"lines": "ten"}, "bet.lines", "from 1 to 20"),
        ({"lines": "5"}, "bet.lines", "from 1 to 20"),
        ({"lines": 5.0}, "bet.lines", "from 1 to 20"),
        ({"lines": True}, "bet.lines", "from 1 to 20"),
        ({"coins_per_line": -1}, "bet.coins_per_line", "from 1 to 10"),
        ({"coins_per_line": 0}, "bet.coins_per_line", "from 1 to 10"),
        ({"coins_per_line": 11}, "bet.coins_per_line", "from 1 to 10"),
        ({"coin_value": "0.03"}, "bet.coin_value", "0.01, 0.02, 0.05, 0.10, 0.20, 0.25, 0.50, 1.00"),
        ({"coin_value": "abc"}, "bet.coin_value", "0.01, 0.02, 0.05, 0.10, 0.20, 0.25, 0.50, 1.00"),
        ({"coin_value": "sNaN"}, "bet.coin_value", "0.01, 0.02, 0.05, 0.10, 0.20, 0.25, 0.50, 1.00"),
        ({"coin_value": "NaN"}, "bet.coin_value", "0.01, 0.02, 0.05, 0.10, 0.20, 0.25, 0.50, 1.00"),
        ({"coin_value": 0.05}, "bet.coin_value", "decimal string"),
        ({"line": 5}, "bet.line", "['coin_value', 'coins_per_line', 'lines']"),
    ],
)
def test_bad_bets_are_refused_naming_the_field(dynasty, bet, field, allowed):
    """Bets outside the game's options are refused with an error naming the field and what is
    allowed (design: 1-20 lines, 1-10 coins per line, coin sizes 0.01-1.00)."""
    with pytest.raises(BetError) as error:
        run(dynasty, [BLANK], bet)
    message = str(error.value)
    assert message.startswith(f"{field}:")
    assert allowed in message
    assert "\n" not in message


def test_missing_bet_fields_take_the_defaults(dynasty):
    """Bet fields (API and scripts): lines, coins_per_line, coin_value; default 20 lines."""
    record = rounds.play(dynasty, script=rounds.parse_script(dynasty, {"screens": [BLANK]}))
    assert record["bet"] == {"lines": 20, "coins_per_line": 1, "coin_value": "0.01"}
    assert record["total_bet"] == "0.20"


# ------------------------------------------------------------------------------------------
# Scripts
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "field", "expected"),
    [
        ({"draws": {"dice": [1]}}, "draws.dice", "['card']"),
        ({"draws": {"card": ["JOKER"]}}, "draws.card", "HEARTS"),
        ({"draws": {"card": "HEARTS"}}, "draws.card", "list"),
        ({"draws": ["card"]}, "draws", "object"),
        ({"screens": [[["ACE", "KING", "QUEEN", "JACK", "WILD"]] + BLANK[1:]]}, "screens[0][0][4]", "unknown symbol 'WILD'"),
        ({"screens": [[["ACE", "KING", "QUEEN", "JACK", ["TEN"]]] + BLANK[1:]]}, "screens[0][0][4]", "unknown symbol"),
        ({"screens": [BLANK[:2]]}, "screens[0]", "3 rows of 5 symbols"),
        ({"screens": [BLANK, [row[:4] for row in BLANK]]}, "screens[1]", "3 rows of 5 symbols"),
        ({"choices": ["double"]}, "choices[0]", "'collect', 'red', 'black', 'hearts'"),
        ({"choices": "red"}, "choices", "list"),
        ({"state": [1]}, "state", "object"),
        ({"screen": [BLANK]}, "screen", "not a script field"),
    ],
)
def test_script_errors_name_the_field(dynasty, script, field, expected):
    """SCENARIOS.md: a symbol a reel cannot carry, a draw name the game doesn't know, a screen
    of the wrong shape or an unknown choice is an error naming the field."""
    with pytest.raises(ScriptError) as error:
        rounds.parse_script(dynasty, script)
    message = str(error.value)
    assert message.startswith(f"{field}:")
    assert expected in message


def test_the_script_runs_out_of_screens_and_draws_at_random(dynasty):
    """SCENARIOS.md: when the script runs out of screens, the round draws the rest at random."""
    # The trigger is forced, the free spins drawn (retriggers possible): ten or more.
    record = run(dynasty, [TRIGGER], choices=["collect"])
    assert len(free_steps(record)) >= 10
    assert record["inputs"]["random"]  # the words it drew are kept for replay
    assert rounds.replay(dynasty, record)[0]


# ------------------------------------------------------------------------------------------
# Interrupted rounds and replay
# ------------------------------------------------------------------------------------------


def live_waiting_round(game):
    """A live (seeded) round that stops at the gamble: the first seed whose round has a win."""
    for seed in range(500):
        record = rounds.play(game, {"lines": 20}, source=rounds.seeded_words(seed))
        if record["status"] == "awaiting":
            return seed, record
    raise AssertionError("no winning round in 500 seeds")


def test_an_interrupted_round_resumes_and_replays(dynasty):
    """Malfunctions void all plays and pays (a round waiting at the gamble survives as its
    record: it resumes, and every stage of it replays exactly)."""
    _, waiting = live_waiting_round(dynasty)
    win = Decimal(waiting["awaiting"]["win"])
    assert waiting["awaiting"]["options"] == ALL_OPTIONS
    assert waiting["inputs"]["random"]
    assert rounds.replay(dynasty, waiting)[0] is True
    # Stored as JSON by the server, it still replays.
    assert rounds.replay(dynasty, json.loads(json.dumps(waiting)))[0] is True

    resumed = rounds.resume(dynasty, waiting, "red", source=rounds.seeded_words(12345))
    assert resumed["steps"][: len(waiting["steps"])] == waiting["steps"]
    (gamble,) = gamble_steps(resumed)
    card = gamble["card"]
    assert gamble["events"][0]["stake"] == waiting["awaiting"]["win"]
    if card in ("HEARTS", "DIAMONDS"):
        assert resumed["status"] == "awaiting"
        assert Decimal(resumed["total_win"]) == 2 * win
    else:
        assert resumed["status"] == "complete"
        assert resumed["total_win"] == "0.00"
    assert resumed["inputs"]["choices"] == ["red"]
    assert rounds.replay(dynasty, json.loads(json.dumps(resumed)))[0] is True

    collected = rounds.resume(dynasty, waiting, "collect")
    assert collected["status"] == "complete"
    assert collected["total_win"] == waiting["awaiting"]["win"]
    assert collects(collected) == [{"type": "collect", "amount": waiting["awaiting"]["win"], "automatic": False}]
    assert rounds.replay(dynasty, collected)[0] is True
    with pytest.raises(ScriptError):
        rounds.resume(dynasty, collected, "red")
    with pytest.raises(ScriptError):
        rounds.resume(dynasty, waiting, "double")


def test_an_interrupted_round_keeps_the_operator_limit(dynasty):
    """The gamble limit is set at five gambles per game, or until the gamble amount limit is
    reached (also when the round is resumed)."""
    record = run(dynasty, [TWO_EMPERORS], operator=Operator(gamble_limit=Decimal("0.79")))
    assert record["awaiting"]["options"] == ["collect", "red", "black"]
    with pytest.raises(ScriptError):
        rounds.resume(dynasty, record, "hearts")
    resumed = rounds.resume(dynasty, record, "black", source=rounds.seeded_words(1))
    assert rounds.replay(dynasty, resumed)[0] is True


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: r.__setitem__("total_win", "999.00"),
        lambda r: r["steps"][0]["screen"][0].__setitem__(0, "DRAGON"),
        lambda r: r["inputs"]["random"].__setitem__(0, f"{int(r['inputs']['random'][0], 16) ^ (1 << 63):016x}"),
        lambda r: r["awaiting"].__setitem__("options", ["collect"]),
    ],
    ids=["total_win", "screen", "random", "options"],
)
def test_a_tampered_record_does_not_replay(dynasty, tamper):
    """Malfunctions void all plays and pays (a record that was altered does not replay)."""
    _, waiting = live_waiting_round(dynasty)
    tampered = copy.deepcopy(waiting)
    tamper(tampered)
    assert tampered != waiting
    assert rounds.replay(dynasty, tampered)[0] is False


# ------------------------------------------------------------------------------------------
# The command
# ------------------------------------------------------------------------------------------

runner = CliRunner()


def test_cli_play_script_json_prints_one_record(tmp_path):
    """SCENARIOS.md: ``slotforge play GAME --script SCRIPT.json --json`` prints one round record
    as JSON on standard output and exits 0."""
    # Line 1 TIGER x3 (0.30) + 2 EMPEROR (0.20) = 0.50, red on HEARTS -> 1.00, collected.
    script = tmp_path / "round.json"
    script.write_text(
        json.dumps(
            {
                "bet": {"lines": 20, "coins_per_line": 1, "coin_value": "0.01"},
                "screens": [TIGER_AND_TWO_EMPERORS],
                "draws": {"card": ["HEARTS"]},
                "choices": ["red", "collect"],
            }
        )
    )
    result = runner.invoke(app, ["play", "dynasty", "--script", str(script), "--json"])
    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)  # exactly one JSON document
    assert isinstance(record, dict)
    assert record["game"] == "dynasty"
    assert record["status"] == "complete"
    assert record["total_bet"] == "0.20"
    assert record["total_win"] == "1.00"
    assert [s["kind"] for s in record["steps"]] == ["base", "gamble"]


@pytest.mark.parametrize(
    ("script", "args", "field"),
    [
        ({"bet": {"lines": 0}}, [], "bet.lines"),
        ({"bet": {"coin_value": "0.03"}}, [], "bet.coin_value"),
        ({"bet": {"coin_value": 0.05}}, [], "bet.coin_value"),
        ({"bet": {"coin_value": "sNaN"}}, [], "bet.coin_value"),
        ({"bet": {"coins_per_line": -2}}, [], "bet.coins_per_line"),
        ({"bet": {"lines": 20, "coin": 1}}, [], "bet.coin"),
        ({"screens": [[["SEAL", "KING", "QUEEN", "JACK", "TEN"]] + BLANK[1:]]}, [], "screens[0][0][0]"),
        ({"screens": [[["WILD", "KING", "QUEEN", "JACK", "TEN"]] + BLANK[1:]]}, [], "screens[0][0][0]"),
        ({"screens": [BLANK[:1]]}, [], "screens[0]"),
        ({"draws": {"dice": [3]}}, [], "draws.dice"),
        ({"draws": ["card"]}, [], "draws"),
        ({"choices": ["double"]}, [], "choices[0]"),
        (None, ["--bet", "lines=21"], "bet.lines"),
        (None, ["--bet", "coin_value=0.03"], "bet.coin_value"),
    ],
)
def test_cli_bad_input_exits_nonzero_with_a_one_line_error(tmp_path, script, args, field):
    """SCENARIOS.md: bad input exits non-zero with a one-line error naming the field."""
    command = ["play", "dynasty", "--json", *args]
    if script is not None:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(script))
        command += ["--script", str(path)]
    else:
        command += ["--seed", "1"]
    result = runner.invoke(app, command)
    assert result.exit_code != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {field}:")


def test_cli_replay_says_match_and_exits_1_on_mismatch(tmp_path):
    """``slotforge replay FILE`` re-runs a recorded round: match, or exit 1 on a mismatch."""
    played = runner.invoke(app, ["play", "dynasty", "--seed", "7", "--json"])
    assert played.exit_code == 0, played.stderr
    record = json.loads(played.stdout)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.stderr
    assert "match" in result.stdout and "mismatch" not in result.stdout

    record["total_win"] = f"{Decimal(record['total_win']) + 1:.2f}"
    path.write_text(json.dumps(record))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1
    assert "mismatch" in result.stderr
