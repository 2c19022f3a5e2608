"""Free rounds: an operator's campaigns, their grants, the player's free rounds, exactly N rounds
per grant whatever the races, and the books (on SQLite and PostgreSQL)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import select

from slotforge.rgs.audit import audit
from slotforge.rgs.schema import free_grants, ledger, rounds

CAMPAIGNS = "/v1/operator/free-rounds/campaigns"
BET = {"lines": 20, "coins_per_line": 1, "coin_value": "0.05"}  # a Dynasty bet of 1.00


def moment(clock, seconds: float) -> str:
    """The server's clock ``seconds`` from now, as ISO 8601."""
    return (datetime.fromtimestamp(clock.now, UTC) + timedelta(seconds=seconds)).isoformat()


def campaign_body(clock, **fields: Any) -> dict[str, Any]:
    return {"reference": f"c-{secrets.token_hex(4)}", "name": "Welcome spins", "games": ["dynasty"],
            "bets": {"EUR": BET}, "rounds": 3, "valid_from": moment(clock, -60), "valid_until": moment(clock, 3600),
            **fields}


def make_campaign(api, clock, **fields: Any) -> dict[str, Any]:
    answer = api.operator("POST", CAMPAIGNS, json=campaign_body(clock, **fields))
    assert answer.status_code == 200, answer.text
    return answer.json()


def grant(api, reference: str, *players, currency: str = "EUR") -> dict[str, Any]:
    answer = api.operator("POST", f"{CAMPAIGNS}/{reference}/grants",
                          json={"players": [{"player_id": p.player_id, "currency": currency} for p in players]})
    assert answer.status_code == 200, answer.text
    return answer.json()


def free_play(player, grant_id: int, key: str | None = None, **extra: Any):
    return player.play(free_round=grant_id, key=key, **extra)


def books_balance(api) -> None:
    server = api.client.app.state.server
    with server.engine.connect() as conn:
        assert audit(conn) == []


def played_of(api, grant_id: int) -> int:
    with api.client.app.state.server.engine.connect() as conn:
        return conn.execute(select(free_grants.c.rounds_played).where(free_grants.c.id == grant_id)).scalar_one()


# -- the operator's campaigns --------------------------------------------------------------------
def test_a_campaign_is_refused_naming_the_field_and_the_allowed_values(api, clock):
    def refused(**fields):
        answer = api.operator("POST", CAMPAIGNS, json=campaign_body(clock, **fields))
        assert answer.status_code in (403, 422), answer.text
        return answer.json()

    bad_bet = refused(bets={"EUR": {**BET, "coin_value": "0.03"}})
    assert bad_bet["field"] == "bets.EUR.coin_value" and "0.05" in bad_bet["message"]
    reversed_dates = refused(valid_from=moment(clock, 100), valid_until=moment(clock, 50))
    assert reversed_dates["field"] == "valid_until"
    not_offered = refused(games=["dynasty", "no_such_game"])
    assert not_offered["field"] == "games[1]" and "dynasty" in not_offered["message"]
    unknown_currency = refused(bets={"XXX": BET})
    assert unknown_currency["field"] == "bets.XXX"


def test_a_campaign_is_idempotent_on_its_reference(api, clock):
    body = campaign_body(clock)
    first = api.operator("POST", CAMPAIGNS, json=body)
    again = api.operator("POST", CAMPAIGNS, json=body)
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    other = api.operator("POST", CAMPAIGNS, json={**body, "rounds": 9})
    assert other.status_code == 422 and other.json()["error"] == "IDEMPOTENCY_KEY_REUSED"
    listed = api.operator("GET", CAMPAIGNS).json()["campaigns"]
    assert [c["reference"] for c in listed] == [body["reference"]]
    assert listed[0]["stakes"] == {"EUR": {"dynasty": "1.00"}} and listed[0]["state"] == "active"


def test_grants_to_many_players_in_one_call_are_idempotent_and_capped(api, clock):
    campaign = make_campaign(api, clock, player_cap=2)
    one, two, three = api.player(), api.player(), api.player()
    first = grant(api, campaign["reference"], one, two)
    assert [g["new"] for g in first["grants"]] == [True, True]
    again = grant(api, campaign["reference"], one, two)
    assert [g["new"] for g in again["grants"]] == [False, False]
    assert [g["grant"] for g in again["grants"]] == [g["grant"] for g in first["grants"]]
    over = api.operator("POST", f"{CAMPAIGNS}/{campaign['reference']}/grants",
                        json={"players": [{"player_id": three.player_id, "currency": "EUR"}]})
    assert over.status_code == 403 and over.json()["field"] == "players"
    no_bet = api.operator("POST", f"{CAMPAIGNS}/{make_campaign(api, clock)['reference']}/grants",
                          json={"players": [{"player_id": "new-player", "currency": "USD"}]})
    assert no_bet.status_code == 422 and no_bet.json()["field"] == "players[0].currency"
    assert "EUR" in no_bet.json()["message"]


# -- the player -------------------------------------------------------------------------------------
def test_a_player_plays_exactly_the_rounds_granted_without_a_stake_and_the_books_balance(api, clock):
    campaign = make_campaign(api, clock, rounds=3)
    player = api.player("5.00")
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    offered = player.get("/v1/session").json()["free_rounds"]
    assert [(f["id"], f["rounds"], f["left"], f["state"], f["bet"]) for f in offered] == [
        (grant_id, 3, 3, "offered", BET)]
    balance = Decimal("5.00")
    for _ in range(3):
        clock.advance(5)
        body = player.finish(free_play(player, grant_id))
        played = body["round"]
        assert played["free_round"] == {"grant": grant_id, "campaign": campaign["reference"]}
        assert played["total_bet"] == "1.00" and played["balance_before"] == str(balance)
        balance += Decimal(played["total_win"])
        assert Decimal(body["balance"]) == balance
    clock.advance(5)
    refused = free_play(player, grant_id)
    assert refused.status_code == 409 and refused.json()["error"] == "FREE_ROUNDS_UNAVAILABLE"
    assert player.get("/v1/session").json()["free_rounds"] == []
    summary = player.get(f"/v1/free-rounds/{grant_id}").json()
    assert (summary["played"], summary["left"], summary["state"]) == (3, 0, "finished")
    assert Decimal(summary["won"]) == balance - Decimal("5.00")
    history = player.get("/v1/rounds").json()["rounds"]
    assert all(r["free_round"]["campaign"] == campaign["reference"] for r in history)
    shown = api.operator("GET", f"{CAMPAIGNS}/{campaign['reference']}").json()["progress"]
    eur = shown["by_currency"]["EUR"]
    assert (shown["players"], shown["rounds_played"], eur["rounds_complete"], eur["bets"]) == (1, 3, 3, "3.00")
    assert Decimal(eur["wins_paid"]) == balance - Decimal("5.00") == Decimal(eur["cost_so_far"])
    assert eur["expected_cost"] == "2.85"  # 3 rounds x 1.00 x 95%
    books_balance(api)


def test_a_free_round_is_refused_for_a_game_a_bet_or_a_player_not_its_own(api, clock):
    campaign = make_campaign(api, clock)
    player, other = api.player(), api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    assert free_play(other, grant_id).status_code == 404
    wrong_bet = free_play(player, grant_id, bet={"coin_value": "0.10"})
    assert wrong_bet.status_code == 422 and wrong_bet.json()["field"] == "bet"
    assert free_play(player, grant_id, game="divine_fortune").status_code in (403, 503)
    assert played_of(api, grant_id) == 0


def test_twin_requests_play_one_round_and_answer_the_same(api, clock):
    campaign = make_campaign(api, clock, rounds=2)
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    first, again = free_play(player, grant_id, key="twin"), free_play(player, grant_id, key="twin")
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert played_of(api, grant_id) == 1


def test_the_player_may_put_off_or_decline_and_a_declined_grant_plays_nothing(api, clock):
    campaign = make_campaign(api, clock)
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    later = player.post(f"/v1/free-rounds/{grant_id}", {"choice": "later"})
    assert later.status_code == 200 and later.json()["state"] == "offered"
    accepted = player.post(f"/v1/free-rounds/{grant_id}", {"choice": "accept"})
    assert accepted.json()["state"] == "accepted"
    declined = player.post(f"/v1/free-rounds/{grant_id}", {"choice": "decline"})
    assert declined.json()["state"] == "declined"
    assert free_play(player, grant_id).status_code == 409
    assert player.post(f"/v1/free-rounds/{grant_id}", {"choice": "accept"}).status_code == 409
    assert player.get("/v1/session").json()["free_rounds"] == []


def test_cancelling_lapses_the_unplayed_rounds_and_the_end_of_the_campaign_too(api, clock):
    campaign = make_campaign(api, clock, rounds=5, valid_until=moment(clock, 100))
    ended = make_campaign(api, clock, rounds=5, valid_until=moment(clock, 100))
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    other_id = grant(api, ended["reference"], player)["grants"][0]["grant"]
    player.finish(free_play(player, grant_id))
    cancelled = api.operator("POST", f"{CAMPAIGNS}/{campaign['reference']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["campaign"]["state"] == "cancelled"
    clock.advance(5)
    assert free_play(player, grant_id).json()["error"] == "FREE_ROUNDS_UNAVAILABLE"
    assert player.get(f"/v1/free-rounds/{grant_id}").json()["state"] == "lapsed"
    clock.advance(200)  # the other campaign is over: its rounds lapse at its end
    assert free_play(player, other_id).json()["error"] == "FREE_ROUNDS_UNAVAILABLE"
    assert player.get(f"/v1/free-rounds/{other_id}").json()["state"] == "lapsed"
    assert played_of(api, grant_id) == 1 and played_of(api, other_id) == 0
    books_balance(api)


def test_a_round_in_play_when_its_campaign_is_cancelled_finishes(api, clock):
    campaign = make_campaign(api, clock, rounds=400, allow_gamble=True)
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    for _ in range(400):  # until a round waits for a decision (a gamble offered after a win)
        clock.advance(5)
        body = free_play(player, grant_id).json()
        if body["round"]["status"] == "awaiting":
            break
    else:
        pytest.skip("no round waited for a decision")
    api.operator("POST", f"{CAMPAIGNS}/{campaign['reference']}/cancel")
    finished = player.finish(Answered(body))
    assert finished["round"]["status"] == "complete"
    books_balance(api)


class Answered:
    """A round's answer as :meth:`Player.finish` takes it."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def json(self) -> dict[str, Any]:
        return self.body


def test_the_gamble_is_offered_only_when_the_campaign_allows_it(api, clock):
    campaign = make_campaign(api, clock, rounds=60)
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    for _ in range(60):
        clock.advance(5)
        answer = free_play(player, grant_id)
        assert answer.status_code == 200, answer.text
        assert answer.json()["round"]["status"] == "complete"  # no gamble offered after a win
    books_balance(api)


def test_free_rounds_show_apart_in_the_game_report_and_their_stake_is_the_operators(api, clock):
    campaign = make_campaign(api, clock, rounds=2)
    player = api.player("3.00")
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    for _ in range(2):
        clock.advance(5)
        player.finish(free_play(player, grant_id))
    clock.advance(5)
    player.finish(player.play())  # one paid round at the default bet
    report = api.operator("GET", "/v1/operator/reports/games").json()
    assert [(g["game"], g["rounds"], g["stakes"]) for g in report["games"]] == [("dynasty", 1, "0.20")]
    assert [(g["game"], g["rounds"], g["bets"]) for g in report["free_rounds"]] == [("dynasty", 2, "2.00")]
    server = api.client.app.state.server
    with server.engine.connect() as conn:
        kinds = conn.execute(select(ledger.c.kind, ledger.c.amount).join(rounds, rounds.c.id == ledger.c.round_id)
                             .where(rounds.c.free_grant_id == grant_id, ledger.c.kind.in_(("promo", "stake")))).all()
    assert sorted(kinds) == [("promo", 100), ("promo", 100), ("stake", 100), ("stake", 100)]
    books_balance(api)
