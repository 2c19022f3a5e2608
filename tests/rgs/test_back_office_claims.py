"""The back office's jackpot claims: the claims a jackpot service (a real process) holds for an
operator's rounds are listed for that operator alone and settled at its word: confirmed when
their round committed them, released when it never did (a crash between the claim and the
round's commit); claims of rounds that never existed, or of another game server, are nobody's
here; an embedded pool holds none; a silent service answers 503 with its code."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from slotforge.rgs.api import access
from slotforge.rgs.app import create_app
from slotforge.rgs.audit import audit, check_service
from slotforge.rgs.rounds.ahead import resume_ahead
from slotforge.rgs.settings import load_settings
from tests.rounds import open_forced_round

from .conftest import Api, make_operator
from .jackpot_processes import commit_confirm, service_on
from .test_jackpot_contract import wait_until
from .test_jackpot_service import MEGA_BET
from .test_player_api import MEGA_SCRIPT

LEASE_S = 2.0


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
            yield service, app.state.server, a, b, rounds
        finally:
            client.app.state.server.engine.dispose()


def test_held_claims_are_listed_for_their_rounds_operator_and_settled_at_its_word(office):
    service, server, a, b, rounds = office
    jackpots = server.jackpots
    ours = service.hold_claim(jackpots.key(rounds["a"]))
    with server.transaction() as conn:  # as the round's transaction commits it, not yet delivered
        commit_confirm(conn, rounds["a"], ours, server.now())
    theirs = service.hold_claim(jackpots.key(rounds["b"]))
    service.hold_claim(jackpots.key(rounds["b"] + 1000))  # a round that never existed: nobody's
    service.hold_claim(f"another-server:{rounds['a']}")  # the same round id at another game server

    listed = a.operator("GET", "/v1/operator/jackpot-claims").json()["claims"]
    assert [(c["key"], c["round"], c["player"], c["amount"], c["committed"], c["status"]) for c in listed] == [
        (ours["key"], rounds["a"], "a-player", ours["amount"], True, "held")]
    assert [(c["key"], c["committed"]) for c in b.operator("GET", "/v1/operator/jackpot-claims").json()["claims"]
            ] == [(theirs["key"], False)]

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
    service, _server, a, _b, _rounds = office
    service.kill()
    silent = a.operator("GET", "/v1/operator/jackpot-claims")
    assert silent.status_code == 503 and silent.json()["error"] == "JACKPOT_UNAVAILABLE"
    assert make_api().operator("GET", "/v1/operator/jackpot-claims").json() == {"claims": []}


class Crash(Exception):
    """The process dies between the service's answer to the claim and the round's commit."""


def test_a_claim_its_round_never_committed_is_released_never_confirmed(database_url, games, tmp_path, monkeypatch):
    """A Mega claimed at the service, then the round's transaction never commits (the round still
    awaits its decision): settling it waits for the lease, then releases it, the pot paid back;
    the player's round then wins the pot afresh and the books of both sides balance."""
    (tmp_path / "service").mkdir()
    with service_on("sqlite", tmp_path / "service") as service:
        settings = load_settings(None, database_url=database_url, games=["divine-fortune"], jackpot_url=service.url,
                                 jackpot_claim_lease_s=LEASE_S)
        app = create_app(settings, games={"divine-fortune": games["divine-fortune"]})
        server = app.state.server
        # This server's own reconciler would release the claim after the lease too: here the
        # operator's settle alone does.
        monkeypatch.setattr(server.jackpots, "reconcile", lambda: [])
        with TestClient(app) as client:
            wait_until(server.jackpots.available)
            office = Api(client, make_operator(app))
            player = office.player("50.00", player_id="winner")
            awaiting = open_forced_round(server, f"Bearer {player.token}", server.games["divine-fortune"],
                                         {"bet": MEGA_BET, **MEGA_SCRIPT})
            before = service.pool()
            auth = access.authenticate(server, f"Bearer {player.token}")
            ahead = resume_ahead(server, auth.player_id, awaiting["id"], "start_bonus")  # claimed here, as served
            with pytest.raises(Crash), server.transaction() as conn:
                server.decide(conn, auth, awaiting["id"], "start_bonus", ahead)
                raise Crash
            [claim] = service.entries(kind="claim", status="held")
            assert Decimal(service.pool()["paid"]) > Decimal(before["paid"])

            early = office.operator("POST", f"/v1/operator/jackpot-claims/{claim['key']}/settle")
            assert early.status_code == 409, early.text
            assert early.json()["error"] == "CLAIM_NOT_COMMITTED" and early.json()["field"] == "key"
            [listed] = office.operator("GET", "/v1/operator/jackpot-claims").json()["claims"]
            assert (listed["round"], listed["round_status"], listed["committed"]) == (awaiting["id"], "awaiting", False)
            assert [e["status"] for e in service.entries(kind="claim")] == ["held"]

            time.sleep(LEASE_S)
            settled = office.operator("POST", f"/v1/operator/jackpot-claims/{claim['key']}/settle")
            assert settled.status_code == 200, settled.text
            assert (settled.json()["status"], settled.json()["committed"]) == ("released", False)
            assert [e["status"] for e in service.entries(kind="claim")] == ["released"]
            assert Decimal(service.pool()["paid"]) == Decimal(before["paid"])

            won = player.post(f"/v1/rounds/{awaiting['id']}/decisions", {"choice": "start_bonus"})
            won = player.finish(won)["round"]
            assert won["status"] == "complete" and Decimal(won["jackpot_win"]) > 0
            assert server.outbox.drain(30)
            with server.engine.connect() as conn:
                assert audit(conn) == []
                assert check_service(conn, service.url, settings.jackpot_server()) == []
        server.engine.dispose()
