"""Free rounds: an operator's campaigns, their grants, the player's free rounds, exactly N rounds
per grant whatever the races, and the books (on SQLite and PostgreSQL)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from slotforge.rgs.audit import audit
from slotforge.rgs.schema import free_grants, ledger, rounds

from .conftest import audit as audit_command

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
        pytest.fail("no round waited for a decision in 400 free rounds")
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


# -- a seamless wallet ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wallet(tmp_path_factory):
    from .wallets import WalletProcess

    process = WalletProcess(tmp_path_factory.mktemp("wallet")).start()
    yield process
    process.kill()


@pytest.fixture
def casino(make_api, games, wallet):
    """An in-process server whose operator ``casino`` keeps its money at the wallet."""
    from slotforge.rgs.api import access

    from .conftest import Api
    from .wallets import OPERATOR, seamless_operator

    api = make_api({"dynasty": games["dynasty"]}, operators=seamless_operator(wallet.url, timeout_s=2))
    server = api.client.app.state.server
    with server.transaction() as conn:
        key = access.add_operator(conn, OPERATOR, server.now())
    casino = Api(api.client, key)
    casino.server = server
    return casino


def test_a_seamless_free_round_debits_nothing_and_credits_its_win_as_promotional(casino, wallet, clock):
    campaign = make_campaign(casino, clock, rounds=4)
    player = casino.player("0.00")
    wallet.deposit(player.player_id, "2.00")
    grant_id = grant(casino, campaign["reference"], player)["grants"][0]["grant"]
    won = Decimal(0)
    for _ in range(4):
        clock.advance(5)
        body = player.finish(free_play(player, grant_id))
        assert body["round"]["wallet"]["transaction_id"].startswith("free-")
        won += Decimal(body["round"]["total_win"])
    assert casino.server.outbox.drain(timeout=30, target="wallet")
    books = wallet.books()
    mine = [tx for tx in books["transactions"] if tx["player_id"] == player.player_id and tx["kind"] != "deposit"]
    assert {tx["kind"] for tx in mine} == {"credit"}, "no debit for a free round"
    assert len(mine) == 4 and sum(Decimal(tx["amount"]) for tx in mine) == won
    assert Decimal(wallet.balance(player.player_id)) == Decimal("2.00") + won
    with casino.server.engine.connect() as conn:
        assert audit(conn) == []
    sent = casino.server.outbox
    with casino.server.engine.connect() as conn:
        from slotforge.rgs.schema import outbox

        payloads = [row for row in conn.execute(select(outbox.c.payload).where(outbox.c.kind == "credit")).scalars()]
    assert payloads and all('"promotional": true' in p or '"promotional":true' in p for p in payloads), sent
    assert all(campaign["reference"] in p for p in payloads)


# -- exactly N, whatever the races ----------------------------------------------------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.one_of(
    st.tuples(st.just("grant"), st.integers(0, 2), st.integers(0, 1)),
    st.tuples(st.just("play"), st.integers(0, 2), st.integers(0, 1), st.integers(0, 3)),
    st.tuples(st.just("decline"), st.integers(0, 2), st.integers(0, 1)),
    st.tuples(st.just("cancel"), st.integers(0, 1))), max_size=25))
def test_any_interleaving_plays_at_most_the_rounds_granted_and_the_books_balance(api, clock, steps):
    """Grants, plays (twins: the same key again), declines and cancels in any order: a play is
    answered 200 exactly when the model says a round is left, a twin answers as its first, and
    each grant's rounds played are its free rounds in the database, never more than granted."""
    campaigns = [make_campaign(api, clock, rounds=2) for _ in range(2)]
    people = [api.player("1.00") for _ in range(3)]
    grants: dict[tuple[int, int], int] = {}  # (player, campaign) -> grant id
    left: dict[int, int] = {}  # grant id -> rounds the model says are left
    cancelled: set[int] = set()
    answered: dict[tuple[int, str], Any] = {}  # (player, key) -> the first answer
    for step in steps:
        clock.advance(3)
        if step[0] == "grant":
            _, who, which = step
            answer = api.operator("POST", f"{CAMPAIGNS}/{campaigns[which]['reference']}/grants",
                                  json={"players": [{"player_id": people[who].player_id, "currency": "EUR"}]})
            if which in cancelled:
                assert answer.status_code == 409
                continue
            grant_id = answer.json()["grants"][0]["grant"]
            left.setdefault(grant_id, 2)
            grants[(who, which)] = grant_id
        elif step[0] == "cancel":
            assert api.operator("POST", f"{CAMPAIGNS}/{campaigns[step[1]]['reference']}/cancel").status_code == 200
            cancelled.add(step[1])
        elif step[0] == "decline" and (step[1], step[2]) in grants:
            grant_id = grants[(step[1], step[2])]
            answer = people[step[1]].post(f"/v1/free-rounds/{grant_id}", {"choice": "decline"})
            playable = left[grant_id] > 0 and step[2] not in cancelled
            assert answer.status_code == (200 if playable else 409), answer.text
            left[grant_id] = 0
        elif step[0] == "play" and (step[1], step[2]) in grants:
            _, who, which, key = step
            grant_id = grants[(who, which)]
            body = {"game": "dynasty", "bet": {}, "free_round": grant_id}
            twin = answered.get((who, f"k{key}"))
            answer = people[who].post("/v1/rounds", body, key=f"k{key}-{grant_id}")
            if twin is not None and twin[0] == grant_id:
                assert (answer.status_code, answer.json()) == twin[1]
                continue
            playable = left[grant_id] > 0 and which not in cancelled
            assert answer.status_code == (200 if playable else 409), answer.text
            answered[(who, f"k{key}")] = (grant_id, (answer.status_code, answer.json()))
            if playable:
                left[grant_id] -= 1
                people[who].finish(answer)
    server = api.client.app.state.server
    with server.engine.connect() as conn:
        for grant_id, granted, spent in conn.execute(select(free_grants.c.id, free_grants.c.rounds_granted,
                                                            free_grants.c.rounds_played)):
            played = conn.execute(select(rounds.c.id).where(rounds.c.free_grant_id == grant_id)).all()
            assert spent == len(played) <= granted
        assert audit(conn) == []


def test_twenty_parallel_requests_for_the_last_free_round_play_exactly_one(database_url, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from .conftest import ServerProcess

    server = ServerProcess(database_url, tmp_path / "server.log").start()
    try:
        key = server.operator_key()
        client = httpx.Client(base_url=server.url, timeout=60)
        headers = {"X-Api-Key": key}
        now = datetime.now(UTC)
        reference = f"c-{secrets.token_hex(4)}"
        made = client.post(CAMPAIGNS, headers=headers, json={
            "reference": reference, "name": "Last one", "games": ["dynasty"], "bets": {"EUR": BET}, "rounds": 2,
            "valid_from": (now - timedelta(minutes=1)).isoformat(), "valid_until": (now + timedelta(hours=1)).isoformat()})
        assert made.status_code == 200, made.text
        session = client.post("/v1/operator/sessions", headers=headers,
                              json={"player_id": "racer", "currency": "EUR"}).json()
        grant_id = client.post(f"{CAMPAIGNS}/{reference}/grants", headers=headers, json={
            "players": [{"player_id": "racer", "currency": "EUR"}]}).json()["grants"][0]["grant"]
        player = {"Authorization": f"Bearer {session['token']}"}
        first = client.post("/v1/rounds", headers={**player, "Idempotency-Key": "first"},
                            json={"game": "dynasty", "free_round": grant_id})
        assert first.status_code == 200, first.text

        def race(n: int) -> httpx.Response:
            with httpx.Client(base_url=server.url, timeout=60) as own:
                return own.post("/v1/rounds", headers={**player, "Idempotency-Key": f"race-{n}"},
                                json={"game": "dynasty", "free_round": grant_id})

        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(race, range(20)))
        codes = sorted(answer.status_code for answer in answers)
        assert codes.count(200) == 1, [answer.text for answer in answers]
        assert {answer.json()["error"] for answer in answers if answer.status_code != 200} == {
            "FREE_ROUNDS_UNAVAILABLE"}
        shown = client.get(f"{CAMPAIGNS}/{reference}", headers=headers).json()["progress"]
        assert shown["rounds_played"] == 2
        checked = audit_command(database_url)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        server.kill()


def test_a_free_round_killed_before_its_commit_is_played_once_on_retry(database_url, tmp_path):
    import httpx

    from .conftest import ServerProcess

    log = tmp_path / "server.log"
    dying = ServerProcess(database_url, log, extra_env={"SLOTFORGE_FAULT_AT": "before_commit"}).start()
    server = None
    try:
        key = dying.operator_key()
        headers = {"X-Api-Key": key}
        now = datetime.now(UTC)
        reference = f"c-{secrets.token_hex(4)}"
        assert httpx.post(f"{dying.url}{CAMPAIGNS}", headers=headers, json={
            "reference": reference, "name": "Crash", "games": ["dynasty"], "bets": {"EUR": BET}, "rounds": 1,
            "valid_from": (now - timedelta(minutes=1)).isoformat(),
            "valid_until": (now + timedelta(hours=1)).isoformat()}).status_code == 200
        token = httpx.post(f"{dying.url}/v1/operator/sessions", headers=headers,
                           json={"player_id": "crash", "currency": "EUR"}).json()["token"]
        grant_id = httpx.post(f"{dying.url}{CAMPAIGNS}/{reference}/grants", headers=headers, json={
            "players": [{"player_id": "crash", "currency": "EUR"}]}).json()["grants"][0]["grant"]
        player = {"Authorization": f"Bearer {token}", "Idempotency-Key": "crash"}
        body = {"game": "dynasty", "free_round": grant_id}
        with pytest.raises(httpx.HTTPError):  # killed before the commit: no answer, nothing kept
            httpx.post(f"{dying.url}/v1/rounds", headers=player, json=body, timeout=60)
        dying.process.wait(30)
        server = ServerProcess(database_url, log).start()
        first = httpx.post(f"{server.url}/v1/rounds", headers=player, json=body, timeout=60)
        again = httpx.post(f"{server.url}/v1/rounds", headers=player, json=body, timeout=60)
        assert first.status_code == 200, first.text
        assert again.json() == first.json()
        other = httpx.post(f"{server.url}/v1/rounds", headers={**player, "Idempotency-Key": "other"}, json=body,
                           timeout=60)
        assert other.status_code == 409
        checked = audit_command(database_url)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        for process in (dying, server):
            if process is not None:
                process.kill()


# -- the progressive jackpot ------------------------------------------------------------------------
@pytest.mark.parametrize("eligible", [False, True])
def test_a_free_round_feeds_the_jackpot_pool_only_when_its_campaign_turns_it_on(make_api, games, clock, eligible):
    from slotforge.rgs.schema import jackpot_entries

    api = make_api({"divine-fortune": games["divine-fortune"]})  # the game with a progressive pool
    campaign = make_campaign(api, clock, games=["divine-fortune"], bets={"EUR": {"coin_value": "0.05"}}, rounds=3,
                             jackpot_eligible=eligible)
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    for _ in range(3):
        clock.advance(5)
        player.finish(free_play(player, grant_id, game="divine-fortune"))
    server = api.client.app.state.server
    with server.engine.connect() as conn:
        fed = conn.execute(select(jackpot_entries.c.round_id).join(rounds, rounds.c.id == jackpot_entries.c.round_id)
                           .where(rounds.c.free_grant_id == grant_id, jackpot_entries.c.kind == "contribution")).all()
        assert audit(conn) == []
    assert len(fed) == (3 if eligible else 0)


@pytest.mark.parametrize("eligible", [False, True])
def test_a_free_round_wins_the_pool_only_when_its_campaign_turns_it_on(make_api, games, clock, eligible):
    """A mega forced through the round service (play over HTTP takes no script): a free round of a
    campaign that keeps the pool closed wins the bonus's coins and not the pot, which stays; one
    of a campaign that opens it wins the pot, as a paid round would."""
    from slotforge.engine import round as runner
    from slotforge.rgs import free
    from slotforge.rgs.schema import jackpot_entries
    from slotforge.rgs.store.general import lock_player

    from .test_player_api import MEGA_SCRIPT, server_auth

    game = games["divine-fortune"]
    api = make_api({"divine-fortune": game})
    campaign = make_campaign(api, clock, games=["divine-fortune"], rounds=1, jackpot_eligible=eligible,
                             bets={"EUR": {"bet_level": 2, "coin_value": "0.05"}})  # 20 x 2 x 0.05 = 2.00
    player = api.player("10.00")
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    pot_before = Decimal(player.get("/v1/jackpots").json()["pools"][0]["current"])
    server, auth = api.client.app.state.server, server_auth(api, player)
    bet = game.parse_bet({"bet_level": 2, "coin_value": "0.05"})
    script = runner.parse_script(game, {"bet": bet.as_json(), **MEGA_SCRIPT})
    with server.transaction() as conn:
        chosen = free.FreeRound(grant_id, free.campaign_of(conn, auth.operator_id, campaign["reference"]))
        _status, body = server.start_round(conn, lock_player(conn, auth.player_id), auth, game, bet, script, None,
                                           free=chosen)
    done = player.post(f"/v1/rounds/{body['round']['id']}/decisions", {"choice": "start_bonus"}).json()
    record = done["round"]
    coins = sum(Decimal(w["amount"]) for step in record["steps"] for w in step["wins"])
    pot_after = Decimal(player.get("/v1/jackpots").json()["pools"][0]["current"])
    with server.engine.connect() as conn:
        entries = sorted(conn.execute(select(jackpot_entries.c.kind)
                                      .where(jackpot_entries.c.round_id == record["id"])).scalars())
    assert record["free_round"]["grant"] == grant_id
    if eligible:
        assert Decimal(record["jackpot_win"]) >= Decimal("10000") and entries == ["claim", "contribution"]
    else:
        assert Decimal(record["jackpot_win"]) == 0 and entries == [] and pot_after == pot_before
    assert Decimal(record["total_win"]) == coins + Decimal(record["jackpot_win"])
    assert Decimal(done["balance"]) == Decimal("10.00") + Decimal(record["total_win"]), "no stake of the player's"
    books_balance(api)


class Pools:
    """The jackpots of a server whose every game is taken for a jackpot game: what was contributed."""

    remote = False

    def __init__(self) -> None:
        self.contributed: list[int] = []

    def contribute(self, conn, game, round_id, stake, now, **_rate) -> None:
        self.contributed.append(round_id)

    def check(self, game) -> None:
        pass


@pytest.mark.parametrize("eligible", [False, True])
def test_a_free_round_contributes_to_a_pool_only_when_its_campaign_turns_it_on(api, clock, monkeypatch, eligible):
    from decimal import Decimal as D

    from slotforge.rgs.rounds import service

    server = api.client.app.state.server
    pools = Pools()
    monkeypatch.setattr(service, "has_pool", lambda game: True)
    monkeypatch.setattr(server, "jackpots", pools)
    monkeypatch.setattr(server, "pool_rate", lambda currency: D(1))
    campaign = make_campaign(api, clock, rounds=2, jackpot_eligible=eligible)
    player = api.player()
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    played = []
    for _ in range(2):
        clock.advance(5)
        played.append(player.finish(free_play(player, grant_id))["round"]["id"])
    assert pools.contributed == (played if eligible else [])


def test_a_voided_free_round_returns_its_stake_to_the_operator_and_its_round_to_the_grant(api, clock):
    campaign = make_campaign(api, clock, rounds=1)
    player = api.player("2.00")
    grant_id = grant(api, campaign["reference"], player)["grants"][0]["grant"]
    played = player.finish(free_play(player, grant_id))
    voided = api.operator("POST", f"/v1/operator/rounds/{played['round']['id']}/void", json={"reason": "malfunction"})
    assert voided.status_code == 200, voided.text
    assert Decimal(voided.json()["balance"]) == Decimal("2.00"), "the win reversed, no stake refunded to the player"
    assert played_of(api, grant_id) == 0
    clock.advance(5)
    assert free_play(player, grant_id).status_code == 200, "the round given back plays again"
    books_balance(api)


def test_a_read_key_lists_campaigns_and_may_not_make_grant_or_cancel_them(api, clock):
    from .conftest import Api

    made = api.operator("POST", "/v1/operator/keys", json={"name": "reader", "scopes": ["read"]})
    assert made.status_code == 200, made.text
    reader = Api(api.client, made.json()["secret"])
    campaign = make_campaign(api, clock)
    assert reader.operator("GET", CAMPAIGNS).status_code == 200
    assert reader.operator("GET", f"{CAMPAIGNS}/{campaign['reference']}").status_code == 200
    assert reader.operator("POST", CAMPAIGNS, json=campaign_body(clock)).status_code == 403
    assert reader.operator("POST", f"{CAMPAIGNS}/{campaign['reference']}/cancel").status_code == 403
    assert reader.operator("POST", f"{CAMPAIGNS}/{campaign['reference']}/grants", json={
        "players": [{"player_id": "p", "currency": "EUR"}]}).status_code == 403
