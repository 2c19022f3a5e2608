"""Fixtures of the game server's tests: a fresh database on SQLite and on PostgreSQL, the server
in this process (fast, with a clock the test moves) and as a real process (for crashes and
several servers on one database).

PostgreSQL is found at ``SLOTFORGE_TEST_POSTGRES`` (127.0.0.1:5432 by default, user postgres, no
password), where the session starts a throwaway cluster if none answers (``tests/postgres.py``);
each test gets a database of its own. Without either the PostgreSQL tests skip, except under CI,
where they fail (see ``tests/services.py``).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import postgres
import psycopg
import pytest
from fastapi.testclient import TestClient
from services import missing

from slotforge.engine import round as runner
from slotforge.rgs.api import access
from slotforge.rgs.app import create_app, load_games
from slotforge.rgs.settings import load_settings

BACKENDS = ["sqlite", "postgresql"]
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="session")
def games():
    """Every game, loaded once: compiles the rounds or loads them from the disk cache, which the
    server processes started later share."""
    return load_games(None)


def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database; dropped afterwards."""
    name = f"slotforge_rgs_{secrets.token_hex(4)}"
    try:
        admin = psycopg.connect(postgres.admin_dsn(), autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        host, port = postgres.address()
        missing(f"PostgreSQL at {host}:{port} is not reachable: {error}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield postgres.url(name)
    finally:
        with psycopg.connect(postgres.admin_dsn(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_for(backend: str, tmp_path: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'rgs.db'}"
    else:
        yield from postgres_database()


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path) -> Iterator[str]:
    yield from database_for(request.param, tmp_path)


@pytest.fixture(scope="module", params=BACKENDS)
def module_database_url(request, tmp_path_factory) -> Iterator[str]:
    yield from database_for(request.param, tmp_path_factory.mktemp("db"))


class FakeClock:
    """The server's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Api:
    """A client of one server with an operator key, and helpers for players."""

    client: Any  # TestClient or httpx.Client
    operator_key: str
    counter: list[int] = field(default_factory=lambda: [0])

    def operator(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.request(method, path, headers={"X-Api-Key": self.operator_key}, **kwargs)

    def player(self, balance: str = "100.00", jurisdiction: str = "default", player_id: str | None = None,
               currency: str = "EUR") -> Player:
        player_id = player_id or f"p-{secrets.token_hex(6)}"
        answer = self.operator("POST", "/v1/operator/sessions", json={
            "player_id": player_id, "currency": currency, "jurisdiction": jurisdiction})
        assert answer.status_code == 200, answer.text
        if balance != "0.00":
            deposit = self.operator("POST", f"/v1/operator/players/{player_id}/transactions",
                                    json={"kind": "deposit", "amount": balance, "reference": f"d-{player_id}"})
            assert deposit.status_code == 200, deposit.text
        return Player(self.client, answer.json()["token"], player_id)

    def fun_player(self) -> Player:
        answer = self.client.post("/v1/fun-sessions", json={"currency": "EUR"})
        assert answer.status_code == 200, answer.text
        return Player(self.client, answer.json()["token"], "fun")


@dataclass
class Player:
    client: Any
    token: str
    player_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def post(self, path: str, body: Any, key: str | None = None) -> httpx.Response:
        key = key or secrets.token_hex(8)
        return self.client.post(path, json=body, headers={**self.headers, "Idempotency-Key": key})

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.get(path, headers=self.headers, **kwargs)

    def play(self, game: str = "dynasty", bet: dict | None = None, key: str | None = None, **extra: Any):
        return self.post("/v1/rounds", {"game": game, "bet": bet or {}, **extra}, key)

    def finish(self, answer: httpx.Response) -> dict[str, Any]:
        """Answer every decision of a round with its first option until it completes."""
        body = answer.json()
        while body["round"]["status"] == "awaiting":
            choice = body["round"]["awaiting"]["options"][0]
            answer = self.post(f"/v1/rounds/{body['round']['id']}/decisions", {"choice": choice})
            assert answer.status_code == 200, answer.text
            body = answer.json()
        return body


def make_operator(app) -> str:
    server = app.state.server
    with server.transaction() as conn:
        return access.add_operator(conn, f"op-{secrets.token_hex(4)}", server.now())


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_api(games, database_url, clock):
    """Build an in-process server for settings overrides: ``make_api(qa=True, games=...)``."""
    clients = []

    def build(game_objects: dict | None = None, operator_key: str | None = None, **overrides: Any) -> Api:
        """A server on the test's database; ``operator_key`` of an earlier one restarts it."""
        settings = load_settings(None, database_url=database_url, **overrides)
        app = create_app(settings, games=game_objects if game_objects is not None else games, clock=clock)
        client = TestClient(app)
        clients.append(client)
        return Api(client, operator_key or make_operator(app))

    yield build
    for client in clients:
        client.app.state.server.seamless.calls.close()
        client.app.state.server.engine.dispose()


@pytest.fixture
def api(make_api) -> Api:
    return make_api()


# -- the server as a real process ---------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(args: list[str], env: dict[str, str], log: Path, health_url: str, what: str,
           timeout: float) -> subprocess.Popen:
    """Start a server process (its output appended to ``log``) and wait until ``health_url``
    answers 200 and, for a game server, says that its games are ready (compiled in the background
    on a first start); fails with the log's tail if it exits or is not ready in ``timeout`` seconds."""
    with open(log, "a") as out:
        process = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            answer = httpx.get(health_url, timeout=1)
            if answer.status_code == 200 and answer.json().get("ready", True):
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} not ready in {timeout} s: {log.read_text()[-2000:]}")


class ServerProcess:
    """``slotforge serve`` in a process of its own, started and killed by the test."""

    def __init__(self, database_url: str, log: Path, games: str = '["dynasty"]', qa: bool = False,
                 extra_env: dict[str, str] | None = None, config: Path | None = None) -> None:
        self.database_url = database_url
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PYTHONPATH": str(SRC), "SLOTFORGE_GAMES": games, **(extra_env or {})}
        self.args = [sys.executable, "-m", "slotforge.cli", "serve", "--port", str(self.port),
                     "--database", database_url, *(["--qa"] if qa else []),
                     *(["--config", str(config)] if config else [])]
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> ServerProcess:
        self.process = launch(self.args, self.env, self.log, f"{self.url}/v1/health", "server", timeout)
        return self

    def kill(self) -> None:
        """``kill -9``: no shutdown, no flush."""
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def operator_key(self) -> str:
        out = subprocess.run([sys.executable, "-m", "slotforge.cli", "operator", "add", f"op-{secrets.token_hex(4)}",
                              "--database", self.database_url], env=self.env, capture_output=True, text=True,
                             check=True)
        return out.stdout.strip()


def audit(database_url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "slotforge.cli", "audit", "--database", database_url],
                          env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True, text=True)


def screen_winning(game, wins) -> tuple[list[list[str]], str]:
    """A first screen of ``game`` at the default bet whose base-game win satisfies ``wins``
    (a predicate on the amount), with that amount; found by playing seeded rounds."""
    for seed in range(5000):
        record = runner.play(game, None, source=runner.seeded_words(seed))
        base = record["steps"][0]
        amount = sum((Decimal(w["amount"]) for w in base["wins"]), Decimal("0.00"))
        if len(record["steps"]) == 1 and not base["events"] and wins(amount):
            return base["screen"], str(amount)
    raise AssertionError("no such screen in 5000 seeds")


def losing_screen(game) -> list[list[str]]:
    """A first screen of ``game`` that wins nothing."""
    return screen_winning(game, lambda amount: amount == 0)[0]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A jackpot service process on its own SQLite database, shared by a test module."""
    from .jackpot_processes import service_on

    with service_on("sqlite", tmp_path_factory.mktemp("jackpot")) as running:
        yield running
