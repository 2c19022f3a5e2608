"""Moon of Fortune's "doubled win must not exceed GBP 7,500", in the player's currency: converted
at the operator's rates (the jackpot pools' table, EUR per unit), and a currency the table cannot
convert refuses the gamble's start clearly. Figures are worked by hand from the rates given."""

from __future__ import annotations

from decimal import Decimal

import pytest

from slotforge.engine.game import GambleCapError, Operator
from slotforge.games import load_game
from slotforge.games.moon_of_fortune import kernels as k
from slotforge.rgs.api.answers import refusal_of
from slotforge.rgs.errors import GambleNotAllowed
from slotforge.rgs.rounds.gamble_cap import gamble_limit, refuse_gamble_start

RATES = {"EUR": Decimal(1), "GBP": Decimal("1.17"), "USD": Decimal("0.92")}  # EUR per unit


@pytest.fixture(scope="module")
def moon():
    return load_game("moon-of-fortune")


def rate_of(currency: str) -> Decimal | None:
    return RATES.get(currency)


def test_the_cap_stands_in_gbp_and_is_converted_for_other_currencies(moon):
    assert moon.gamble_cap("GBP", rate_of) == Decimal("7500.00")
    # GBP 7,500 = EUR 7,500 x 1.17 = EUR 8,775.00.
    assert moon.gamble_cap("EUR", rate_of) == Decimal("8775.00")
    # = USD 8,775 / 0.92 = 9,538.0434...: rounded down, so that it never exceeds GBP 7,500.
    assert moon.gamble_cap("USD", rate_of) == Decimal("9538.04")


def test_a_currency_without_a_rate_cannot_convert_the_cap(moon):
    with pytest.raises(GambleCapError, match=r"^currency: .*GBP 7,500.* no rate for SEK"):
        moon.gamble_cap("SEK", rate_of)
    with pytest.raises(GambleCapError, match=r"no rate for GBP"):
        moon.gamble_cap("EUR", lambda code: Decimal(1) if code == "EUR" else None)


def test_the_server_plays_under_the_lower_of_its_limit_and_the_converted_cap(moon):
    assert gamble_limit(moon, Decimal("10000.00"), "EUR", rate_of) == Decimal("8775.00")
    assert gamble_limit(moon, Decimal("1000.00"), "EUR", rate_of) == Decimal("1000.00")
    assert gamble_limit(moon, Decimal(0), "EUR", rate_of) == Decimal(0)  # no gamble in the jurisdiction
    # A game without a rule of its own keeps the operator's limit.
    assert gamble_limit(load_game("dynasty"), Decimal("10000.00"), "EUR", rate_of) == Decimal("10000.00")
    # Fun play risks nothing: an unconvertible cap caps the play money at the published amount.
    assert gamble_limit(moon, Decimal("10000.00"), "SEK", rate_of, fun=True) == Decimal("7500.00")


def test_the_round_is_given_the_converted_cap_in_units(moon):
    bet = moon.parse_bet({})
    arguments = moon.bet_arguments(bet, Operator(gamble_limit=Decimal("8775.00")))
    assert arguments[k.B_GAMBLE_LIMIT] == int(Decimal("8775.00") / bet.coin_value)


def test_an_unconvertible_cap_refuses_the_gambles_start_but_not_collect(moon):
    waiting = "gamble"  # the decision the round waits for
    with pytest.raises(GambleNotAllowed) as refused:
        refuse_gamble_start(moon, waiting, "sun", "SEK", rate_of)
    answered = refusal_of(refused.value)
    assert answered.status == 403 and answered.code == "GAMBLE_NOT_ALLOWED"
    assert refused.value.field == "currency" and "no rate for SEK" in refused.value.message
    refuse_gamble_start(moon, waiting, "collect", "SEK", rate_of)  # the win can always be taken
    refuse_gamble_start(moon, waiting, "sun", "USD", rate_of)  # convertible: the gamble starts
    refuse_gamble_start(moon, waiting, "sun", "SEK", rate_of, fun=True)  # fun play: capped as it stands


def test_every_round_the_server_plays_is_given_the_converted_cap(make_api, games):
    """A round the server plays, not only the cap's arithmetic: it is played under the converted
    cap, not the operator's limit alone."""
    api = make_api({"moon-of-fortune": games["moon-of-fortune"]}, gamble_limit="10000.00",
                   jackpot_rates={"GBP": "1.17"})
    answer = api.player("100.00").play("moon-of-fortune")
    assert answer.status_code == 200, answer.text
    # GBP 7,500 at 1.17 EUR per GBP = EUR 8,775.00, below the operator's 10,000.00.
    assert answer.json()["round"]["inputs"]["operator"]["gamble_limit"] == "8775.00"
