"""The stake rule the client applies is the game's own stake for every bet the game offers, and
the resting screen is a screen of the game's base reels that pays nothing."""

from __future__ import annotations

import itertools

import pytest

from slotforge.games import game_codes, load_game
from slotforge.rgs.presentation import looks_like_a_win, resting_screen, stake_rule


@pytest.mark.parametrize("code", game_codes())
def test_the_stake_rule_gives_the_games_stake_for_every_bet(code):
    game = load_game(code)
    rule = stake_rule(game)
    choices = bet_values(game)
    numeric = {name for name, value in game.parse_bet(None).fields.items() if not isinstance(value, str)}
    assert set(choices) == numeric, "a numeric bet field's values were not found"
    names = list(choices)
    for combo in itertools.product(*choices.values()):
        raw = dict(zip(names, combo, strict=True))
        bet = game.parse_bet(raw)
        fields = bet.fields
        by_rule = fields[rule["amount"]] * rule["factor"]
        for name in rule["times"]:
            by_rule *= fields[name]
        assert by_rule == bet.total_bet, (raw, by_rule, bet.total_bet)


def bet_values(game) -> dict[str, list]:
    """Each bet field's offered values from the model's bet description (ranges and lists)."""
    default = game.parse_bet(None).fields
    spec = game.spec.bet if isinstance(game.spec.bet, dict) else game.spec.bet.model_dump()
    found: dict[str, list] = {}
    for key, raw in spec.items():
        name = {"coin_values": "coin_value", "bets": "bet", "chance_levels": "chance_level", "stakes": "stake"}.get(key, key)
        if name not in default:
            continue
        if isinstance(raw, dict) and "min" in raw:
            found[name] = list(range(raw["min"], raw["max"] + 1))
        elif isinstance(raw, dict) and "values" in raw:
            found[name] = [str(v) for v in raw["values"]]
        elif isinstance(raw, list):
            found[name] = list(raw)
    return found


@pytest.mark.parametrize("code", game_codes())
def test_the_resting_screen_is_of_the_base_reels_and_pays_nothing(code):
    game = load_game(code)
    screen = resting_screen(game)
    rows, reels = game.grid
    assert len(screen) == rows and all(len(line) == reels for line in screen)
    kinds = {s.code: s.kind for s in game.spec.symbols}
    assert {kinds[c] for line in screen for c in line} <= {"high", "medium", "low"}  # no WILD, scatter or bonus
    assert not looks_like_a_win(game, screen)
    assert screen == resting_screen(game)  # the same on every page
    weights = getattr(game.spec, "cell_weights", None)
    if not weights:  # each reel's window is a run of its base strip
        for reel, strip in enumerate(game.spec.reels["base"]):
            column = [line[reel] for line in screen]
            assert any([strip[(stop + r) % len(strip)] for r in range(rows)] == column for stop in range(len(strip)))


def test_a_paying_screen_looks_like_a_win():
    """The check can fail: Dynasty's top line of five KINGs pays."""
    game = load_game("dynasty")
    screen = [["KING"] * 5, ["ACE", "TEN", "NINE", "QUEEN", "JACK"], ["TEN", "ACE", "JACK", "NINE", "QUEEN"]]
    assert looks_like_a_win(game, screen)
