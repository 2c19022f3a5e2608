"""What a red team sent the game server, and what it must answer: every hostile input a 4xx in the
server's error form naming the field, never a 500; nothing claimed that did not happen; no limit
that a client can step around. On SQLite and on PostgreSQL where the database matters."""

from __future__ import annotations

import json
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import func, select

from slotforge.amounts import AmountError, parse_decimal, parse_minor
from slotforge.jackpot.service import ContributionRequest
from slotforge.rgs.api import access
from slotforge.rgs.audit import audit
from slotforge.rgs.schema import autoplays, idempotency, ledger, players, rounds, sessions
from slotforge.rgs.settings import SettingsError, load_settings
from slotforge.rgs.wallets.demo import Refusal, checked
from slotforge.rgs.wallets.seamless.client import balance_of

from .conftest import Api, ServerProcess, free_port, losing_screen
from .wallets import OPERATOR, WalletProcess, seamless_operator

# -- one strict form for every amount -------------------------------------------------------------

# Texts Python's Decimal (or a lax model) reads as an amount, and that the contract refuses.
NOT_AMOUNTS = [" 0.01", "0.01 ", "+0.01", "-0.01", "1e-2", "1E2", "\u0661.00", "\uff11.00", "0.01\n", "0x1",
               "1_000", "NaN", "Infinity", ".5", "5.", "1,00", "", "0.001"]
JSON_NOT_AMOUNTS = [1, 0.01, True, None, ["1.00"], {"amount": "1.00"}]


@pytest.mark.parametrize("raw", NOT_AMOUNTS + JSON_NOT_AMOUNTS)
def test_the_amount_parser_refuses_everything_but_plain_decimal_text_naming_the_field(raw):
    with pytest.raises(AmountError, match=r"^stake: "):
        parse_decimal(raw, "stake")


@pytest.mark.parametrize(("text", "value"), [("0", Decimal("0")), ("12.50", Decimal("12.50")), ("7", Decimal(7)),
                                             ("000.10", Decimal("0.10")), ("999999999999.99", Decimal("999999999999.99"))])
def test_plain_decimal_text_is_read_exactly(text, value):
    assert parse_decimal(text) == value
    assert parse_minor(text, positive=False) == int(value * 100)


def test_an_amount_needs_no_more_places_than_the_currency_and_zero_only_where_allowed():
    with pytest.raises(AmountError, match="at most 2 decimal places"):
        parse_minor("0.015")
    with pytest.raises(AmountError, match="above zero"):
        parse_minor("0.00")
    assert parse_minor("0.00", positive=False) == 0
    with pytest.raises(AmountError, match="at most 12 digits"):
        parse_decimal("1000000000000")


# Each would read as 1.00, a coin value Dynasty offers: only the form is wrong.
LAX_ONES = ["+1.00", "1e0", " 1.00", "1.00 ", "\u0661.00", 1]


@pytest.mark.parametrize("amount", LAX_ONES)
def test_every_amount_field_of_the_api_refuses_a_lax_amount(api, amount):
    player = api.player("10.00")
    deposit = api.operator("POST", f"/v1/operator/players/{player.player_id}/transactions",
                           json={"kind": "deposit", "amount": amount, "reference": "lax"})
    assert deposit.status_code == 422 and deposit.json()["field"] == "amount", deposit.text
    plan = player.post("/v1/autoplay", {"game": "dynasty", "rounds": 5, "cash_decrease": amount})
    assert plan.status_code == 422 and plan.json()["field"] == "cash_decrease", plan.text
    bet = player.play(bet={"coin_value": amount})
    assert bet.status_code == 422 and bet.json()["field"] == "bet.coin_value", bet.text
    assert bet.json()["error"] == "INVALID_BET"
    assert player.get("/v1/session").json()["balance"] == "10.00"


@pytest.mark.parametrize("amount", LAX_ONES)
def test_the_wallets_and_the_jackpot_service_refuse_a_lax_amount(amount):
    call = {"transaction_id": "t-1", "round_id": 1, "player_id": "p-1", "amount": amount, "currency": "EUR",
            "game": "dynasty"}
    with pytest.raises(Refusal) as refused:
        checked("debit", call)
    assert refused.value.answer["field"] == "amount"
    # The game server reads a wallet's balance in the same form: anything else is an unclear answer.
    assert balance_of({"balance": amount}) is None
    assert balance_of({"balance": "49.80"}) == 4980
    with pytest.raises(ValidationError) as invalid:
        ContributionRequest(key="server:1", stake=amount)
    assert invalid.value.errors()[0]["loc"] == ("stake",)


# -- times and free text: a 4xx naming the field, never a 500 -------------------------------------

@pytest.mark.parametrize("path", ["/v1/operator/rounds", "/v1/operator/reports/games"])
@pytest.mark.parametrize(("name", "value"), [("from", "0001-01-01"), ("to", "0001-01-01T00:00:00"),
                                             ("from", "1969-12-31T23:59:59Z"), ("to", "-1"),
                                             ("from", "0001-01-01T00:00:00+01:00")])
def test_a_time_before_the_epoch_is_refused_naming_the_field(api, path, name, value):
    answer = api.operator("GET", path, params={name: value})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"] == "VALIDATION" and answer.json()["field"] == name
    assert "1970-01-01" in answer.json()["message"]


def test_a_time_without_a_zone_is_utc_and_the_edges_of_the_range_answer(api, clock):
    player = api.player("10.00")
    played = player.play()
    assert played.status_code == 200
    started = datetime.fromtimestamp(clock.now, UTC).replace(tzinfo=None)  # naive, in UTC
    listed = {name: api.operator("GET", "/v1/operator/rounds", params={"from": moment}).json()["rounds"]
              for name, moment in [("before", started - timedelta(seconds=1)), ("after", started + timedelta(seconds=1))]}
    assert [r["id"] for r in listed["before"]] == [played.json()["round"]["id"]]
    assert listed["after"] == []
    edges = api.operator("GET", "/v1/operator/rounds", params={"from": "1970-01-01", "to": "9999-12-31T23:59:59Z"})
    assert edges.status_code == 200 and len(edges.json()["rounds"]) == 1


# NUL (PostgreSQL's text cannot hold it), other control characters, a lone surrogate (no encoder takes it).
NOT_TEXT = ["en\x00", "en\x1b[2J", "line\nbreak", "\ud800"]


@pytest.mark.parametrize("text", NOT_TEXT)
def test_free_text_with_a_control_character_is_refused_naming_the_field(api, text):
    def operator(path: str, body: dict):
        return api.client.post(path, content=ascii_json(body), headers={"X-Api-Key": api.operator_key,
                                                                         "Content-Type": "application/json"})

    session = operator("/v1/operator/sessions", {"player_id": "p-text", "currency": "EUR", "language": text})
    assert session.status_code == 422 and session.json()["field"] == "language", session.text
    jurisdiction = operator("/v1/operator/sessions", {"player_id": "p-text", "currency": "EUR", "jurisdiction": text})
    assert jurisdiction.status_code == 422 and jurisdiction.json()["field"] == "jurisdiction", jurisdiction.text
    player = api.player("10.00")
    waiting = until_waiting(player)
    voided = operator(f"/v1/operator/rounds/{waiting['id']}/void", {"reason": f"broken {text}"})
    assert voided.status_code == 422 and voided.json()["field"] == "reason", voided.text
    choice = player.client.post(f"/v1/rounds/{waiting['id']}/decisions", content=ascii_json({"choice": f"collect{text}"}),
                                headers={**player.headers, "Idempotency-Key": "choice",
                                         "Content-Type": "application/json"})
    assert choice.status_code == 422 and choice.json()["field"] == "choice", choice.text
    assert player.get(f"/v1/rounds/{waiting['id']}").json()["round"]["status"] == "awaiting", "nothing changed"
    assert operator(f"/v1/operator/rounds/{waiting['id']}/void", {"reason": "broken reels, ticket 12"}).status_code == 200


def ascii_json(body: dict) -> bytes:
    """JSON with every non-ASCII character escaped: the only way a lone surrogate travels."""
    return json.dumps(body).encode()


def until_waiting(player) -> dict:
    """A Dynasty round of ``player`` waiting for a decision (a win offers the gamble)."""
    for _ in range(200):
        answer = player.play()
        assert answer.status_code == 200, answer.text
        if answer.json()["round"]["status"] == "awaiting":
            return answer.json()["round"]
    raise AssertionError("no win in 200 rounds")


# -- a void claims only what happened -------------------------------------------------------------

@pytest.fixture(scope="module")
def slow_wallet(tmp_path_factory):
    """The reference wallet, whose ``late`` fault applies a call and answers 1 s later."""
    process = WalletProcess(tmp_path_factory.mktemp("wallet"), "--hang-s", "1.0").start()
    yield process
    process.kill()


def test_a_round_whose_debit_is_at_the_wallet_cannot_be_voided_and_plays_on(make_api, games, slow_wallet):
    """The operator voids a seamless round while its debit is still at the wallet: nothing is
    taken yet, so nothing can be refunded; the void is refused (409) and the round, once the
    debit answers, is played and paid as usual."""
    api = make_api({"dynasty": games["dynasty"]}, jurisdictions={"nogamble": {"gamble": False}},
                   operators=seamless_operator(slow_wallet.url, timeout_s=5.0, debit_attempts=1, rollback_hold_s=12))
    server = api.client.app.state.server
    with server.transaction() as conn:
        casino = Api(api.client, access.add_operator(conn, OPERATOR, server.now()))
    player = casino.player("0.00", jurisdiction="nogamble")
    slow_wallet.deposit(player.player_id, "10.00")
    slow_wallet.faults(late=1.0, hang_s=1.0)  # every debit is applied, and answered a second later
    answers: list = []
    playing = threading.Thread(target=lambda: answers.append(player.play()))
    playing.start()
    try:
        round_id = wait_for_pending(server)
        voided = casino.operator("POST", f"/v1/operator/rounds/{round_id}/void", json={"reason": "operator"})
    finally:
        playing.join()
        slow_wallet.faults()
    assert voided.status_code == 409, voided.text
    assert voided.json()["error"] == "REQUEST_IN_PROGRESS" and voided.json()["field"] == "round"
    assert "refunded" not in voided.json()
    played = answers[0]
    assert played.status_code == 200, played.text
    assert played.json()["round"]["id"] == round_id and played.json()["round"]["status"] == "complete"
    assert server.outbox.drain(timeout=30, target="wallet")
    assert slow_wallet.balance(player.player_id) == played.json()["balance"]
    with server.engine.connect() as conn:
        assert audit(conn) == []
        kinds = conn.execute(select(ledger.c.kind).where(ledger.c.round_id == round_id)).scalars().all()
    assert "stake" in kinds and "refund" not in kinds, kinds


def wait_for_pending(server, timeout: float = 5.0) -> int:
    """The id of the round whose debit is at the wallet, once there is one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with server.engine.connect() as conn:
            found = conn.execute(select(rounds.c.id).where(rounds.c.status == "pending")).scalar()
        if found is not None:
            return found
        time.sleep(0.01)
    raise AssertionError(f"no round waited for its debit within {timeout} s")


# -- an autoplay plan is bound to its game and bet ------------------------------------------------

def test_an_autoplay_plan_plays_only_its_game_and_bet_so_its_loss_limit_holds(make_api, games):
    """A plan agreed at 0.20 a round with a loss limit of 1.00 cannot be cited by a round of 20.00
    (which would lose 19.00 past the limit) nor by a round of another game."""
    player = make_api(qa=True).fun_player()
    lose = losing_screen(games["dynasty"])
    plan = player.post("/v1/autoplay", {"game": "dynasty", "rounds": 100, "cash_decrease": "1.00"}).json()
    bigger = player.play(bet={"coin_value": "1.00"}, autoplay=plan["id"], script={"screens": [lose]})
    assert bigger.status_code == 422 and bigger.json()["field"] == "bet", bigger.text
    other = player.play(game="golden-grimoire", autoplay=plan["id"])
    assert other.status_code == 422 and other.json()["field"] == "game", other.text
    # Its own bet given in full (defaults written out) is its bet.
    same = {"lines": 20, "coins_per_line": 1, "coin_value": "0.01"}
    stakes = []
    while True:
        answer = player.play(bet=same, autoplay=plan["id"], script={"screens": [lose]})
        if answer.status_code == 409:
            assert answer.json()["reason"] == "cash_decrease"
            break
        assert answer.status_code == 200, answer.text
        stakes.append(Decimal(answer.json()["round"]["total_bet"]))
    assert stakes == [Decimal("0.20")] * 5, "five losing rounds of 0.20 reach the limit of 1.00 exactly"
    assert player.get("/v1/session").json()["balance"] == "999.00"
    assert player.get(f"/v1/autoplay/{plan['id']}").json()["net"] == "-1.00"


# -- fun sessions are rationed and swept ----------------------------------------------------------

def test_fun_sessions_are_rationed_per_address_with_retry_after(make_api, clock):
    api = make_api(fun_sessions_per_minute=3)
    opened = [api.client.post("/v1/fun-sessions", json={"currency": "EUR"}) for _ in range(4)]
    assert [a.status_code for a in opened] == [200, 200, 200, 429]
    refused = opened[-1]
    assert refused.json()["error"] == "RATE_LIMITED" and "3 a minute" in refused.json()["message"]
    assert refused.headers["Retry-After"] == "60"
    other = TestClient(api.client.app, client=("192.0.2.7", 4000))  # another address has its own ration
    assert other.post("/v1/fun-sessions", json={"currency": "EUR"}).status_code == 200
    clock.advance(30)
    again = api.client.post("/v1/fun-sessions", json={"currency": "EUR"})
    assert again.status_code == 429 and again.headers["Retry-After"] == "30"
    clock.advance(30)
    assert api.client.post("/v1/fun-sessions", json={"currency": "EUR"}).status_code == 200
    with api.client.app.state.server.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(players).where(players.c.fun.is_(True))).scalar() == 5


def test_idle_fun_players_are_swept_with_all_they_left_and_real_players_stay(make_api, clock, games):
    api = make_api(fun_idle_minutes=90)  # sessions expire after 30 minutes: the longer time counts
    real = api.player("10.00")
    real_round = real.play().json()["round"]["id"]
    idle = api.fun_player()
    assert idle.play().status_code == 200
    assert idle.post("/v1/autoplay", {"game": "dynasty", "rounds": 5, "cash_decrease": "1.00"}).status_code == 200
    server = api.client.app.state.server

    def fun_rows() -> dict[str, int]:
        with server.engine.connect() as conn:
            fun_ids = select(players.c.id).where(players.c.fun.is_(True))
            return {table.name: conn.execute(select(func.count()).select_from(table).where(
                table.c.player_id.in_(fun_ids))).scalar() for table in (rounds, ledger, sessions, idempotency)}

    assert all(fun_rows().values())

    def fun_players() -> int:
        with server.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(players).where(players.c.fun.is_(True))).scalar()

    clock.advance(89 * 60)
    assert api.client.post("/v1/fun-sessions", json={"currency": "EUR"}).status_code == 200  # a sweep: none idle
    assert fun_players() == 2, "idle 89 minutes of 90: kept"
    clock.advance(2 * 60)
    fresh = api.fun_player()  # a sweep: the first fun player, idle 91 minutes, goes
    assert fun_players() == 2, "the one opened at 89 minutes and this one"
    assert fresh.get("/v1/session").status_code == 200
    with server.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(autoplays)).scalar() == 0
        assert audit(conn) == []
    clock.advance(91 * 60)
    assert api.client.app.state.fun_sessions.sweep() == 2
    assert fun_rows() == {"rounds": 0, "ledger": 0, "sessions": 0, "idempotency": 0}
    with server.engine.connect() as conn:
        kept = conn.execute(select(rounds.c.id).join(players, players.c.id == rounds.c.player_id)
                            .where(players.c.external_id == real.player_id)).scalars().all()
    assert kept == [real_round], "real play is never swept"


# -- a request uvicorn cannot parse is answered in the server's error form ------------------------

UNREADABLE = [
    b"POST /v1/rounds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}",
    b"POST /v1/rounds HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}",
    b"POST /v1/rounds HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    b"GET /v1/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
    b"NOT-HTTP\r\n\r\n",
]


def raw_exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes on a fresh connection; the status, headers and body of the answer (read until
    the server closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, body


def assert_json_400(answer: tuple[int, dict[str, str], bytes]) -> None:
    status, headers, body = answer
    assert status == 400, (status, body)
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)
    assert error["error"] == "INVALID_REQUEST" and error["message"].startswith("request: "), error


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``slotforge serve`` as a real process on SQLite (the answer comes before any database)."""
    folder = tmp_path_factory.mktemp("served")
    server = ServerProcess(f"sqlite:///{folder / 'rgs.db'}", folder / "server.log").start()
    yield server
    server.kill()


@pytest.mark.parametrize("request_bytes", UNREADABLE)
def test_an_unparseable_request_gets_a_json_400_from_the_server_process(served, request_bytes):
    assert_json_400(raw_exchange(served.port, request_bytes))
    assert httpx.get(f"{served.url}/v1/health", timeout=10).status_code == 200, "the server serves on"


@pytest.mark.parametrize("protocol", ["JsonErrorsH11", "JsonErrorsHttpTools"])
def test_both_of_uvicorns_parsers_answer_an_unparseable_request_in_json(protocol):
    """The protocol of ``slotforge serve`` is httptools' when installed, else h11's: both answer."""
    config = uvicorn.Config(FastAPI(), host="127.0.0.1", port=free_port(), http=f"slotforge.rgs.api.http:{protocol}",
                            log_level="critical")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        for request in UNREADABLE:
            assert_json_400(raw_exchange(config.port, request))
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize(("field", "value"), [("fun_balance", 1000.5), ("gamble_limit", "1e3"),
                                              ("jackpot_rates", {"GBP": 1.17}),
                                              ("jurisdictions", {"capped": {"max_stake": 5}})])
def test_a_settings_amount_is_strict_text_too(field, value):
    """A TOML number is a float: an amount in the settings file is written as a string."""
    with pytest.raises(SettingsError, match=rf"^{field}(\.[A-Za-z_.]+)?: expected a decimal string"):
        load_settings(None, **{field: value})
    assert load_settings(None, fun_balance="12.50", jackpot_rates={"GBP": "1.17"},
                         jurisdictions={"capped": {"max_stake": "5.00"}}).fun_balance == Decimal("12.50")
