"""Recall at volume: thousands of rounds of every game played through a real server process by
players at once; every stored round replays to a match, and each player's ``GET /v1/rounds``
answers their newest rounds, newest first.

SQLite plays ``ROUNDS["sqlite"]`` (2,000) rounds of every game; PostgreSQL, whose round trips
cost more, plays 500, to keep the suite's time. The games are the registry's, so a
game added to it is covered with no change here.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
from sqlalchemy import select

from slotforge.db import connect
from slotforge.engine import round as runner
from slotforge.games import game_codes
from slotforge.rgs.schema import rounds

from .conftest import ServerProcess, audit

ROUNDS = {"sqlite": 2_000, "postgresql": 500}
PLAYERS_PER_GAME = 8
# Gamble off: fewer requests per round; decisions the games still ask for (a bonus start) are
# answered with their first option.
SETTINGS = "[jurisdictions.recall]\ngamble = false\n"


class Connection:
    """One player's keep-alive HTTP/1.1 connection, written and read by hand: tens of thousands
    of requests cost a full HTTP client more CPU than the server it shares the machine with."""

    def __init__(self, port: int, headers: dict[str, str]) -> None:
        self.port, self.headers = port, headers

    async def __aenter__(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        return self

    async def __aexit__(self, *_: object) -> None:
        self.writer.close()

    async def post(self, path: str, body: dict, key: str | None = None) -> tuple[int, dict]:
        """POST ``body`` as JSON with a fresh Idempotency-Key; the status and the JSON answer."""
        data = json.dumps(body).encode()
        headers = {**self.headers, "Content-Type": "application/json", "Content-Length": str(len(data)),
                   "Idempotency-Key": key or secrets.token_hex(12)}
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}\r\n".encode() + data)
        answer = await self.reader.readuntil(b"\r\n\r\n")
        length = next(int(line[15:]) for line in answer.split(b"\r\n") if line[:15].lower() == b"content-length:")
        return int(answer[9:12]), json.loads(await self.reader.readexactly(length))


async def play(port: int, headers: dict[str, str], game: str, count: int) -> list[int]:
    """``count`` rounds of ``game`` back to back; the round ids in the order played."""
    played = []
    async with Connection(port, headers) as connection:
        for _ in range(count):
            status, body = await connection.post("/v1/rounds", {"game": game})
            assert status == 200, body
            while body["round"]["status"] == "awaiting":
                choice = body["round"]["awaiting"]["options"][0]
                status, body = await connection.post(f"/v1/rounds/{body['round']['id']}/decisions", {"choice": choice})
                assert status == 200, body
            played.append(body["round"]["id"])
    return played


def open_players(url: str, key: str) -> dict[str, str]:
    """A funded session for each player of each game: their tokens by player id."""
    tokens = {}
    with httpx.Client(base_url=url, timeout=60, headers={"X-Api-Key": key}) as client:
        for game in game_codes():
            for n in range(PLAYERS_PER_GAME):
                player = f"{game}:{n}"
                session = client.post("/v1/operator/sessions",
                                      json={"player_id": player, "currency": "EUR", "jurisdiction": "recall"})
                deposit = client.post(f"/v1/operator/players/{player}/transactions",
                                      json={"kind": "deposit", "amount": "1000000.00", "reference": player})
                assert session.status_code == deposit.status_code == 200, (session.text, deposit.text)
                tokens[player] = session.json()["token"]
    return tokens


async def play_everything(port: int, tokens: dict[str, str], per_game: int) -> dict[str, list[int]]:
    """Every player of every game plays their share at once; each player's round ids."""
    share = per_game // PLAYERS_PER_GAME
    ids = await asyncio.gather(*(play(port, {"Authorization": f"Bearer {token}"}, player.split(":")[0], share)
                                 for player, token in tokens.items()))
    return dict(zip(tokens, ids, strict=True))


def stored_rounds(database_url: str) -> list[tuple[str, str, str]]:
    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            return conn.execute(select(rounds.c.game, rounds.c.status, rounds.c.record)).all()
    finally:
        engine.dispose()


def test_thousands_of_rounds_of_every_game_replay_and_recall_in_order(database_url, tmp_path, games):
    backend = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    per_game = ROUNDS[backend]
    config = tmp_path / "settings.toml"
    config.write_text(SETTINGS)
    server = ServerProcess(database_url, tmp_path / "server.log", games=json.dumps(game_codes()),
                           config=config).start()
    try:
        tokens = open_players(server.url, server.operator_key())
        # In a thread of its own: a browser test earlier in this process may leave its event loop running.
        with ThreadPoolExecutor(1) as thread:
            players = thread.submit(asyncio.run, play_everything(server.port, tokens, per_game)).result()
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for player, played in players.items():
                headers = {"Authorization": f"Bearer {tokens[player]}"}
                newest = client.get("/v1/rounds", params={"limit": 100}, headers=headers).json()["rounds"]
                assert [r["id"] for r in newest] == played[::-1][:100]
                page = client.get("/v1/rounds", params={"limit": 10, "before": newest[49]["id"]},
                                  headers=headers).json()["rounds"]
                assert [r["id"] for r in page] == played[::-1][50:60]
                assert client.get(f"/v1/rounds/{played[-1]}", headers=headers).json()["verified"] is True
    finally:
        server.kill()

    stored = stored_rounds(database_url)
    share = per_game // PLAYERS_PER_GAME * PLAYERS_PER_GAME
    assert Counter(game for game, _, _ in stored) == {game: share for game in game_codes()}
    assert {status for _, status, _ in stored} == {"complete"}
    mismatched = [(game, record) for game, _, record in stored if not runner.replay(games[game], json.loads(record))[0]]
    assert mismatched == [], f"{len(mismatched)} stored rounds do not replay; the first: {mismatched[:1]}"
    checked = audit(database_url)
    assert checked.returncode == 0, checked.stderr
