"""Recall at volume: thousands of rounds of every game played through a real server process by
players at once; every stored round replays to a match, and each player's ``GET /v1/rounds``
answers their newest rounds, newest first.

SQLite plays ``ROUNDS["sqlite"]`` (10,000) rounds of every game; PostgreSQL, whose round trips
cost more, plays a tenth of that, to keep the suite's time. The games are the registry's, so a
game added to it is covered with no change here.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import Counter

import httpx
from sqlalchemy import select

from slotforge.engine import round as runner
from slotforge.games import game_codes
from slotforge.rgs.database import connect
from slotforge.rgs.schema import rounds

from .conftest import ServerProcess, audit

ROUNDS = {"sqlite": 10_000, "postgresql": 1_000}
PLAYERS_PER_GAME = 8
# Gamble off: fewer requests per round; decisions the games still ask for (a bonus start) are
# answered with their first option.
SETTINGS = "[jurisdictions.recall]\ngamble = false\n"


async def play(client: httpx.AsyncClient, token: str, game: str, count: int) -> list[int]:
    """``count`` rounds of ``game`` back to back; the round ids in the order played."""
    headers = {"Authorization": f"Bearer {token}"}
    played = []
    for _ in range(count):
        answer = await client.post("/v1/rounds", json={"game": game},
                                   headers={**headers, "Idempotency-Key": secrets.token_hex(12)})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        while body["round"]["status"] == "awaiting":
            choice = body["round"]["awaiting"]["options"][0]
            answer = await client.post(f"/v1/rounds/{body['round']['id']}/decisions", json={"choice": choice},
                                       headers={**headers, "Idempotency-Key": secrets.token_hex(12)})
            assert answer.status_code == 200, answer.text
            body = answer.json()
        played.append(body["round"]["id"])
    return played


async def open_players(client: httpx.AsyncClient, key: str) -> dict[tuple[str, int], str]:
    """A funded session for each player of each game."""
    tokens = {}
    for game in game_codes():
        for n in range(PLAYERS_PER_GAME):
            player = f"{game}-{n}"
            session = await client.post("/v1/operator/sessions", headers={"X-Api-Key": key},
                                        json={"player_id": player, "currency": "EUR", "jurisdiction": "recall"})
            deposit = await client.post(f"/v1/operator/players/{player}/transactions", headers={"X-Api-Key": key},
                                        json={"kind": "deposit", "amount": "1000000.00", "reference": player})
            assert session.status_code == deposit.status_code == 200, (session.text, deposit.text)
            tokens[game, n] = session.json()["token"]
    return tokens


async def play_everything(url: str, key: str, per_game: int) -> dict[str, tuple[str, list[int]]]:
    """Every player of every game plays their share at once; each player's token and round ids."""
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        tokens = await open_players(client, key)
        share = per_game // PLAYERS_PER_GAME
        ids = await asyncio.gather(*(play(client, token, game, share) for (game, _), token in tokens.items()))
    return {f"{game}-{n}": (token, played) for ((game, n), token), played in zip(tokens.items(), ids, strict=True)}


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
        players = asyncio.run(play_everything(server.url, server.operator_key(), per_game))
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for token, played in players.values():
                headers = {"Authorization": f"Bearer {token}"}
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
    mismatched = [json.loads(record)["game"] for game, _, record in stored
                  if not runner.replay(games[game], json.loads(record))[0]]
    assert mismatched == []
    checked = audit(database_url)
    assert checked.returncode == 0, checked.stderr
