"""Divine Fortune: a scenario for every rule, through the script interface and the CLI."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom
from scipy.stats import t as student_t
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.engine import events, rng
from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import Operator, ScriptError
from slotforge.engine.outcomes import make_outcomes
from slotforge.engine.roles import RtpOptions
from slotforge.games import load_game
from slotforge.games.divine_fortune import maths
from slotforge.games.divine_fortune.kernels import common
from slotforge.games.divine_fortune.rules import mega_won, settle_round
from slotforge.jackpot import InMemoryPool, PoolConfig
from slotforge.reports.simulate import simulate_chunk
from tests import scripts

BET = {"bet_level": 2, "coin_value": "0.05"}  # total bet 20 x 2 x 0.05 = 2.00
# A screen with no line win, no WILD, no BONUS and no FREESPINS, even with a WILD on any cell.
QUIET = [
    ["TEN", "KING", "MEDUSA", "ACE", "QUEEN"],
    ["ACE", "QUEEN", "LION", "JACK", "TEN"],
    ["JACK", "EAGLE", "MINOTAUR", "KING", "ACE"],
]


def screen(**cells: str) -> list[list[str]]:
    """QUIET with some cells changed: ``r1c3="WILD"`` puts a WILD on row 1, reel 3."""
    rows = [list(row) for row in QUIET]
    for name, code in cells.items():
        row, reel = name[1:].split("c")
        rows[int(row) - 1][int(reel) - 1] = code
    return rows


def bonus_screen(*cells: int) -> list[list[str]]:
    """A Jackpot Bonus game screen landing BONUS on ``cells`` (0-14, reading order)."""
    return [["BONUS" if r * 5 + c in cells else "BLANK" for c in range(5)] for r in range(3)]


@pytest.fixture(scope="module")
def game():
    return load_game("divine-fortune")


play = partial(scripts.play, bet=BET)


def kinds(record):
    return [step["kind"] for step in record["steps"]]


def events_of(record, kind):
    return [e for step in record["steps"] for e in step["events"] if e["type"] == kind]


# -- bets ------------------------------------------------------------------------------------
def test_stake_is_20_units_of_bet_level_coins(game):
    bet = game.parse_bet(BET)
    assert bet.total_units == 20 and bet.unit_coins == 2
    assert bet.total_bet == Decimal("2.00")
    assert game.parse_bet({}).total_bet == Decimal("0.20")


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"bet_level": 11}, "bet.bet_level"),
        ({"bet_level": 0}, "bet.bet_level"),
        ({"bet_level": 1.5}, "bet.bet_level"),
        ({"coin_value": "0.03"}, "bet.coin_value"),
        ({"coin_value": 0.01}, "bet.coin_value"),
        ({"lines": 10}, "bet.lines"),
    ],
)
def test_bad_bets_are_refused_naming_the_field(game, bad, field):
    with pytest.raises(BetError, match=field):
        game.parse_bet(bad)


# -- Falling Wilds Re-Spins ------------------------------------------------------------------
def test_wild_pays_the_highest_combination_it_makes(game):
    four_lions = screen(r2c1="WILD", r2c2="WILD", r2c3="WILD", r2c4="LION", r2c5="QUEEN")
    record = play(game, [four_lions, QUIET, QUIET])
    middle = [w for w in record["steps"][0]["wins"] if w["line"] == 1]
    assert [(w["symbol"], w["count"], w["amount"]) for w in middle] == [("LION", 4, "7.50")]  # 75 x 2 x 0.05
    five_wilds = screen(r2c1="WILD", r2c2="WILD", r2c3="WILD", r2c4="WILD", r2c5="WILD")
    record = play(game, [five_wilds, QUIET, QUIET])
    middle = [w for w in record["steps"][0]["wins"] if w["line"] == 1]
    assert [(w["symbol"], w["count"], w["amount"]) for w in middle] == [("MEDUSA", 5, "40.00")]


def test_a_wild_on_the_top_row_gives_exactly_three_respins(game):
    record = play(game, [screen(r1c3="WILD"), QUIET, QUIET, QUIET])
    assert kinds(record) == ["base", "respin", "respin", "respin"]
    shown = [[row[2] for row in step["screen"]] for step in record["steps"]]
    assert shown == [["WILD", "LION", "MINOTAUR"], ["MEDUSA", "WILD", "MINOTAUR"], ["MEDUSA", "LION", "WILD"], ["MEDUSA", "LION", "MINOTAUR"]]
    falling = [e["cells"] for e in events_of(record, "falling_wilds")]
    assert falling == [[[2, 3]], [[3, 3]], []]  # the last falls off and the re-spin is still played


def test_falling_wilds_substitute_and_respin_wins_add_up(game):
    # WILD on reel 1, middle row; then LION on reels 2-3 of the middle line in the re-spin.
    first = screen(r2c1="WILD", r2c2="LION", r2c3="LION")
    respin = screen(r3c2="LION", r3c3="LION")
    record = play(game, [first, respin, QUIET])
    wins = [[(w["line"], w["symbol"], w["count"]) for w in step["wins"]] for step in record["steps"]]
    assert (1, "LION", 3) in wins[0]
    assert (3, "LION", 3) in wins[1]  # the WILD fell to the bottom row of reel 1
    total = sum(Decimal(w["amount"]) for step in record["steps"] for w in step["wins"])
    assert Decimal(record["total_win"]) == total


def test_a_new_wild_in_a_respin_joins_the_falling_wilds(game):
    record = play(game, [screen(r1c1="WILD"), screen(r1c4="WILD"), QUIET, QUIET, QUIET])
    falling = [e["cells"] for e in events_of(record, "falling_wilds")]
    assert falling[:2] == [[[2, 1]], [[2, 4], [3, 1]]]
    assert kinds(record) == ["base"] + ["respin"] * 4
    assert not events_of(record, "wild_on_wild")


# -- Wild on Wild ----------------------------------------------------------------------------
def test_wild_on_wild_expands_and_leaves_two_falling_wilds_on_the_reel(game):
    record = play(game, [screen(r1c3="WILD"), screen(r2c3="WILD"), QUIET, QUIET, QUIET])
    assert events_of(record, "wild_on_wild") == [{"type": "wild_on_wild", "reel": 3}]
    expanded = record["steps"][1]["screen"]
    assert [row[2] for row in expanded] == ["WILD", "WILD", "WILD"]
    falling = [e["cells"] for e in events_of(record, "falling_wilds")]
    assert falling[1] == [[2, 3], [3, 3]]  # two Falling Wilds on reel 3
    assert [row[2] for row in record["steps"][2]["screen"]] == ["MEDUSA", "WILD", "WILD"]
    assert kinds(record) == ["base"] + ["respin"] * 4


def test_expanded_reel_pays_as_wild_on_every_line(game):
    # Reel 3 all WILD, reels 1-2 ACE/ACE on the top row: the top line pays 3 ACE at least.
    first = screen(r1c3="WILD")
    respin = screen(r1c1="EAGLE", r1c2="EAGLE", r2c3="WILD")
    record = play(game, [first, respin, QUIET, QUIET, QUIET])
    paid = {(w["line"], w["symbol"], w["count"]) for w in record["steps"][1]["wins"]}
    assert (2, "EAGLE", 3) in paid


# -- what cannot land under a Falling Wild ---------------------------------------------------
@pytest.mark.parametrize("symbol", ["FREESPINS", "BONUS"])
def test_freespins_and_bonus_cannot_land_on_a_reel_with_a_falling_wild(game, symbol):
    with pytest.raises(ScriptError, match=f"{symbol} cannot land on reel 2 while a Falling Wild"):
        play(game, [screen(r1c2="WILD"), screen(r3c2=symbol)])
    # ...but they may land on the other reels of the same re-spin.
    record = play(game, [screen(r1c2="WILD"), screen(r3c3=symbol), QUIET, QUIET])
    assert kinds(record)[:2] == ["base", "respin"]


def test_held_reels_spin_strips_without_bonus_or_freespins(game):
    held = game.spec.reels["held"]
    assert all("BONUS" not in strip and "FREESPINS" not in strip for strip in held)
    source = rounds.seeded_words(7)
    for _ in range(150):
        record = rounds.play(game, BET, source=source, operator=Operator())
        for before, after in zip(record["steps"], record["steps"][1:], strict=False):
            if after["kind"] != "respin" or before["kind"] not in ("base", "respin"):
                continue
            for reel in range(5):
                if any(row[reel] == "WILD" for row in before["screen"][:2]):
                    assert all(row[reel] not in ("BONUS", "FREESPINS") for row in after["screen"])


# -- Free Spins ------------------------------------------------------------------------------
@pytest.mark.parametrize("count, award", [(3, 5), (4, 8), (5, 12)])
def test_freespins_award_5_8_12(game, count, award):
    cells = {f"r1c{reel}": "FREESPINS" for reel in range(1, count + 1)}
    record = play(game, [screen(**cells)] + [QUIET] * award)
    assert events_of(record, "free_spins_awarded")[0]["count"] == award
    assert kinds(record) == ["base"] + ["free"] * award


def test_free_spins_won_in_a_respin_are_played_before_the_owed_respins(game):
    first = screen(r1c1="WILD")
    trigger = screen(r1c2="FREESPINS", r2c3="FREESPINS", r3c4="FREESPINS")
    record = play(game, [first, trigger] + [QUIET] * 5 + [QUIET, QUIET])
    assert kinds(record) == ["base", "respin"] + ["free"] * 5 + ["respin", "respin"]
    assert events_of(record, "respins_owed") == [{"type": "respins_owed", "falling_wilds": [[3, 1]]}]
    assert [row[0] for row in record["steps"][7]["screen"]] == ["TEN", "ACE", "WILD"]


def test_every_wild_in_free_spins_is_a_wild_on_wild_and_respins_are_extra(game):
    trigger = screen(r1c1="FREESPINS", r1c2="FREESPINS", r1c3="FREESPINS")
    spins = [screen(r1c2="WILD")] + [QUIET] * 7
    record = play(game, [trigger] + spins)
    assert kinds(record) == ["base", "free", "respin", "respin", "respin", "free", "free", "free", "free"]
    assert [row[1] for row in record["steps"][1]["screen"]] == ["WILD", "WILD", "WILD"]
    assert events_of(record, "wild_on_wild") == [{"type": "wild_on_wild", "reel": 2}]
    assert len(events_of(record, "free_spins_respin")) == 3


@pytest.mark.parametrize("symbol", ["FREESPINS", "BONUS"])
def test_no_retrigger_and_no_bonus_in_free_spins(game, symbol):
    trigger = screen(r1c1="FREESPINS", r1c2="FREESPINS", r1c3="FREESPINS")
    with pytest.raises(ScriptError, match=f"{symbol} does not appear in free spins"):
        play(game, [trigger, screen(r2c2=symbol)])


# -- BONUS collection and the start choice ---------------------------------------------------
def test_three_bonus_over_two_spins_start_the_bonus_game_after_the_round(game):
    screens = [screen(r1c1="WILD", r2c2="BONUS", r3c3="BONUS"), screen(r1c4="BONUS"), QUIET, QUIET]
    record = play(game, screens)
    assert [e["collected"] for e in events_of(record, "bonus_collected")] == [2, 3]
    assert kinds(record) == ["base", "respin", "respin", "respin"]
    assert record["status"] == "awaiting"
    assert record["awaiting"]["decision"] == "start_bonus"
    started = rounds.resume(game, record, "start_bonus")
    assert started["status"] == "complete"
    assert events_of(started, "jackpot_bonus_triggered")[0]["collected"] == 3
    assert rounds.replay(game, started)[0]


def test_two_bonus_do_not_start_the_bonus_game(game):
    record = play(game, [screen(r2c2="BONUS", r3c3="BONUS")])
    assert record["status"] == "complete"
    assert not events_of(record, "jackpot_bonus_triggered")


# -- the Jackpot Bonus game ------------------------------------------------------------------
TRIGGER = screen(r1c1="BONUS", r1c2="BONUS", r1c3="BONUS")


def test_a_bonus_game_that_fills_two_rows_pays_the_major_and_the_coins(game):
    draws = {"bonus_cell": [0, 1, 2], "bonus_value": [10] * 10}
    screens = [TRIGGER, bonus_screen(3, 4, 5), bonus_screen(6, 7), bonus_screen(8, 9), bonus_screen(), bonus_screen(), bonus_screen()]
    record = play(game, screens, draws, ["start_bonus"])
    bonus_steps = [s for s in record["steps"] if s["kind"] == "bonus"]
    assert [s["screen"][0] for s in bonus_steps][-1] == ["BONUS"] * 5
    assert bonus_steps[-1]["screen"][1] == ["BONUS"] * 5
    wins = {w["kind"]: w for w in bonus_steps[-1]["wins"]}
    assert wins["jackpot"]["symbol"] == "MAJOR" and wins["jackpot"]["amount"] == "200.00"  # 100 x 2.00
    assert wins["bonus"]["count"] == 10 and wins["bonus"]["amount"] == "10.00"  # 10 x 10 coins x 2 x 0.05
    assert Decimal(record["total_win"]) == Decimal("210.00")
    assert len(bonus_steps) == 7  # the start and 6 spins: 3 that landed, then 3 that did not
    assert [s["events"] for s in bonus_steps][-1][0]["type"] == "jackpot_bonus_end"


def test_one_full_row_pays_the_minor_and_spins_reset_on_every_landing(game):
    draws = {"bonus_cell": [0, 1, 10], "bonus_value": [200, 20, 30, 40, 50, 75]}
    screens = [TRIGGER, bonus_screen(), bonus_screen(), bonus_screen(2), bonus_screen(), bonus_screen(3, 4)]
    screens += [bonus_screen()] * 3
    record = play(game, screens, draws, ["start_bonus"])
    bonus_steps = [s for s in record["steps"] if s["kind"] == "bonus"]
    assert len(bonus_steps) == 9
    win = [w for w in bonus_steps[-1]["wins"] if w["kind"] == "jackpot"][0]
    assert win["symbol"] == "MINOR" and win["amount"] == "40.00"  # 20 x 2.00
    coins = [w for w in bonus_steps[-1]["wins"] if w["kind"] == "bonus"][0]
    assert coins["amount"] == format((200 + 20 + 30 + 40 + 50 + 75) * 2 * Decimal("0.05"), ".2f")
    placed = [e["cell"] for e in events_of(record, "bonus_placed")]
    assert placed == [0, 1, 10]


# -- "The Jackpot Bonus game has 15 independent reels, spinning individually" ---------------
def fill_to_fourteen() -> list[list[list[str]]]:
    """Bonus screens that take a game started on cells 0-2 to 14 cells, cell 14 empty."""
    return [bonus_screen(*range(3, 8)), bonus_screen(*range(8, 14))]


def test_at_14_cells_the_last_cell_really_can_fill_and_wins_the_mega(game):
    screens = [TRIGGER, *fill_to_fourteen(), bonus_screen(14)]
    record = play(game, screens, {"bonus_cell": [0, 1, 2], "bonus_value": [10] * 15}, ["start_bonus"])
    last = [s for s in record["steps"] if s["kind"] == "bonus"][-1]
    assert all(cell == "BONUS" for row in last["screen"] for cell in row)
    assert mega_won(record)
    # 15 coins of 10 x bet level 2 x 0.05 = 15.00, and no Minor or Major beside the Mega.
    assert [(w["kind"], w["amount"]) for w in last["wins"]] == [("bonus", "15.00")]
    assert Decimal(record["total_win"]) == Decimal("15.00")


def test_at_14_cells_three_blank_spins_end_the_game_with_the_major(game):
    screens = [TRIGGER, *fill_to_fourteen(), bonus_screen(), bonus_screen(), bonus_screen()]
    record = play(game, screens, {"bonus_cell": [0, 1, 2], "bonus_value": [10] * 14}, ["start_bonus"])
    assert not mega_won(record)
    end = events_of(record, "jackpot_bonus_end")[0]
    assert (end["cells"], end["full_rows"]) == (14, 2)
    # Major 100 x 2.00 = 200.00, plus 14 coins of 1.00.
    assert Decimal(record["total_win"]) == Decimal("214.00")


def test_at_14_cells_the_last_cell_lands_as_often_as_any_reel(game):
    """Simulated bonus games from 14 BONUS at the smallest stake: the last cell fills with the
    cell reel's chance over 3 spins, 1 - (1 - p)^3 (99% confidence, fixed seed)."""
    bet = game.parse_bet({"bet_level": 1, "coin_value": "0.01"})
    num, den = game.stake_reels(bet).land_chance
    fills = 1 - (1 - Fraction(num, den)) ** 3
    games = 200_000
    tally = simulated_bonus_games(game, bet, collected=14, games=games)
    assert tally["mega"] + tally["major"] == games  # 14 cells always hold two full rows
    within_binomial(tally["mega"], games, float(fills))


def test_15_collected_bonus_fill_the_grid_and_pay_the_mega(game):
    fifteen = [["BONUS"] * 5, ["BONUS"] * 5, ["BONUS"] * 5]
    record = play(game, [fifteen], {"bonus_value": [20] * 15}, ["start_bonus"])
    assert events_of(record, "jackpot_bonus_triggered")[0] == {"type": "jackpot_bonus_triggered", "collected": 15, "placed": 15}
    bonus_steps = [s for s in record["steps"] if s["kind"] == "bonus"]
    assert len(bonus_steps) == 1  # the grid is full at once: no spin is played
    assert mega_won(record)
    # 15 coins of 20 x bet level 2 x 0.05 = 30.00; the Mega itself is the pool's.
    assert Decimal(record["total_win"]) == Decimal("30.00")


def test_more_than_15_collected_fill_the_grid_once(game):
    # 14 BONUS beside a WILD, then 12 more in its re-spin (reel 1 holds the Falling Wild).
    first = [["WILD"] + ["BONUS"] * 4, ["BONUS"] * 5, ["BONUS"] * 5]
    respin = [["TEN"] + ["BONUS"] * 4, ["ACE"] + ["BONUS"] * 4, ["JACK"] + ["BONUS"] * 4]
    record = play(game, [first, respin, QUIET, QUIET], {"bonus_value": [10] * 15}, ["start_bonus"])
    assert [e["collected"] for e in events_of(record, "bonus_collected")] == [14, 26]
    assert events_of(record, "jackpot_bonus_triggered")[0]["placed"] == 15
    assert len(events_of(record, "bonus_placed")) == 15
    assert mega_won(record)
    bonus_win = [w for s in record["steps"] if s["kind"] == "bonus" for w in s["wins"]]
    assert [(w["kind"], w["amount"]) for w in bonus_win] == [("bonus", "15.00")]  # 15 x 10 x 2 x 0.05


def test_the_mega_is_paid_by_the_pool(game):
    screens = [TRIGGER, *fill_to_fourteen(), bonus_screen(14)]
    record = play(game, screens, {"bonus_cell": [0, 1, 2]}, ["start_bonus"])
    assert events_of(record, "jackpot")[0] == {"type": "jackpot", "jackpot": "MEGA", "progressive": True, "paid_by": "jackpot_pool"}
    result = rounds.RoundResult.of(record)
    assert result.progressive_won and result.feature_played  # what the server pays the pool's share on
    assert not rounds.RoundResult.of(play(game, [QUIET])).progressive_won
    pool = InMemoryPool(game.pool_config())
    assert game.pool_config() == PoolConfig()  # the model states the published arithmetic
    pool.contribute("earlier", Decimal("1000.00"))
    settled = settle_round(record, pool, "r1")
    # seed + 80% of 3.7% of (1000.00 + 2.00) = 10029.6592: paid to the cent, the rest carried
    assert settled.payout == Decimal("10029.65")
    assert settled.claim.left_over == Decimal("0.0092")
    assert pool.state().current == Decimal("10000") + Decimal("0.2") * Decimal("0.037") * Decimal("1002.00") + Decimal("0.0092")
    assert pool.state().balances()


# -- "The Jackpot cannot be won when PLAYING FOR FUN" ----------------------------------------
def test_fun_play_fills_the_grid_but_wins_no_mega(game):
    fun = Operator(fun_play=True)
    screens = [TRIGGER, *fill_to_fourteen(), bonus_screen(14)]
    record = play(game, screens, {"bonus_cell": [0, 1, 2], "bonus_value": [10] * 15}, ["start_bonus"], operator=fun)
    assert not mega_won(record)
    assert events_of(record, "jackpot")[0]["paid_by"] is None
    assert Decimal(record["total_win"]) == Decimal("15.00")  # the coins only
    pool = InMemoryPool(game.pool_config())
    settled = settle_round(record, pool, "fun", fun_play=True)
    assert settled.payout == Decimal("0") and pool.state().current == Decimal("10000")


# -- "The chance to win the Mega progressive Jackpot correlates positively with the bet size"
def test_the_mega_chance_rises_with_the_stake_as_designed(game):
    """Per bonus game started with 3 BONUS, the grid fills more often at a larger stake; over
    the BONUS counts the design measured, the Mega's chance is 2e-5 x the stake in EUR (the
    cell chances are whole millionths, so within 1%)."""
    design = game.spec.design
    per_eur = float(design["mega_chance_per_bonus_game_per_eur"])
    chances = {int(n): p for n, p in design["measured"]["bonus_collected"].items()}
    games = sum(chances.values())
    previous = 0.0
    for row, entry in enumerate(game.features.bonus_game.by_stake):
        bonus = maths.BonusMaths(game, row)
        assert bonus.outcome(3).mega > previous
        previous = bonus.outcome(3).mega
        per_game = sum(p * bonus.outcome(n).mega for n, p in chances.items()) / games
        assert per_game == pytest.approx(per_eur * float(entry.stake), rel=0.01)


def test_simulated_bonus_games_win_the_mega_more_often_at_a_larger_stake(game):
    """At the largest stake a bonus game from 3 BONUS fills the grid with the exact chance (99%
    confidence); at the smallest, 500 times less often."""
    large = game.parse_bet({"bet_level": 10, "coin_value": "0.50"})
    small = game.parse_bet({"bet_level": 1, "coin_value": "0.01"})
    games = 400_000
    mega_large = maths.BonusMaths(game, game.stake_row(large)).outcome(3).mega
    mega_small = maths.BonusMaths(game, game.stake_row(small)).outcome(3).mega
    assert mega_large > 100 * mega_small
    within_binomial(simulated_bonus_games(game, large, 3, games)["mega"], games, mega_large)
    within_binomial(simulated_bonus_games(game, small, 3, games)["mega"], games, mega_small)


# -- "Each Bonus symbol has a random coin win value of 10 - 200 x bet level" -----------------
def test_bonus_values_are_10_to_200_at_every_stake(game):
    bonus = game.features.bonus_game
    assert min(bonus.values) == 10 and max(bonus.values) == 200
    assert all(len(e.value_weights) == len(bonus.values) and min(e.value_weights) > 0 for e in bonus.by_stake)


@pytest.mark.parametrize(
    "draws, message",
    [({"bonus_value": [11]}, "draws.bonus_value"), ({"bonus_cell": [15]}, "draws.bonus_cell"),
     ({"mega": [True]}, "draws.mega: not a draw"), ({"card": ["HEARTS"]}, "draws.card")],
)
def test_bad_draws_are_refused(game, draws, message):
    with pytest.raises(ScriptError, match=message):
        play(game, [TRIGGER], draws, ["start_bonus"])


def test_a_taken_cell_is_refused(game):
    with pytest.raises(ScriptError, match="cell 0 already holds"):
        play(game, [TRIGGER], {"bonus_cell": [0, 0]}, ["start_bonus"])


# -- the CLI, replay and the simulator -------------------------------------------------------
def test_cli_plays_a_script(game, tmp_path):
    path = tmp_path / "wow.json"
    path.write_text(json.dumps({"bet": BET, "screens": [screen(r1c3="WILD"), screen(r2c3="WILD")] + [QUIET] * 3}))
    result = CliRunner().invoke(app, ["play", "divine-fortune", "--script", str(path), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["game"] == "divine-fortune" and record["total_bet"] == "2.00"
    assert events_of(record, "wild_on_wild")


def test_cli_refuses_a_bad_bet(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"bet": {"bet_level": 12}}))
    result = CliRunner().invoke(app, ["play", "divine-fortune", "--script", str(path), "--json"])
    assert result.exit_code == 2
    assert "bet.bet_level" in result.output


def test_random_rounds_replay_and_pay_the_sum_of_their_wins(game):
    source = rounds.seeded_words(11)
    for _ in range(60):
        record = rounds.play(game, BET, source=source, operator=Operator())
        if record["status"] == "awaiting":
            record = rounds.resume(game, record, "start_bonus", source=source)
        assert rounds.replay(game, record)[0]
        paid = sum(Decimal(w["amount"]) for step in record["steps"] for w in step["wins"])
        assert Decimal(record["total_win"]) == paid


# -- statistics helpers ----------------------------------------------------------------------
Z99 = 2.5758  # two-sided 99% normal quantile


def within_binomial(count: int, trials: int, chance: float) -> None:
    """``count`` successes in ``trials`` lie in the exact 99% binomial interval of ``chance``."""
    low, high = binom.interval(0.99, trials, chance)
    assert low <= count <= high, f"{count} of {trials}: expected {low:.0f} to {high:.0f} at chance {chance:.4g}"


def simulated_bonus_games(game, bet, collected: int, games: int, seed: int = 11) -> dict[str, int]:
    """Tallies of ``games`` bonus games started with ``collected`` BONUS (the maths' own loop,
    which plays the paying round's bonus game)."""
    arguments = game.bet_arguments(bet, Operator())
    totals, _, tally = maths.run(str(game.path), "bonus", maths.Budget(games), seed, 1, arguments, (collected,))
    return {**dict(zip(game.tally_names, (int(x) for x in tally), strict=True)), "win_units": int(totals[1])}


# -- the bonus game's exact maths against simulated bonus games ------------------------------
def test_full_row_chances_count_subsets():
    assert sum(maths.full_row_chances(7, 3, 5)) == pytest.approx(1)
    assert maths.full_row_chances(5, 3, 5)[1] == pytest.approx(3 / 3003)  # one of 3 rows of the C(15,5) subsets
    assert maths.full_row_chances(10, 3, 5)[2] == pytest.approx(3 / 3003)
    assert maths.full_row_chances(15, 3, 5)[3] == 1


def test_bonus_dynamic_programming_by_hand():
    p, q = 0.25, 0.75
    ends = maths.final_cells(p, 3, 15)
    # From 14 cells the last one fills within 3 spins with 1 - q^3; a full grid stays full.
    assert ends[14, 15] == pytest.approx(1 - q**3)
    assert ends[15, 15] == 1
    # From 13 cells (2 empty): 3 blank spins end at 13; ending at 14 takes 0, 1 or 2 blank
    # spins, one cell landing (2pq), then 3 blank spins on the last cell.
    blank = q * q
    assert ends[13, 13] == pytest.approx(blank**3)
    assert ends[13, 14] == pytest.approx((1 + blank + blank**2) * 2 * p * q * q**3)
    assert ends[13].sum() == pytest.approx(1)


@pytest.mark.parametrize("stake, collected", [({"bet_level": 1, "coin_value": "0.01"}, 3),
                                              ({"bet_level": 10, "coin_value": "0.50"}, 3),
                                              ({"bet_level": 10, "coin_value": "0.50"}, 6)])
def test_exact_bonus_chances_match_simulated_bonus_games(game, stake, collected):
    """Minor, Major and Mega counts in their exact 99% binomial intervals; mean cells and coins
    within 99% of the exact mean, with the exact variance (fixed seed)."""
    bet = game.parse_bet(stake)
    games = 200_000
    row = game.stake_row(bet)
    exact = maths.BonusMaths(game, row)
    outcome = exact.outcome(collected)
    tally = simulated_bonus_games(game, bet, collected, games)
    assert tally["bonus_games"] == games
    within_binomial(tally["minor"], games, outcome.minor)
    within_binomial(tally["major"], games, outcome.major)
    within_binomial(tally["mega"], games, outcome.mega)
    num, den = game.stake_reels(bet).land_chance
    ends = maths.final_cells(num / den, game.features.bonus_game.spins, game.cells)[collected]
    cells = np.arange(game.cells + 1)
    mean, variance = ends @ cells, ends @ cells**2 - (ends @ cells) ** 2
    assert abs(tally["bonus_cells"] / games - mean) <= Z99 * math.sqrt(variance / games)
    values = np.array(game.features.bonus_game.values, dtype=float)
    weights = np.array(game.stake_reels(bet).value_weights, dtype=float) / sum(game.stake_reels(bet).value_weights)
    value_mean, value_variance = weights @ values, weights @ values**2 - (weights @ values) ** 2
    coins_variance = mean * value_variance + variance * value_mean**2
    assert value_mean == pytest.approx(exact.mean_value)
    assert abs(tally["bonus_coins"] / games - mean * value_mean) <= Z99 * math.sqrt(coins_variance / games)


# -- the RTP report: each part against a plain simulation, the total against 96.59% ----------
LARGEST = {"bet_level": 10, "coin_value": "0.50"}


@pytest.fixture(scope="module")
def largest_stake_report(game):
    return maths.rtp_report(game, RtpOptions(bet=LARGEST, rounds=16_000_000), workers=2)


def plain_parts(game, bet_fields, batches: int, rounds: int) -> dict[str, np.ndarray]:
    """Each RTP part per batch of a plain simulation (the paying round, complete rounds)."""
    bet = game.parse_bet(bet_fields)
    stake = rounds * game.stake_units
    parts: dict[str, list[float]] = {}
    for batch in range(batches):
        chunk = simulate_chunk(game.code, 5, batch, rounds, bet=bet_fields)
        tally = dict(zip(game.tally_names, (int(x) for x in chunk.tally), strict=True))
        found = {
            "base_game": tally["base_win"] / stake,
            "respins": tally["respin_win"] / stake,
            "free_spins": tally["free_win"] / stake,
            "bonus_coins": tally["bonus_coins"] / stake,
            "minor": tally["minor"] * int(game.tables.params[common.P_MINOR]) / stake,
            "major": tally["major"] * int(game.tables.params[common.P_MAJOR]) / stake,
            # The seed's share from the Megas actually won, per EUR staked.
            "mega_seed": float(game.features.mega.seed_eur) * tally["mega"] / (rounds * float(bet.total_bet)),
            "wild_on_wild_main_game": tally["wild_on_wild"] / rounds,
        }
        for name, value in found.items():
            parts.setdefault(name, []).append(value)
    return {name: np.array(values) for name, values in parts.items()}


def test_each_part_of_the_rtp_report_matches_a_plain_simulation(game, largest_stake_report):
    """At the largest stake (where Megas are frequent enough to count), every part of the RTP
    report against the same part of 16 batches of 1,000,000 plain rounds: the difference is
    within the batch means' 99% Student interval, widened for the report's own error (which
    is at most the plain one at the same number of rounds: its rounds are conditioned)."""
    report = largest_stake_report
    batches, rounds = 16, 1_000_000
    plain = plain_parts(game, LARGEST, batches, rounds)
    t99 = student_t.ppf(0.995, batches - 1)
    widen = math.sqrt(1 + batches * rounds / report["simulation"]["rounds"])
    expected = {**report["parts"], "wild_on_wild_main_game": 1 / report["frequencies"]["wild_on_wild_main_game_one_in"]}
    for name, values in plain.items():
        error = values.std(ddof=1) / math.sqrt(batches)
        assert abs(values.mean() - expected[name]) <= t99 * error * widen, name
    assert report["parts"]["mega_contribution"] == 0.037


@pytest.mark.slow
def test_the_model_returns_its_published_96_59_percent_at_every_stake(game):
    """The RTP report (40,000,000 conditioned rounds and 8,000,000 free spins, seed 2024) holds
    96.59% within its 99% interval, about +/-0.12 percentage points, at every stake; across
    stakes the RTP moves by less than 0.001 points (the bonus game is re-tuned per stake)."""
    report = maths.rtp_report(game, RtpOptions(rounds=40_000_000), workers=2)
    assert report["ci99"] < 0.0015
    assert abs(report["rtp"] - 0.9659) <= report["ci99"]
    by_stake = report["rtp_by_stake"]
    assert len(by_stake) == len(game.offered_stakes())
    assert max(by_stake.values()) - min(by_stake.values()) < 0.00001
    assert all(abs(rtp - 0.9659) <= report["ci99"] for rtp in by_stake.values())


def test_rtp_report_honours_its_options(game):
    seen = []
    report = maths.rtp_report(game, RtpOptions(bet={"bet_level": 2, "coin_value": "0.05"}, rounds=1_000_000,
                                               progress=lambda done, total: seen.append((done, total))), workers=1)
    assert report["stake"] == "2.00" and report["simulation"]["rounds"] == 1_000_000
    assert report["simulation"]["free_spins"] == 200_000
    assert seen[-1] == (1_200_000, 1_200_000) and all(d <= t for d, t in seen)
    parts = report["parts"]
    assert abs(sum(parts.values()) - report["rtp"]) < 1e-12
    assert report["rtp_without_jackpot"] == pytest.approx(report["rtp"] - parts["mega_contribution"] - parts["mega_seed"])
    timed = maths.rtp_report(game, RtpOptions(seconds=0.5), workers=1)
    assert timed["simulation"]["rounds"] % maths.CHUNK == 0 and timed["simulation"]["rounds"] >= maths.CHUNK


def test_simulate_reports_what_players_get_back_with_the_jackpot_pool(game):
    from slotforge.reports.simulate import simulate

    report = simulate("divine-fortune", 200_000, seed=3)
    pool = report["jackpot_pool"]
    assert pool["mega_contribution"] == 0.037
    assert report["rtp"] == pytest.approx(report["rtp_without_jackpot"] + pool["total"])
    assert pool["total"] == pytest.approx(pool["mega_contribution"] + pool["mega_seed"])
    result = CliRunner().invoke(app, ["simulate", "divine-fortune", "-n", "100000"])
    assert result.exit_code == 0 and "jackpot pool's share" in result.output


# -- accounting of Wild on Wild ---------------------------------------------------
def test_wild_on_wild_in_free_spins_is_counted_apart_from_the_main_game(game):
    trigger = screen(r1c1="FREESPINS", r1c2="FREESPINS", r1c3="FREESPINS")
    script = rounds.parse_script(game, {"bet": BET, "screens": [trigger, screen(r1c2="WILD")] + [QUIET] * 7})
    outcomes = make_outcomes(rng.buffer_stream(rng.secure_words(64)), game.grid, script.screens, script.draws,
                             draw_names=len(game.draw_names))
    tally = np.zeros(len(game.tally_names), dtype=np.int64)
    arguments = game.bet_arguments(game.parse_bet(BET), Operator())
    game.play_once(arguments, np.zeros(0, dtype=np.int64), outcomes, events.off(), game.scratch(), tally)
    counted = dict(zip(game.tally_names, tally, strict=True))
    assert (counted["wild_on_wild"], counted["free_wild_on_wild"]) == (0, 1)


@pytest.mark.parametrize("name, major, mega", [("divine-fortune-major.json", 1, False), ("divine-fortune-mega.json", 0, True)])
def test_the_examples_play(game, name, major, mega):
    path = Path(__file__).parents[2] / "examples" / name
    record = rounds.play(game, script=rounds.parse_script(game, json.loads(path.read_text())))
    assert record["status"] == "complete"
    assert len([w for s in record["steps"] for w in s["wins"] if w.get("symbol") == "MAJOR"]) == major
    assert mega_won(record) is mega


# -- the model is checked for what the code needs --------------------------------------------
def edited_model(tmp_path, edit) -> Path:
    raw = json.loads(load_game("divine-fortune").path.read_text())
    edit(raw)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(raw))
    return path


def drop_stake(raw):
    raw["features"]["bonus_game"]["by_stake"].pop(3)  # 0.80


def zero_weight(raw):
    raw["features"]["bonus_game"]["by_stake"][0]["value_weights"][2] = 0


def certain_cell(raw):
    raw["features"]["bonus_game"]["by_stake"][0]["land_chance"] = [5, 5]


def two_rows(raw):
    raw["grid"]["rows"] = 2


def awards_past_the_grid(raw):
    raw["features"]["free_spins"]["awards"]["16"] = 20


def trigger_past_the_grid(raw):
    raw["features"]["bonus_game"]["trigger"] = 16


@pytest.mark.parametrize("edit, message", [
    (drop_stake, r"by_stake: expected one entry per offered stake \(39\); missing \['0.80'\]"),
    (zero_weight, r"by_stake\[0\].value_weights: expected 9 positive weights"),
    (certain_cell, r"by_stake\[0\].land_chance: expected 0 < num < den"),
    (two_rows, r"paylines: .lines_20_5x3. uses rows outside a 2-row grid"),
    (awards_past_the_grid, r"features.free_spins.awards: expected awards from the trigger \(3\) to at most 15"),
    (trigger_past_the_grid, r"features.bonus_game.trigger: expected 1 to 15"),
])
def test_a_model_the_code_cannot_play_is_refused_on_load(tmp_path, edit, message):
    from slotforge.engine.model import ModelError
    from slotforge.games.divine_fortune.rules import DivineFortune

    with pytest.raises(ModelError, match=message):
        DivineFortune(edited_model(tmp_path, edit))


def test_rows_and_cells_come_from_the_model(game):
    assert game.cells == 15 and game.grid == (3, 5)
    assert game.tally_names[-1] == "collected_15"
    assert int(game.tables.params[common.P_FULL_REEL]) == 0b111
    assert game.tables.line_bits.shape == (5, 8)


def test_the_par_sheet_shows_the_award_table_the_weights_and_which_rtp_is_which(game):
    from slotforge.reports.par import par_sheet
    from slotforge.reports.simulate import simulate

    report = maths.rtp_report(game, RtpOptions(rounds=500_000), workers=1)
    sheet = par_sheet(game, report, simulate("divine-fortune", 100_000, seed=1))
    assert "| 3 | 5 |\n| 4 | 8 |\n| 5 or more | 12 |" in sheet
    largest = game.features.bonus_game.by_stake[-1]
    assert f"| 100.00 | {largest.land_chance[0]}/1000000 (1 in 18.26) |" in sheet
    assert " | ".join(str(w) for w in largest.value_weights) + " |" in sheet
    assert "RTP, the jackpot pool's share included (what players get back)" in sheet
    assert "RTP without the jackpot pool (what the rounds pay)" in sheet
    assert "## Which RTP is which" in sheet
