"""A jackpot service that hangs holds up the round whose claim waits on it, and no other: the
claim's HTTP call is made before the round's transaction, outside any. On SQLite a transaction
is a savepoint of the shared group-commit batch, so a claim made inside one stalled every writer
of the server until the call timed out (5 s).

Real processes: a game server on SQLite and the jackpot service, frozen with ``kill -STOP`` (its
connections open and silent) while a player's bonus claims the Mega and another plays on.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import threading
import time

import httpx

from .conftest import ServerProcess, audit
from .test_jackpot_service import GAME, RATES, GameServer, wait_until

# How long before the hanging claim gives up another player's round must have been answered.
# The claim waits its whole time-out (5 s); a round stalled behind it is answered when the claim
# gives up (within milliseconds of it), one not stalled at once.
MARGIN_S = 1.0


def thaw(service) -> None:
    os.kill(service.process.pid, signal.SIGCONT)


def test_a_hanging_jackpot_service_does_not_stall_another_players_rounds_on_sqlite(service, tmp_path, games):
    env = {"SLOTFORGE_JACKPOT_URL": service.url, "SLOTFORGE_JACKPOT_RATES": json.dumps(RATES)}
    process = ServerProcess(f"sqlite:///{tmp_path / 'server.db'}", tmp_path / "server.log",
                            games=f'["{GAME}", "dynasty"]', extra_env=env).start()
    server = GameServer(process, games)
    try:
        winner, other = server.api.player("100.00"), server.api.player("100.00")
        wait_until(lambda: winner.get("/v1/jackpots").status_code == 200)  # the service's stream is heard
        mega = server.open_mega(winner)
        other.finish(other.play("dynasty"))  # a win waits at the gamble: collected

        service.freeze()
        decided: dict[str, object] = {}

        def claim_the_mega() -> None:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                decided["answer"] = client.post(f"/v1/rounds/{mega}/decisions", json={"choice": "start_bonus"},
                                                headers={**winner.headers, "Idempotency-Key": secrets.token_hex(8)})
                decided["at"] = time.monotonic()

        sent_at = time.monotonic()
        claiming = threading.Thread(target=claim_the_mega, daemon=True)
        claiming.start()
        rounds: list[tuple[float, float, int]] = []  # (sent, answered, status) of the other player's rounds
        while claiming.is_alive():
            started = time.monotonic()
            played = other.play("dynasty")
            if played.status_code == 200:
                other.finish(played)  # a win waits at the gamble: collected
            rounds.append((started, time.monotonic(), played.status_code))
        claiming.join()

        hung = decided["answer"]
        assert hung.status_code == 503 and "did not answer the claim" in hung.json()["message"], hung.text
        assert [status for _, _, status in rounds if status != 200] == [], rounds
        while_hanging = [(sent, answered) for sent, answered, _ in rounds
                         if sent - sent_at >= MARGIN_S and answered <= decided["at"] - MARGIN_S]
        assert while_hanging, f"no round of another player was answered while the claim hung: {rounds}"

        # Nothing of the hung claim was paid, and the round claims the Mega once the service is back.
        thaw(service)
        assert winner.get("/v1/session").json()["balance"] == "98.00"
        wait_until(lambda: winner.get("/v1/jackpots").status_code == 200)
        won = winner.post(f"/v1/rounds/{mega}/decisions", {"choice": "start_bonus"})
        assert won.status_code == 200, won.text
        assert won.json()["round"]["status"] == "complete" and won.json()["round"]["jackpot_win"] != "0.00"
        wait_until(lambda: server.pending() == 0)
    finally:
        thaw(service)
        server.close()
    assert audit(server.database_url).returncode == 0
