"""The seamless wallet with real processes: a game server (``slotforge serve``) whose operator
keeps the money in ``slotforge wallet-demo``, played by several client threads.

- 1,000 rounds while the wallet fails, hangs, answers late and loses replies at random: at the
  end both sides' books agree to the cent, transaction by transaction; no round is paid twice or
  lost; every player saw a result or 503 with nothing taken.
- ``kill -9`` of the game server and of the wallet in the middle of the traffic: after the
  restarts the outbox drains (held rollbacks of the killed rounds included) and the books agree.
- A request retried on a second server process while its debit is at the wallet sends no second
  debit.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from .conftest import ServerProcess, audit
from .wallets import WalletProcess, add_operator, reconcile, settings_file, wait_until_settled

# Short time-outs keep the test quick: a debit has 2 tries of 0.2 s; a hung call hangs 0.3 s.
OPERATOR_SETTINGS = {"timeout_s": 0.2, "debit_attempts": 2, "rollback_hold_s": 3}


class Player(threading.Thread):
    """Plays Dynasty (no gamble: one request per round) until it has ``rounds`` answers or is
    stopped. Keeps each answer by idempotency key; a request cut off by a crash is kept as lost
    and retried with its key once the server is back."""

    def __init__(self, url: str, token: str, rounds: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.headers, self.rounds, self.stop = url, {"Authorization": f"Bearer {token}"}, rounds, stop
        self.answers: dict[str, tuple[int, dict]] = {}
        self.lost: list[str] = []

    def send(self, client: httpx.Client, key: str) -> None:
        try:
            answer = client.post("/v1/rounds", json={"game": "dynasty"},
                                 headers={**self.headers, "Idempotency-Key": key})
        except httpx.HTTPError:
            self.lost.append(key)
            return
        self.answers[key] = (answer.status_code, answer.json())

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while len(self.answers) < self.rounds and not self.stop.is_set() and not self.lost:
                self.send(client, secrets.token_hex(10))

    def retry_lost(self) -> None:
        """Retry each request cut off by a crash. While the killed process's debit may still be
        at the wallet the retry is refused (409) and sends no debit; once that debit's held
        rollback is delivered (``rollback_hold_s``), the retry plays."""
        with httpx.Client(base_url=self.url, timeout=30) as client:
            lost, self.lost = self.lost, []
            for key in lost:
                deadline = time.monotonic() + 30
                self.send(client, key)
                while self.answers.get(key, (0, {}))[1].get("error") == "REQUEST_IN_PROGRESS":
                    assert time.monotonic() < deadline, f"{key}: still in progress after 30 s"
                    time.sleep(0.5)
                    self.send(client, key)
        assert not self.lost


def start(database_url: str, folder: Path, *wallet_options: str) -> tuple[ServerProcess, WalletProcess, str]:
    wallet = WalletProcess(folder, "--new-player-balance", "1000.00", "--hang-s", "0.3", *wallet_options).start()
    config = settings_file(folder, wallet.url, **OPERATOR_SETTINGS)
    server = ServerProcess(database_url, folder / "server.log", config=config).start()
    return server, wallet, add_operator(database_url)


def tokens(server: ServerProcess, key: str, count: int) -> list[str]:
    found = []
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for n in range(count):
            answer = client.post("/v1/operator/sessions", headers={"X-Api-Key": key}, json={
                "player_id": f"player-{n}", "currency": "EUR", "jurisdiction": "nogamble"})
            assert answer.status_code == 200, answer.text
            found.append(answer.json()["token"])
    return found


def check_answers(players: list[Player], books: dict) -> dict[int, int]:
    """Every answer a player saw: a played round (200) complete on both sides with the win it
    showed, or 503 for a void round whose stake the wallet does not hold."""
    rolled_back = {r["transaction_id"] for r in books["rollbacks"]}
    taken = {tx["id"] for tx in books["transactions"] if tx["kind"] == "debit" and tx["status"] == "applied"}
    codes = {}
    for player in players:
        for status, answer in player.answers.values():
            codes[status] = codes.get(status, 0) + 1
            assert status in (200, 503), answer
            if status == 200:
                debit = answer["round"]["wallet"]["transaction_id"]
                assert answer["round"]["status"] == "complete" and debit in taken
                continue
            assert answer["error"] == "WALLET_UNAVAILABLE"
            stored = httpx.get(f"{player.url}/v1/rounds/{answer['round']}", headers=player.headers,
                               timeout=30).json()["round"]
            assert stored["status"] == "void" and stored["wallet"]["transaction_id"] in rolled_back
            assert stored["wallet"]["transaction_id"] not in taken, "a 503 round took the stake"
    return codes


def test_a_thousand_rounds_against_a_misbehaving_wallet_leave_both_books_agreeing(tmp_path):
    database_url = f"sqlite:///{tmp_path / 'rgs.db'}"
    server, wallet, key = start(database_url, tmp_path, "--fail", "0.03", "--timeout", "0.02", "--late", "0.02",
                                "--twice", "0.03", "--seed", "20261203")
    try:
        stop = threading.Event()
        players = [Player(server.url, token, 125, stop) for token in tokens(server, key, 8)]
        for player in players:
            player.start()
        for player in players:
            player.join(300)
        assert not any(p.lost for p in players)
        injected = wallet.injected()
        wallet.faults()  # the wallet recovers; what is owed to it is delivered
        wait_until_settled(database_url)
        books = wallet.books()
        codes = check_answers(players, books)
        counted = reconcile(database_url, books)
    finally:
        server.kill()
        wallet.kill()
    assert sum(codes.values()) == 1000
    assert min(injected.values()) >= 10, f"every fault really struck: {injected}"
    assert codes.get(503, 0) >= 1, f"some debits failed every try: {codes}"
    assert counted["complete"] == codes[200] and counted["void"] == codes[503]
    checked = audit(database_url)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_of_the_server_and_of_the_wallet_mid_traffic_and_the_books_still_agree(backend, tmp_path, request):
    if backend == "sqlite":
        database_url = f"sqlite:///{tmp_path / 'rgs.db'}"
    else:
        database_url = request.getfixturevalue("postgres_url")
    server, wallet, key = start(database_url, tmp_path, "--late", "0.02", "--twice", "0.02", "--seed", "7")
    chance = random.Random(20261203)
    players: list[Player] = []
    try:
        player_tokens = tokens(server, key, 6)
        for victim in ["server", "wallet", "server"]:
            stop = threading.Event()
            cycle = [Player(server.url, token, 10_000, stop) for token in player_tokens]
            for player in cycle:
                player.start()
            time.sleep(chance.uniform(0.8, 1.6))
            (server if victim == "server" else wallet).kill()
            time.sleep(0.3)  # rounds meet the dead wallet: 503, rollbacks owed
            stop.set()
            for player in cycle:
                player.join(30)
            (server if victim == "server" else wallet).start()
            for player in cycle:
                player.retry_lost()
            players += cycle
        wait_until_settled(database_url)
        books = wallet.books()
        check_answers(players, books)
        counted = reconcile(database_url, books)
    finally:
        server.kill()
        wallet.kill()
    assert counted["complete"] >= 50, counted
    assert counted["void after a crash"] >= 1, f"a kill really struck between a debit and its round's commit: {counted}"
    checked = audit(database_url)
    assert checked.returncode == 0, checked.stderr


@pytest.fixture
def postgres_url():
    from .conftest import postgres_database

    yield from postgres_database()


def test_twin_requests_reaching_two_server_processes_send_one_debit(database_url, tmp_path):
    """A request retried on another server process while its debit is still at the wallet (a
    load balancer's retry, say) gets 409 and sends no second debit; once the first is answered,
    the retry gets its stored answer."""
    wallet = WalletProcess(tmp_path, "--new-player-balance", "100.00", "--late", "1.0", "--hang-s", "1.5").start()
    config = settings_file(tmp_path, wallet.url, timeout_s=5, debit_attempts=1, rollback_hold_s=20)
    processes = [ServerProcess(database_url, tmp_path / f"server-{n}.log", config=config) for n in range(2)]
    try:
        for process in processes:
            process.start()
        token = tokens(processes[0], add_operator(database_url), 1)[0]
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "twin-1"}

        def play(process: ServerProcess) -> httpx.Response:
            return httpx.post(f"{process.url}/v1/rounds", json={"game": "dynasty"}, headers=headers, timeout=30)

        with ThreadPoolExecutor(1) as first_process:
            first = first_process.submit(play, processes[0])
            wallet.wait_for_debits(1)  # the first request's debit is at the wallet, answered only after 1.5 s
            twin = play(processes[1])
            played = first.result()
        assert played.status_code == 200, played.text
        assert twin.status_code == 409 and twin.json()["error"] == "REQUEST_IN_PROGRESS", twin.text
        retried = play(processes[1])
        assert retried.status_code == 200 and retried.json() == played.json()
        wait_until_settled(database_url)
        books = wallet.books()
        debits = [tx for tx in books["transactions"] if tx["kind"] == "debit"]
        assert [tx["id"] for tx in debits] == [played.json()["round"]["wallet"]["transaction_id"]]
        assert books["rollbacks"] == []
    finally:
        for process in processes:
            process.kill()
        wallet.kill()
