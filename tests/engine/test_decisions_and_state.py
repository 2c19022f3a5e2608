"""Decisions of several kinds, strategies and carried state, through a small test game.

Two Doors (``toy/two_doors/``) has two decisions whose options sit at other indexes in the
game's list of all choice names, a meter carried per bet level, two scatter symbols, and an
exact RTP per strategy.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal

import numpy as np
import pytest
from toy.two_doors import TwoDoors

from slotforge import games
from slotforge.engine import events
from slotforge.engine import round as rounds
from slotforge.engine.game import ScriptError, code_fingerprint
from slotforge.engine.model import ModelError
from slotforge.engine.round import ForeignRecord
from slotforge.engine.spin import make_scratch, pay_scatters
from slotforge.games import maths_of
from slotforge.maths.stats import z
from slotforge.reports.simulate import simulate
from tests import scripts

QUIET = [["B"] * 5] * 3  # no line win, no scatter


@pytest.fixture(scope="module")
def game():
    return TwoDoors()


@pytest.fixture
def registered(monkeypatch, game):
    """Two Doors as a game the simulator can load by its code."""
    monkeypatch.setitem(games.REGISTRY, "two-doors", games.Registration("toy.two_doors", "TwoDoors"))
    games._shipped.cache_clear()
    yield game
    games._shipped.cache_clear()


def play(game, choices=(), draws=None, screens=(QUIET,), bet=None, state=None):
    """A Two Doors round: its choices first, the screen quiet unless told."""
    return scripts.play(game, list(screens), draws, list(choices), bet=bet, state=state, seed=5)


# -- decisions of several kinds ------------------------------------------------------------------
def test_the_record_names_each_decisions_own_options(game):
    first = play(game)
    assert first["awaiting"] == {"decision": "door", "options": ["left", "right"], "win": "0.00"}
    second = play(game, ["left"])
    # 'keep' and 'double' are choice names 2 and 3 of the game; the record must not show
    # options 0 and 1 of the game's list ('left', 'right') for them.
    assert second["awaiting"] == {"decision": "double", "options": ["keep", "double"], "win": "2.00"}


def test_a_choice_of_the_second_decision_is_taken_by_its_own_index(game):
    record = play(game, ["left", "double"], {"coin": ["heads"]})
    assert record["status"] == "complete"
    assert record["total_win"] == "4.00"  # the left door's 2 units, doubled
    lost = play(game, ["right", "double"], {"coin": ["heads", "tails"]})
    assert lost["total_win"] == "0.00"  # 5 units behind the right door, lost on the double


def test_a_choice_that_belongs_to_the_other_decision_is_refused_by_name(game):
    with pytest.raises(ScriptError) as refused:
        play(game, ["left", "right"])
    assert "'right' is not offered at double" in str(refused.value)
    assert "['keep', 'double']" in str(refused.value)


def test_an_awaiting_round_resumes_with_the_second_decision(game):
    waiting = play(game, ["right"], {"coin": ["heads"]})
    assert waiting["awaiting"]["decision"] == "double"
    done = rounds.resume(game, waiting, "keep", source=rounds.seeded_words(5))
    assert (done["status"], done["total_win"]) == ("complete", "5.00")
    assert done["inputs"]["choices"] == ["right", "keep"]
    assert rounds.replay(game, done)[0]


# -- the round's result, as a server reads it ---------------------------------------------------
def test_a_round_result_carries_what_its_record_says_read_once(game):
    script = rounds.parse_script(game, {"screens": [QUIET], "choices": ["right"], "draws": {"coin": ["heads"]}})
    waiting = rounds.play_round(game, None, script=script, state={"meters": {"1": 2}}, source=rounds.seeded_words(5))
    assert (waiting.status, waiting.complete, waiting.decision) == ("awaiting", False, "double")
    assert waiting.options == ("keep", "double")
    assert waiting.total_win == Decimal(waiting.record["total_win"]) == Decimal("15.00")  # 5 + the meter's 10
    assert json.loads(waiting.encoded) == waiting.record  # the bytes stored and sent are the record
    done = rounds.resume_round(game, waiting.record, "keep", source=rounds.seeded_words(5))
    assert (done.status, done.decision, done.options, done.total_win) == ("complete", None, (), Decimal("15.00"))
    assert done.state == {"meters": {"1": 0}} and not done.progressive_won and not done.feature_played


# -- carried state -------------------------------------------------------------------------------
def test_carried_state_goes_in_and_out_of_the_compiled_round(game):
    record = play(game, ["left", "keep"], state={"meters": {"1": 2}})
    # The third round at level 1 pays the meter's 10 units, plus the left door's 2.
    assert record["total_win"] == "12.00"
    assert record["inputs"]["state"] == {"meters": {"1": 2}}
    assert record["state"] == {"meters": {"1": 0}}
    assert rounds.replay(game, record)[0]


def test_state_belongs_to_its_bet_configuration(game):
    record = play(game, ["left", "keep"], bet={"level": 2}, state={"meters": {"1": 2}})
    # At level 2 the level-1 meter is hidden: no meter pay (2 units x level 2 = 4.00) ...
    assert record["total_win"] == "4.00"
    # ... and it is kept, untouched, for when the player returns to level 1.
    assert record["state"] == {"meters": {"1": 2, "2": 1}}


def test_a_replayed_round_with_other_state_does_not_match(game):
    record = play(game, ["left", "keep"], state={"meters": {"1": 2}})
    record["inputs"]["state"] = {"meters": {"1": 0}}
    assert not rounds.replay(game, record)[0]


def test_a_game_that_carries_nothing_refuses_state(dynasty):
    with pytest.raises(ScriptError, match="dynasty carries no state between rounds"):
        rounds.play(dynasty, state={"stickies": [1]}, source=rounds.seeded_words(1))
    assert rounds.play(dynasty, state={}, source=rounds.seeded_words(1))["state"] == {}


# -- strategies ----------------------------------------------------------------------------------
def test_each_strategy_simulates_to_its_computed_rtp(registered):
    """At 99% confidence per strategy (fixed seed): the simulated RTP is the exact one. The
    right door pays 0.5 units more on average than the left (2.5 points of RTP at a 20-unit
    stake), which the test resolves; a simulator that did not carry the meter from round to
    round would miss 16.7 points."""
    figures = {}
    for name in registered.strategies:
        exact = maths_of(registered).rtp_report(_options(name))["rtp"]
        result = simulate("two-doors", 2_000_000, seed=11, strategy=name)
        assert result["strategy"] == name
        tolerance = z(0.99) * result["std"] / math.sqrt(result["rounds"])
        assert abs(result["rtp"] - exact) < tolerance, (name, result["rtp"], exact, tolerance)
        figures[name] = (result["rtp"], result["std"])
    assert figures["right_keep"][0] - figures["left_keep"][0] > 0.02
    # Doubling is fair: the same RTP, a wider spread.
    assert figures["right_double"][1] > figures["right_keep"][1] * 1.2


def test_an_unknown_strategy_is_refused_with_the_names(registered):
    with pytest.raises(ScriptError) as refused:
        simulate("two-doors", 1000, strategy="greedy")
    assert "expected one of ['left_keep', 'right_keep', 'right_double']" in str(refused.value)


def test_live_play_waits_whatever_the_strategies(game):
    assert play(game)["status"] == "awaiting"


def _options(name):
    from slotforge.engine.roles import RtpOptions

    return RtpOptions(strategy=name)


# -- several scatters ----------------------------------------------------------------------------
def test_two_scatters_pay_independently(game):
    screen = [["STAR", "B", "MOON", "B", "STAR"], ["B", "B", "B", "B", "B"], ["B", "STAR", "B", "MOON", "B"]]
    record = play(game, ["left", "keep"], screens=[screen])
    scatter_wins = {w["symbol"]: (w["count"], w["amount"]) for w in record["steps"][0]["wins"]}
    # STAR: 3 pay 2 x the 20-unit stake; MOON: 2 pay 1 x the stake; each by its own count.
    assert scatter_wins == {"STAR": (3, "40.00"), "MOON": (2, "20.00")}
    assert record["total_win"] == "62.00"


def test_scatter_counts_reach_the_caller_each_in_its_slot(game):
    table = game.tables.pay
    counts = np.zeros((5, 1, len(game.codes)), dtype=np.int64)
    star, moon = game.spec.symbol_id("STAR"), game.spec.symbol_id("MOON")
    counts[0, 0, moon] = 1
    counts[4, 0, moon] = 1
    counts[2, 0, star] = 1
    found = make_scratch(3, 5, len(game.codes)).scatters
    units = pay_scatters(table, counts, np.zeros(5, dtype=np.int64), 20, 1, events.off(), found)
    assert units == 20  # one STAR pays nothing; two MOON pay 1 x 20 units
    assert list(found[:2]) == [1, 2]


def test_a_model_with_more_scatters_than_the_engine_pays_is_refused(tmp_path):
    raw = json.loads(TwoDoors.model_file.read_text())
    extra = ["SUN", "COMET", "PLANET"]
    raw["symbols"] += [{"code": code, "kind": "scatter"} for code in extra]
    raw["scatter_pays"].update({code: {"3": 1} for code in extra})
    path = tmp_path / "five.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="5 scatter symbols; the engine pays at most 4"):
        TwoDoors(path)


# -- replay proves the code ------------------------------------------------------------------------
def test_a_record_from_other_code_or_another_model_is_refused(game):
    record = play(game, ["left", "keep"])
    assert record["code"] == game.code_id
    for field, foreign in (("code", "slotforge 0.0.1:000000000000"), ("model", "two-doors/0.9:abc")):
        changed = {**record, field: foreign}
        with pytest.raises(ForeignRecord, match=f"{field}: the round was made by"):
            rounds.replay(game, changed)
        waiting = {**play(game), field: foreign}
        with pytest.raises(ForeignRecord):
            rounds.resume(game, waiting, "left")


def test_the_code_fingerprint_follows_the_rules_source(tmp_path):
    package = tmp_path / "game"
    package.mkdir()
    (package / "rules.py").write_text("PAY = 1\n")
    before = code_fingerprint(package)
    (package / "rules.py").write_text("PAY = 2\n")
    assert code_fingerprint(package) != before
    assert before.startswith("slotforge ")


def test_the_code_fingerprint_follows_a_kernels_package_and_where_its_modules_are(tmp_path):
    """A game whose kernels are a package split by feature: each module counts, by its path."""
    package = tmp_path / "game"
    (package / "kernels").mkdir(parents=True)
    (package / "kernels" / "__init__.py").write_text("")
    (package / "kernels" / "reels.py").write_text("WIDTH = 5\n")
    before = code_fingerprint(package)
    (package / "kernels" / "reels.py").write_text("WIDTH = 6\n")
    changed = code_fingerprint(package)
    assert changed != before
    (package / "kernels" / "reels.py").rename(package / "reels.py")  # the same bytes elsewhere
    assert code_fingerprint(package) != changed


# -- decide_with: a strategy's answer the game works out itself --------------------------------------
def _decide_with(choices, strategy, answer, offered=0b011):
    """decide_with on decision 1 (options stand at other indexes among the choice names: see
    ``option_table``), called from Python; returns (choice, the log's rows)."""
    from slotforge.engine.outcomes import decide_with, make_outcomes, option_table

    names = ("take", "leave", "skip")
    table = option_table([("skip",), ("take", "leave")], names)
    outcomes = make_outcomes(np.zeros(8, dtype=np.uint64), (1, 1), choices=[names.index(c) for c in choices],
                             options=table, strategy=strategy)
    log = events.new_log(8)
    choice = decide_with(outcomes, log, 1, offered, 40, answer)
    return int(choice), events.rows(log)


def test_decide_with_takes_the_script_first_then_waits_in_live_play_then_the_games_answer():
    from slotforge.engine.outcomes import NOT_AN_OPTION, WAIT

    assert _decide_with(["leave"], strategy=0, answer=0)[0] == 1  # the script, not the answer
    choice, log = _decide_with([], strategy=WAIT, answer=0)  # live play: waits, whatever the answer
    assert choice == WAIT and [list(row[:4]) for row in log] == [[events.AWAIT, 1, 0b011, 40]]
    assert _decide_with([], strategy=2, answer=1)[0] == 1  # the simulator: the game's answer
    choice, log = _decide_with([], strategy=0, answer=1, offered=0b001)  # an answer not offered
    assert choice == NOT_AN_OPTION and log[0][0] == events.INVALID_CHOICE
    assert _decide_with(["skip"], strategy=0, answer=0)[0] == NOT_AN_OPTION  # another decision's option
