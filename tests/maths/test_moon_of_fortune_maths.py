"""Moon of Fortune's maths: the exact Markov chains against the targets and against simulated
player sessions through the round function that pays players."""

from __future__ import annotations

import math

import pytest

from slotforge.games import load_game
from slotforge.games.moon_of_fortune.maths import BONUS_PARTS, BonusMaths, base_chain, simulate_session

TARGET = 0.9418


@pytest.fixture(scope="module")
def game():
    return load_game("moon-of-fortune")


@pytest.fixture(scope="module")
def chains(game):
    return {config: base_chain(game, *config) for config in game.configurations}


def test_every_configuration_returns_94_18_percent(game, chains):
    assert len(chains) == 12  # Chance Levels 1, 2, 4, 6 x three Volatility Levels
    for config, chain in chains.items():
        assert abs(chain.rtp - TARGET) < 0.0001, config  # exact, so well inside 0.05 points


def test_chance_level_xn_starts_the_bonus_game_at_least_n_times_as_often(chains):
    for (chance, volatility), chain in chains.items():
        assert chain.trigger >= chance * chains[1, volatility].trigger, (chance, volatility)


def test_volatility_levels_differ_clearly(game, chains):
    """Higher volatility: rarer bonus games that pay more (the spread itself is on the PAR sheet)."""
    for chance in (1, 2, 4, 6):
        low, standard, high = (chains[chance, v] for v in ("low", "standard", "high"))
        assert low.trigger > 1.3 * standard.trigger > 1.3 * 1.3 * high.trigger
    prizes = [sum(BonusMaths(game, v).expected(6, 0, 0).values()) for v in ("low", "standard", "high")]
    assert prizes[0] * 1.1 < prizes[1] and prizes[1] * 1.1 < prizes[2]


def test_the_bonus_game_fills_as_the_chain_says(game):
    """Cells filled at the end from 6: a distribution over 6..16 that adds up, never shrinks."""
    filled = BonusMaths(game, "standard").filled(6)
    assert math.isclose(sum(filled), 1.0, rel_tol=1e-12)
    assert all(p == 0 for p in filled[:6]) and all(p > 0 for p in filled[6:])


@pytest.mark.parametrize("chance, volatility", [(6, "low"), (1, "high")])
def test_the_exact_rtp_matches_a_simulated_session(game, chains, chance, volatility):
    """A player's session of 3 million rounds (seed 7) against the exact chain: the RTP within its
    99% interval (widened by the simulated cap's effect), the bonus game's frequency within four
    standard errors of a binomial count (rounds depend on each other through the stickies, so the
    plain binomial error is widened), and each bonus part within 3% of its exact value."""
    rounds = 3_000_000
    bet = game.parse_bet({"chance_level": chance, "volatility": volatility})
    chain = chains[chance, volatility]
    session = simulate_session(game, bet, rounds, seed=7)
    tally = session["tally"]
    capped = tally["capped"] / (rounds * bet.total_units)
    assert abs(session["rtp"] - (chain.rtp - capped)) < session["ci99"]
    frequency = tally["bonus_games"] / rounds
    error = math.sqrt(chain.trigger * (1 - chain.trigger) / rounds)
    assert abs(frequency - chain.trigger) < 4 * error
    stake = rounds * bet.total_units
    if chance == 6:
        for part in ("cash", "mini", "minor"):
            assert tally[part] / stake == pytest.approx(chain.parts[part], rel=0.03), part
        assert tally["base_win"] / stake == pytest.approx(chain.parts["count_wins"], rel=0.03)
    assert set(BONUS_PARTS) <= set(chain.parts)


def test_the_gamble_returns_exactly_what_is_gambled(game, chains):
    """A player who picks SUN whenever a gamble is offered (2 million rounds, seed 11) gets the
    same RTP as the exact one (which leaves the gamble out), within the session's 99% interval."""
    rounds = 2_000_000
    bet = game.parse_bet({"chance_level": 1, "volatility": "low"})
    gambling = simulate_session(game, bet, rounds, seed=11, strategy="always_sun")
    collecting = simulate_session(game, bet, rounds, seed=11)
    assert gambling["std"] > collecting["std"] * 1.2  # the gamble was played: wins spread more
    assert abs(gambling["rtp"] - chains[1, "low"].rtp) < gambling["ci99"]
