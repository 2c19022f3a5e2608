"""The back office's jackpot claims: the claims a jackpot service (a real process) holds for an
operator's committed rounds are listed for that operator alone and settled at its word; claims of
rounds that never committed, or of another game server, are nobody's here; an embedded pool holds
none; a silent service answers 503 with its code."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from slotforge.rgs.app import create_app
from slotforge.rgs.settings import load_settings

from .conftest import Api, make_operator
from .jackpot_processes import service_on


@pytest.fixture
def office(tmp_path, games):
    """A game server whose pools are at a jackpot service, two operators, and a round of each."""
    (tmp_path / "service").mkdir()
    with service_on("sqlite", tmp_path / "service") as service:
        settings = load_settings(None, database_url=f"sqlite:///{tmp_path / 'rgs.db'}", jackpot_url=service.url)
        app = create_app(settings, games={"dynasty": games["dynasty"]})
        client = TestClient(app)
        a, b = Api(client, make_operator(app)), Api(client, make_operator(app))
        rounds = {}
        for name, api in (("a", a), ("b", b)):
            player = api.player("10.00", player_id=f"{name}-player")
            rounds[name] = player.finish(player.play())["round"]["id"]
        try:
            yield service, app.state.server.jackpots, a, b, rounds
        finally:
            client.app.state.server.engine.dispose()


def test_held_claims_are_listed_for_their_rounds_operator_and_settled_at_its_word(office):
    service, jackpots, a, b, rounds = office
    ours = service.hold_claim(jackpots.key(rounds["a"]))
    theirs = service.hold_claim(jackpots.key(rounds["b"]))
    service.hold_claim(jackpots.key(rounds["b"] + 1000))  # a round that never committed: nobody's
    service.hold_claim(f"another-server:{rounds['a']}")  # the same round id at another game server

    listed = a.operator("GET", "/v1/operator/jackpot-claims").json()["claims"]
    assert [(c["key"], c["round"], c["player"], c["amount"], c["status"]) for c in listed] == [
        (ours["key"], rounds["a"], "a-player", ours["amount"], "held")]
    assert [c["key"] for c in b.operator("GET", "/v1/operator/jackpot-claims").json()["claims"]] == [theirs["key"]]

    refused = b.operator("POST", f"/v1/operator/jackpot-claims/{ours['key']}/settle")
    assert refused.status_code == 404 and refused.json()["field"] == "key"
    assert service.entries(kind="claim", status="held")  # untouched by B

    settled = a.operator("POST", f"/v1/operator/jackpot-claims/{ours['key']}/settle")
    assert settled.status_code == 200, settled.text
    assert settled.json()["status"] == "confirmed"
    statuses = {entry["key"]: entry["status"] for entry in service.entries(kind="claim")}
    assert statuses[ours["key"]] == "confirmed" and statuses[theirs["key"]] == "held"
    assert a.operator("GET", "/v1/operator/jackpot-claims").json() == {"claims": []}

    malformed = a.operator("POST", "/v1/operator/jackpot-claims/not-a-key/settle")
    assert malformed.status_code == 422 and malformed.json()["field"] == "key"


def test_a_silent_service_answers_503_and_embedded_pools_hold_no_claims(office, make_api):
    service, _jackpots, a, _b, _rounds = office
    service.kill()
    silent = a.operator("GET", "/v1/operator/jackpot-claims")
    assert silent.status_code == 503 and silent.json()["error"] == "JACKPOT_UNAVAILABLE"
    assert make_api().operator("GET", "/v1/operator/jackpot-claims").json() == {"claims": []}
