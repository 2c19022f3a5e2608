"""The server as real processes, on SQLite and on PostgreSQL: parallel rounds on one balance,
two servers on one database, and ``kill -9`` at random moments with rounds in flight.

One server process per database serves the whole module (start-up is the slow part); the crash
test, last, kills and restarts it.
"""

from __future__ import annotations

import json
import random
import secrets
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from slotforge.db import connect
from slotforge.engine import round as runner
from slotforge.rgs.audit import audit as check_books
from slotforge.rgs.rounds.claims import Claims
from slotforge.rgs.schema import rounds

from .conftest import Api, ServerProcess, audit, losing_screen

STAKE = Decimal("0.20")  # Dynasty's default bet: 20 lines x 1 coin x 0.01
FUN_BALANCE = "2.00"  # ten stakes
QA_ENV = {"SLOTFORGE_FUN_BALANCE": FUN_BALANCE}


@pytest.fixture(scope="module")
def served(module_database_url, tmp_path_factory, games):
    """A ``--qa`` server whose fun sessions hold ten stakes."""
    log = tmp_path_factory.mktemp("logs") / "server.log"
    server = ServerProcess(module_database_url, log, qa=True, extra_env=QA_ENV).start()
    yield server
    server.kill()


@pytest.fixture(scope="module")
def api(served) -> Api:
    client = httpx.Client(base_url=served.url, timeout=30)
    yield Api(client, served.operator_key())
    client.close()


def books(database_url: str) -> list[str]:
    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            return check_books(conn)
    finally:
        engine.dispose()


def parallel(requests: list[Any], workers: int = 50) -> list[httpx.Response]:
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda send: send(), requests))


def fun_player(url: str):
    with httpx.Client(base_url=url, timeout=30) as client:
        return client.post("/v1/fun-sessions", json={"currency": "EUR"}).json()["token"]


def losing_round(url: str, token: str, screen: list) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=60) as client:
        return client.post("/v1/rounds", json={"game": "dynasty", "script": {"screens": [screen]}},
                           headers={"Authorization": f"Bearer {token}", "Idempotency-Key": secrets.token_hex(8)})


def balance_of(url: str, token: str) -> str:
    return httpx.get(f"{url}/v1/session", headers={"Authorization": f"Bearer {token}"}).json()["balance"]


def test_fifty_parallel_losing_rounds_on_ten_stakes_exactly_ten_succeed(served, games):
    screen = losing_screen(games["dynasty"])
    token = fun_player(served.url)
    answers = parallel([lambda: losing_round(served.url, token, screen)] * 50)
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * 10 + [402] * 40
    assert {a.json()["error"] for a in answers if a.status_code == 402} == {"INSUFFICIENT_FUNDS"}
    assert balance_of(served.url, token) == "0.00"


def test_the_same_key_sent_ten_times_at_once_plays_one_round(served, api):
    player = api.player("10.00")
    body, key = {"game": "dynasty"}, secrets.token_hex(8)

    def send():
        with httpx.Client(base_url=served.url, timeout=60) as client:
            return client.post("/v1/rounds", json=body, headers={**player.headers, "Idempotency-Key": key})

    answers = parallel([send] * 10, workers=10)
    played = [a.json() for a in answers if a.status_code == 200]
    assert played and all(p == played[0] for p in played)
    assert {a.json()["error"] for a in answers if a.status_code != 200} <= {"REQUEST_IN_PROGRESS"}
    assert len(player.get("/v1/rounds").json()["rounds"]) == 1


def test_parallel_real_rounds_with_wins_keep_the_balance_at_the_ledgers_sum(served, api):
    player = api.player("2.00")

    def send():
        with httpx.Client(base_url=served.url, timeout=60) as client:
            answer = client.post("/v1/rounds", json={"game": "dynasty"},
                                 headers={**player.headers, "Idempotency-Key": secrets.token_hex(8)})
            if answer.status_code == 200 and answer.json()["round"]["status"] == "awaiting":
                client.post(f"/v1/rounds/{answer.json()['round']['id']}/decisions", json={"choice": "collect"},
                            headers={**player.headers, "Idempotency-Key": secrets.token_hex(8)})
            return answer

    answers = parallel([send] * 50)
    assert {a.status_code for a in answers} <= {200, 402, 409}
    rounds = player.get("/v1/rounds", params={"limit": 100}).json()["rounds"]
    assert all(Decimal(r["balance_after"]) >= 0 for r in rounds)
    assert audit(served.database_url).returncode == 0


def test_two_servers_on_one_database_share_one_balance_and_play_a_key_once(served, api, games, tmp_path):
    second = ServerProcess(served.database_url, tmp_path / "second.log", qa=True, extra_env=QA_ENV).start()
    try:
        screen = losing_screen(games["dynasty"])
        token = fun_player(served.url)
        urls = [served.url, second.url] * 25
        answers = parallel([lambda url=url: losing_round(url, token, screen) for url in urls])
        assert sorted(a.status_code for a in answers) == [200] * 10 + [402] * 40
        assert balance_of(second.url, token) == "0.00"

        # One key sent to both servers at once: one round; a twin waits for nothing.
        player, key = api.player("10.00"), secrets.token_hex(8)
        answers = parallel([lambda url=url: same_key_round(url, player.headers, key) for url in urls[:20]], workers=20)
        played = [a.json() for a in answers if a.status_code == 200]
        assert played and all(p == played[0] for p in played)
        assert {a.json()["error"] for a in answers if a.status_code != 200} <= {"REQUEST_IN_PROGRESS"}
        assert len(player.get("/v1/rounds").json()["rounds"]) == 1
    finally:
        second.kill()
    assert audit(served.database_url).returncode == 0


def same_key_round(url: str, headers: dict[str, str], key: str) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=60) as client:
        return client.post("/v1/rounds", json={"game": "dynasty"}, headers={**headers, "Idempotency-Key": key})


@contextmanager
def claimed(database_url: str, player_id: int, key: str) -> Iterator[None]:
    """Hold the claim on (player, key) from this process, as a server elsewhere running that
    request would."""
    engine = connect(database_url)
    claims = Claims(engine)
    try:
        with claims.outside(player_id, key), engine.begin() as conn:
            claims.inside(conn, player_id, key)
            yield
    finally:
        engine.dispose()


def test_a_key_claimed_in_another_process_answers_request_in_progress_until_released(served, api):
    player, key = api.player("10.00"), secrets.token_hex(8)
    player_id = player.get("/v1/session").json()["player"]
    with claimed(served.database_url, player_id, key):
        twin = player.play(key=key)
        assert twin.status_code == 409 and twin.json()["error"] == "REQUEST_IN_PROGRESS"
        other = player.play()  # another key of the same player is not held up
        assert other.status_code == 200, other.text
        other = player.finish(other)
    assert player.get("/v1/session").json()["balance"] == other["balance"]  # the twin took nothing
    first = player.play(key=key)
    assert first.status_code == 200, first.text
    assert player.play(key=key).json() == first.json()


# -- kill -9 -------------------------------------------------------------------------------------

# Kills at random moments of live traffic; a kill at each step of a round, one at a time, is
# test_fault_injection's.
KILLS = 6
PLAYERS = 4


class Client(threading.Thread):
    """A player who keeps playing Dynasty, collecting every win, until told to stop. It keeps
    every answered request (key, path, body, answer) and every request whose answer was lost."""

    def __init__(self, url: str, token: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.headers, self.stop = url, {"Authorization": f"Bearer {token}"}, stop
        self.answered: list[tuple[str, str, dict, dict]] = []
        self.lost: list[tuple[str, str, dict]] = []

    def send(self, client: httpx.Client, path: str, body: dict) -> httpx.Response | None:
        key = secrets.token_hex(12)
        try:
            answer = client.post(path, json=body, headers={**self.headers, "Idempotency-Key": key})
        except httpx.HTTPError:
            self.lost.append((key, path, body))
            return None
        if answer.status_code == 200:
            self.answered.append((key, path, body, answer.json()))
        return answer

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self.stop.is_set():
                answer = self.send(client, "/v1/rounds", {"game": "dynasty"})
                if answer is None:
                    return
                waiting = None
                if answer.status_code == 200 and answer.json()["round"]["status"] == "awaiting":
                    waiting = answer.json()["round"]["id"]
                elif answer.status_code == 409 and answer.json()["error"] == "ROUND_IN_PROGRESS":
                    waiting = answer.json()["round"]
                if waiting is not None and self.send(client, f"/v1/rounds/{waiting}/decisions",
                                                     {"choice": "collect"}) is None:
                    return


def test_kill_9_with_rounds_in_flight_loses_no_acknowledged_round(served, api, games):
    players = [api.player("1000.00") for _ in range(PLAYERS)]
    everyone: list[Client] = []
    chance = random.Random(20261202)
    for _ in range(KILLS):
        stop = threading.Event()
        clients = [Client(served.url, p.token, stop) for p in players]
        for client in clients:
            client.start()
        # Kill at a random moment once rounds are flowing (at least one answered this time).
        while not any(c.answered for c in clients) and all(c.is_alive() for c in clients):
            threading.Event().wait(0.01)
        threading.Event().wait(chance.uniform(0.0, 0.5))
        served.kill()
        stop.set()
        for client in clients:
            client.join(30)
        everyone += clients
        served.start()
        assert books(served.database_url) == [], "the books must balance after every crash"

    answered = [a for c in everyone for a in c.answered]
    assert len(answered) >= KILLS  # rounds really were played in every cycle
    assert sum(len(c.lost) for c in everyone) >= KILLS  # and the kills really cut some off
    with httpx.Client(base_url=served.url, timeout=30) as client:
        for client_of, (key, path, body, first) in ((c, a) for c in everyone for a in c.answered):
            retry = client.post(path, json=body, headers={**client_of.headers, "Idempotency-Key": key})
            assert retry.status_code == 200 and retry.json() == first
        for client_of in everyone:
            for key, path, body in client_of.lost:
                retry = client.post(path, json=body, headers={**client_of.headers, "Idempotency-Key": key})
                again = client.post(path, json=body, headers={**client_of.headers, "Idempotency-Key": key})
                if retry.status_code == 200:
                    assert again.json() == retry.json()
    checked = audit(served.database_url)
    assert checked.returncode == 0, checked.stderr
    assert every_round_replays(served.database_url, games) > len(answered) // 2


def every_round_replays(database_url: str, games) -> int:
    """Replay every stored round of the database; returns how many."""
    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(select(rounds.c.game, rounds.c.record).where(rounds.c.status != "void")).all()
    finally:
        engine.dispose()
    for game, record in stored:
        assert runner.replay(games[game], json.loads(record))[0]
    return len(stored)
