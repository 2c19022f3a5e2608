"""Divine Fortune: a scenario for every rule, through the script interface and the CLI."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import Operator, ScriptError
from slotforge.games import load_game
from slotforge.games.divine_fortune import kernels as k
from slotforge.games.divine_fortune import maths
from slotforge.games.divine_fortune.rules import mega_won, settle_round
from slotforge.jackpot import InMemoryPool, PoolConfig

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


def play(game, screens, draws=None, choices=None, bet=BET, operator=Operator()):
    script = {"bet": bet, "screens": screens, "draws": draws or {}, "choices": choices or []}
    return rounds.play(game, script=rounds.parse_script(game, script), operator=operator)


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
    draws = {"mega": [False], "bonus_cell": [0, 1, 2], "bonus_value": [10] * 10}
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
    draws = {"mega": [False], "bonus_cell": [0, 1, 10], "bonus_value": [200, 20, 30, 40, 50, 75]}
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


def test_without_the_mega_the_grid_cannot_fill(game):
    draws = {"mega": [False], "bonus_cell": [0, 1, 2]}
    with pytest.raises(ScriptError, match="cannot fill without the Mega"):
        play(game, [TRIGGER, bonus_screen(*range(15))], draws, ["start_bonus"])


def test_the_mega_path_fills_the_grid_and_the_pool_pays_it(game):
    record = play(game, [TRIGGER], {"mega": [True]}, ["start_bonus"])
    assert mega_won(record)
    assert events_of(record, "jackpot")[0]["jackpot"] == "MEGA"
    last = [s for s in record["steps"] if s["kind"] == "bonus"][-1]
    assert all(cell == "BONUS" for row in last["screen"] for cell in row)
    assert not [w for w in last["wins"] if w["kind"] == "jackpot"]  # only the highest jackpot
    pool = InMemoryPool(game.pool_config())
    assert game.pool_config() == PoolConfig()  # the model states the published arithmetic
    pool.contribute("earlier", Decimal("1000.00"))
    settled = settle_round(record, pool, "r1")
    # seed + 80% of 3.7% of (1000.00 + 2.00) = 10029.6592: paid to the cent, the rest carried
    assert settled.payout == Decimal("10029.65")
    assert settled.claim.left_over == Decimal("0.0092")
    assert pool.state().current == Decimal("10000") + Decimal("0.2") * Decimal("0.037") * Decimal("1002.00") + Decimal("0.0092")
    assert pool.state().balances()


def test_fun_play_has_no_mega(game):
    fun = Operator(fun_play=True)
    with pytest.raises(ScriptError, match="playing for fun"):
        play(game, [TRIGGER], {"mega": [True]}, ["start_bonus"], operator=fun)
    record = play(game, [TRIGGER], {}, ["start_bonus"], operator=fun)
    assert not mega_won(record)
    assert not [e for e in events_of(record, "draw") if e["name"] == "mega"]
    assert game.bet_arguments(game.parse_bet(BET), fun)[k.B_MEGA_THRESHOLD] == 0


def test_mega_chance_is_proportional_to_the_stake(game):
    small = game.mega_threshold(game.parse_bet({"bet_level": 1, "coin_value": "0.01"}).total_bet)
    large = game.mega_threshold(game.parse_bet({"bet_level": 10, "coin_value": "0.50"}).total_bet)
    assert large == small * 500


@pytest.mark.parametrize(
    "draws, message",
    [({"bonus_value": [11]}, "draws.bonus_value"), ({"bonus_cell": [15]}, "draws.bonus_cell"),
     ({"mega": ["yes"]}, "draws.mega"), ({"card": ["HEARTS"]}, "draws.card")],
)
def test_bad_draws_are_refused(game, draws, message):
    with pytest.raises(ScriptError, match=message):
        play(game, [TRIGGER], draws, ["start_bonus"])


def test_a_taken_cell_is_refused(game):
    with pytest.raises(ScriptError, match="cell 0 already holds"):
        play(game, [TRIGGER], {"mega": [False], "bonus_cell": [0, 0]}, ["start_bonus"])


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


def test_the_simulator_runs_complete_rounds():
    from slotforge.maths.simulate import simulate

    report = simulate("divine-fortune", 200_000, seed=3)
    assert report["rounds"] == 200_000
    assert 0.5 < report["rtp"] < 1.5
    features = report["features"]
    assert features["respins"]["frequency"] > 0.1
    assert features["free_spins"]["frequency"] > 0 and features["bonus_game"]["frequency"] > 0


# -- the bonus game's exact maths ------------------------------------------------------------
def test_full_row_chances_count_subsets():
    assert sum(maths.full_row_chances(7)) == 1
    assert maths.full_row_chances(5)[1] == Fraction(3, 3003)
    assert maths.full_row_chances(10)[2] == Fraction(3, 3003)


def test_bonus_dynamic_programming_is_a_distribution():
    outcome = maths.bonus_outcome(3, 3, Fraction(1, 16))
    assert sum(outcome.cells_distribution.values()) == 1
    assert max(outcome.cells_distribution) <= 14
    assert 3 < outcome.cells < 14


def test_rtp_report_parts_add_up(game):
    report = maths.rtp_report(game, rounds=1_000_000, free_spins=200_000, workers=1)
    parts = report["parts"]
    assert set(parts) == {"base_game", "respins", "free_spins", "bonus_coins", "minor", "major", "mega_contribution", "mega_seed"}
    assert abs(sum(parts.values()) - report["rtp"]) < 1e-12
    assert parts["mega_contribution"] == 0.037
    assert parts["mega_seed"] == 10_000 * report["mega"]["rate_per_eur_staked"]
    assert 0.9 < report["rtp"] < 1.05
    low, high = report["rtp_by_stake"].values()
    assert abs(high - low) < 0.0002  # the Mega's path barely moves the RTP across stakes
