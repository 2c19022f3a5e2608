"""No operator stalls another, with real processes: operator A keeps its money in a wallet that
hangs on every debit, and with well over 100 of A's rounds in flight, operator B's players play
their rounds and the health check answers.

A stall is told apart from a busy machine by the wallet's time-out, not by the clock's usual
figures: a round of B queued behind A's hanging debits would wait out A's time-out (15 s) at
least, so every one of B's rounds finishing sooner, while A's rounds still hang, shows that B
never waited for A. B's latencies, unloaded and loaded, are printed (the machine is shared: they
are figures to read, not to hold).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from .conftest import Api, ServerProcess
from .wallets import WalletProcess, add_operator, settings_file

HANGING_ROUNDS = 150  # A's rounds sent at once (each lane runs 32; the rest wait their turn)
A_PLAYERS = 15
B_PLAYERS = 6
B_ROUNDS = 30  # per player and pass
WALLET_TIME_OUT_S = 15  # A's debit gives up after this (one try)


@pytest.fixture(scope="module")
def setup(module_database_url, tmp_path_factory, games):
    folder = tmp_path_factory.mktemp("isolation")
    wallet = WalletProcess(folder, "--new-player-balance", "1000.00").start()
    config = settings_file(folder, wallet.url, timeout_s=WALLET_TIME_OUT_S, debit_attempts=1, rollback_hold_s=40)
    key_a = add_operator(module_database_url)
    server = ServerProcess(module_database_url, folder / "server.log", config=config).start()
    yield server, wallet, key_a
    server.kill()
    wallet.kill()


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def play_b(url: str, tokens: list[str]) -> list[float]:
    """Every B player plays ``B_ROUNDS`` rounds back to back; each round's latency in seconds."""

    def player(token: str) -> list[float]:
        latencies = []
        with httpx.Client(base_url=url, timeout=60) as client:
            for _ in range(B_ROUNDS):
                started = time.perf_counter()
                answer = client.post("/v1/rounds", json={"game": "dynasty"}, headers={
                    "Authorization": f"Bearer {token}", "Idempotency-Key": secrets.token_hex(8)})
                assert answer.status_code == 200, answer.text
                latencies.append(time.perf_counter() - started)
        return latencies

    with ThreadPoolExecutor(len(tokens)) as pool:
        return [latency for each in pool.map(player, tokens) for latency in each]


class HangingLoad(threading.Thread):
    """A's rounds, all sent at once from an event loop of their own; counts those still waiting."""

    def __init__(self, url: str, tokens: list[str]) -> None:
        super().__init__(daemon=True)
        self.url, self.tokens = url, tokens
        self.waiting = 0
        self.statuses: list[int | str] = []

    async def one(self, client: httpx.AsyncClient, token: str) -> None:
        self.waiting += 1
        try:
            answer = await client.post("/v1/rounds", json={"game": "dynasty"}, headers={
                "Authorization": f"Bearer {token}", "Idempotency-Key": secrets.token_hex(8)})
            self.statuses.append(answer.status_code)
        except httpx.HTTPError as error:  # the server is killed at the end of the module
            self.statuses.append(type(error).__name__)
        finally:
            self.waiting -= 1

    async def all(self) -> None:
        limits = httpx.Limits(max_connections=HANGING_ROUNDS + 10)
        async with httpx.AsyncClient(base_url=self.url, timeout=120, limits=limits) as client:
            await asyncio.gather(*(self.one(client, self.tokens[n % len(self.tokens)])
                                   for n in range(HANGING_ROUNDS)))

    def run(self) -> None:
        asyncio.run(self.all())


def test_a_hanging_wallet_of_one_operator_delays_no_other_operators_rounds(setup):
    server, wallet, key_a = setup
    client = httpx.Client(base_url=server.url, timeout=60)
    operator_a, operator_b = Api(client, key_a), Api(client, server.operator_key())
    a_tokens = [operator_a.player("0.00", jurisdiction="nogamble").token for _ in range(A_PLAYERS)]
    b_tokens = [operator_b.player("100.00", jurisdiction="nogamble").token for _ in range(B_PLAYERS)]
    play_b(server.url, b_tokens[:2])  # warm up
    unloaded = play_b(server.url, b_tokens)

    wallet.faults(timeout=1.0, hang_s=60)  # every debit hangs past the server's time-out
    load = HangingLoad(server.url, a_tokens)
    load.start()
    deadline = time.monotonic() + 60
    while wallet.injected()["timeout"] < 32:  # A's lane is full: its rounds hang at the wallet
        assert time.monotonic() < deadline, f"A's debits did not reach the wallet: {wallet.injected()}"
        time.sleep(0.1)
    assert load.waiting >= 100, load.statuses

    started = time.perf_counter()
    health = client.get("/v1/health")
    health_s = time.perf_counter() - started
    loaded = play_b(server.url, b_tokens)
    still_waiting = load.waiting
    print(f"\nB's p99: {p99(unloaded):.3f} s unloaded, {p99(loaded):.3f} s while A's wallet hangs; "
          f"health {health_s:.3f} s")

    assert health.status_code == 200 and health_s < WALLET_TIME_OUT_S, (health.status_code, health_s)
    assert len(loaded) == B_PLAYERS * B_ROUNDS
    assert max(loaded) < WALLET_TIME_OUT_S, f"a round of B waited {max(loaded):.1f} s: behind A's wallet"
    assert still_waiting >= 100, f"A's rounds ended during the measurement ({still_waiting} left): it proves nothing"
    assert not load.statuses, f"A's rounds answered while their wallet hangs: {load.statuses[:5]}"
    client.close()
