"""``POST /v1/rounds`` on its bare ASGI route answers as FastAPI's route of the same path would:
the same status, error code and field for every refusal, the same kind of round for a played
one; and a response's head and body leave the server in one write."""

from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from slotforge.rgs.api.http import MAX_BODY_BYTES, OneSendPerTurn

JSON = {"Content-Type": "application/json"}
# (what is sent, the answer expected of both routes)
REFUSALS: list[tuple[str, dict[str, Any], tuple[int, str, str | None]]] = [
    ("no session", {"json": {"game": "dynasty"}, "token": None}, (401, "INVALID_SESSION", "Authorization")),
    ("no key", {"json": {"game": "dynasty"}, "key": None}, (400, "IDEMPOTENCY_KEY_MISSING", "Idempotency-Key")),
    ("not JSON", {"content": b"{", "headers": JSON}, (422, "VALIDATION", "body")),
    ("not an object", {"content": b"[1]", "headers": JSON}, (422, "VALIDATION", "body")),
    ("an unknown field", {"json": {"game": "dynasty", "coins": 5}}, (422, "VALIDATION", "coins")),
    ("a game as a number", {"json": {"game": 5}}, (422, "VALIDATION", "game")),
    ("no game", {"json": {"bet": {}}}, (422, "VALIDATION", "game")),
    ("a game not offered", {"json": {"game": "roulette"}}, (403, "GAME_NOT_ALLOWED", "game")),
    ("a bet outside the options", {"json": {"game": "dynasty", "bet": {"coin_value": "0.03"}}},
     (422, "INVALID_BET", "bet.coin_value")),
    ("a script outside QA", {"json": {"game": "dynasty", "script": {}}}, (403, "FEATURE_DISABLED", "script")),
    ("a body too large", {"content": b'{"game": "' + b"x" * MAX_BODY_BYTES + b'"}', "headers": JSON},
     (413, "VALIDATION", "body")),
]


@pytest.fixture
def routes(make_api):
    """The same server twice on one database: with its bare round route, and without it (FastAPI's)."""
    bare, plain = make_api(), make_api()
    plain.client.app.round_route = None
    return bare, plain


def send(api, player, token: str | None = "player", key: str | None = "fresh", **request: Any):
    headers = dict(request.pop("headers", {}))
    if token is not None:
        headers["Authorization"] = f"Bearer {player.token}"
    if key is not None:
        headers["Idempotency-Key"] = secrets.token_hex(8)
    return api.client.post("/v1/rounds", headers=headers, **request)


@pytest.mark.parametrize("what, request_, expected", REFUSALS, ids=[case[0] for case in REFUSALS])
def test_the_bare_route_refuses_as_fastapis_route_does(routes, what, request_, expected):
    bare, plain = routes
    answers = [send(api, api.player("10.00"), **request_) for api in (bare, plain)]
    for answer in answers:
        body = answer.json()
        assert (answer.status_code, body["error"], body.get("field")) == expected, (what, answer.text)
        assert answer.headers["content-type"] == "application/json"
    if what != "not an object":  # the bare route says "expected a JSON object", FastAPI's pydantic's words
        assert answers[0].json() == answers[1].json(), "same refusal, same words"


def test_both_routes_play_the_same_round_and_take_the_same_stake(routes):
    for api in routes:
        player = api.player("10.00")
        answer = player.play("dynasty", {"coin_value": "0.01"})
        assert answer.status_code == 200, answer.text
        played = answer.json()["round"]
        assert played["total_bet"] == "0.20" and played["balance_before"] == "10.00"
        assert player.get("/v1/rounds").json()["rounds"][0]["id"] == played["id"]


def test_a_response_head_and_body_leave_in_one_write():
    with ThreadPoolExecutor(1) as thread:  # a loop of its own: a browser test may run one in this thread
        thread.submit(writes_leave_together).result()


class Transport:
    """What a transport was asked to send, and whether it was closed."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


def writes_leave_together() -> None:
    loop = asyncio.new_event_loop()
    try:
        transport = Transport()
        coalesced = OneSendPerTurn(transport, loop)  # type: ignore[arg-type]
        coalesced.write(b"HTTP/1.1 200 OK\r\n\r\n")
        assert transport.sent == [], "the head waits for its body"
        coalesced.write(b"{}")
        assert transport.sent == [b"HTTP/1.1 200 OK\r\n\r\n{}"]
        coalesced.write(b"a lone write")
        loop.run_until_complete(asyncio.sleep(0))  # the end of the event loop's turn
        assert transport.sent[-1] == b"a lone write"
        coalesced.write(b"the last words")
        coalesced.close()
        assert transport.sent[-1] == b"the last words" and transport.closed, "closing sends what is held first"
        assert coalesced.get_extra_info("peername") == "extra peername", "the rest is the transport's own"
    finally:
        loop.close()
