"""Money is exact: integer coins, Decimal currency, never a float."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from slotforge.engine import round as rounds
from slotforge.engine.bet import format_money
from slotforge.games import load_game

DYNASTY = load_game("dynasty")
COIN_VALUES = [format_money(v) for v in DYNASTY.bet_options.coin_values.values]

bets = st.fixed_dictionaries(
    {
        "lines": st.integers(1, 20),
        "coins_per_line": st.integers(1, 10),
        "coin_value": st.sampled_from(COIN_VALUES),
    }
)


def floats_in(value) -> list:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in floats_in(v)]
    if isinstance(value, list):
        return [f for v in value for f in floats_in(v)]
    return []


@given(st.decimals(min_value=0, max_value=10**9, places=2, allow_nan=False, allow_infinity=False))
def test_money_strings_round_trip_exactly(amount):
    text = format_money(amount)
    assert Decimal(text) == amount and "." in text and len(text.split(".")[1]) >= 2


@given(bet=bets, units=st.integers(0, 10**12))
def test_amounts_are_coins_times_coin_value(bet, units):
    parsed = DYNASTY.parse_bet(bet)
    assert parsed.amount(units) == Decimal(units * bet["coins_per_line"]) * Decimal(bet["coin_value"])
    assert parsed.total_bet == Decimal(bet["lines"] * bet["coins_per_line"]) * Decimal(bet["coin_value"])


@settings(max_examples=150, deadline=None)
@given(bet=bets, seed=st.integers(0, 2**32))
def test_a_round_adds_up_to_the_cent_and_holds_no_float(bet, seed):
    record = rounds.play(DYNASTY, bet, source=rounds.seeded_words(seed), choices=[0])  # collect
    assert floats_in({k: v for k, v in record.items() if k != "inputs"}) == []
    paid = sum((Decimal(w["amount"]) for step in record["steps"] for w in step["wins"]), Decimal(0))
    assert Decimal(record["total_win"]) == paid
    assert Decimal(record["total_bet"]) == DYNASTY.parse_bet(bet).total_bet
