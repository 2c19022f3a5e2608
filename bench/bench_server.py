"""The game server: durable Dynasty rounds per second and their latency, 32 players at once.

    python bench/bench_server.py [--seconds 10] [--players 32] [--backends sqlite,postgresql] [--workers 1]
                                 [--wallets internal,seamless]

For each database a real ``slotforge serve`` process is started; 32 players each play rounds
back to back (every answer is a committed round: stake, record, win and ledger on disk). The
same server's bare ``GET /v1/health`` rate with the same concurrency is measured in the same run
as the reference: what the HTTP stack alone costs on this machine. Server and load generator
share the machine; the load generator writes HTTP/1.1 by hand so that it costs the server's
machine little CPU. PostgreSQL is expected at 127.0.0.1:5432 (user postgres).

Each database is measured with the internal wallet and with a seamless one: the operator's
players' money kept by ``slotforge wallet-demo`` (its own process and SQLite database, no faults),
called over HTTP for every round's debit in the round's transaction, its credit delivered by the
outbox worker. The wallet calls still owed when the load stops show whether the outbox kept up.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg

SRC = Path(__file__).resolve().parents[1] / "src"
# Gamble off: every round completes in one request.
SETTINGS = "[jurisdictions.bench]\ngamble = false\n"
SEAMLESS = "bench-seamless"  # the operator whose money is at the wallet
SECRET = "bench-wallet-secret-0123456789"


def seamless_settings(wallet_port: int) -> str:
    return (f'[operators.{SEAMLESS}]\nwallet = "seamless"\nwallet_url = "http://127.0.0.1:{wallet_port}"\n'
            f'wallet_secret = "{SECRET}"\n')


def start_wallet(folder: Path, port: int) -> subprocess.Popen:
    """``slotforge wallet-demo`` opening every new player with plenty of money."""
    process = subprocess.Popen(
        [sys.executable, "-m", "slotforge.cli", "wallet-demo", "serve", "--port", str(port), "--database",
         str(folder / "wallet.db"), "--secret", SECRET, "--new-player-balance", "1000000.00"],
        env={**os.environ, "PYTHONPATH": str(SRC)}, stdout=open(folder / "wallet.log", "w"),
        stderr=subprocess.STDOUT, start_new_session=True)
    wait_for(f"http://127.0.0.1:{port}/health", process, folder / "wallet.log")
    return process


def check_free(port: int) -> None:
    """Refuse to measure another program's server (other benchmarks may share the machine)."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} is in use: choose another with --port (it and the next are used)")


def wait_for(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(url).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    stop(process)
    raise SystemExit(f"{url} did not answer: see {log}")


def start_server(database_url: str, folder: Path, port: int, workers: int = 1,
                 wallet_port: int | None = None) -> subprocess.Popen:
    config = folder / "settings.toml"
    config.write_text(SETTINGS + (seamless_settings(wallet_port) if wallet_port else ""))
    env = {**os.environ, "PYTHONPATH": str(SRC), "SLOTFORGE_GAMES": '["dynasty"]'}
    process = subprocess.Popen(
        [sys.executable, "-m", "slotforge.cli", "serve", "--port", str(port), "--database", database_url,
         "--config", str(config), "--workers", str(workers)],
        env=env, stdout=open(folder / "server.log", "w"), stderr=subprocess.STDOUT,
        start_new_session=True)  # its own process group: stop() ends every worker too
    wait_for(f"http://127.0.0.1:{port}/v1/health", process, folder / "server.log")
    return process


def stop(process: subprocess.Popen) -> None:
    """End the server and its worker processes."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def operator_key(database_url: str, name: str | None = None) -> str:
    name = name or f"bench-{secrets.token_hex(3)}"
    done = subprocess.run([sys.executable, "-m", "slotforge.cli", "operator", "add", name, "--database", database_url],
                          env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True, text=True, check=True)
    return done.stdout.strip()


async def players(client: httpx.AsyncClient, key: str, count: int, seamless: bool) -> list[str]:
    tokens = []
    for n in range(count):
        session = await client.post("/v1/operator/sessions", headers={"X-Api-Key": key}, json={
            "player_id": f"bench-{n}", "currency": "EUR", "jurisdiction": "bench"})
        if not seamless:  # a seamless player's money is at the wallet already
            await client.post(f"/v1/operator/players/bench-{n}/transactions", headers={"X-Api-Key": key},
                              json={"kind": "deposit", "amount": "1000000.00", "reference": f"bench-{n}"})
        tokens.append(session.json()["token"])
    return tokens


class Connection:
    """One player's keep-alive HTTP/1.1 connection, written and read by hand: the load generator
    shares the machine with the server, and a full HTTP client would cost more CPU than the
    server's own stack (it did: httpx used 2.5 times the server's CPU on /v1/health)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}",
                 *(f"{name}: {value}" for name, value in headers.items())]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def load(port: int, tokens: list[str], seconds: float, rounds: bool) -> list[float]:
    """Requests back to back from every player for ``seconds``; the latencies in seconds."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    body = b'{"game":"dynasty"}'

    async def player(token: str) -> None:
        connection = await Connection.open(port)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        try:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                if rounds:
                    status, answer = await connection.request(
                        "POST", "/v1/rounds", {**headers, "Idempotency-Key": secrets.token_hex(8)}, body)
                else:
                    status, answer = await connection.request("GET", "/v1/health", {})
                if status != 200:
                    raise SystemExit(f"unexpected answer {status}: {answer[:300]!r}")
                latencies.append(time.perf_counter() - started)
        finally:
            connection.close()

    await asyncio.gather(*(player(token) for token in tokens))
    return latencies


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100)[int(share * 100) - 1] if len(values) > 1 else values[0]


async def measure(port: int, key: str, count: int, seconds: float, seamless: bool) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        tokens = await players(client, key, count, seamless)
    await load(port, tokens, 1.0, rounds=True)  # warm up
    health = await load(port, tokens, seconds, rounds=False)
    played = await load(port, tokens, seconds, rounds=True)
    return {
        "rounds_per_second": len(played) / seconds,
        "p50_ms": percentile(played, 0.50) * 1000,
        "p99_ms": percentile(played, 0.99) * 1000,
        "health_per_second": len(health) / seconds,
    }


def postgres_database() -> tuple[str, str]:
    name = f"slotforge_bench_{secrets.token_hex(3)}"
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return name, f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def drop(name: str) -> None:
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def owed_to_wallet(database_url: str) -> int:
    """Wallet calls (credits, rollbacks) not yet acknowledged."""
    from slotforge.rgs import outbox
    from slotforge.rgs.database import connect

    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            return outbox.pending(conn, "wallet")
    finally:
        engine.dispose()


def bench(backend: str, count: int, seconds: float, port: int, workers: int, wallet: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        name = None
        if backend == "sqlite":
            url = f"sqlite:///{Path(folder) / 'bench.db'}"
        else:
            name, url = postgres_database()
        seamless = wallet == "seamless"
        check_free(port)
        check_free(port + 1)
        wallet_process = start_wallet(Path(folder), port + 1) if seamless else None
        server = start_server(url, Path(folder), port, workers, port + 1 if seamless else None)
        try:
            figures = asyncio.run(measure(port, operator_key(url, SEAMLESS if seamless else None), count, seconds,
                                          seamless))
            figures["owed_to_wallet"] = owed_to_wallet(url) if seamless else 0
            return figures
        finally:
            stop(server)
            if wallet_process:
                stop(wallet_process)
            if name:
                drop(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=1, help="server processes (slotforge serve --workers)")
    parser.add_argument("--wallets", default="internal,seamless", help="internal, seamless (wallet-demo) or both")
    args = parser.parse_args()
    print(f"{args.players} players, {args.seconds:.0f} s each, Dynasty default bet, gamble off, "
          f"{args.workers} server process(es)")
    for backend in args.backends.split(","):
        internal = None
        for wallet in args.wallets.split(","):
            figures = bench(backend, args.players, args.seconds, args.port, args.workers, wallet)
            internal = internal or (figures if wallet == "internal" else None)
            versus = (f"   vs internal {figures['rounds_per_second'] / internal['rounds_per_second']:.2f}"
                      if internal and wallet != "internal" else "")
            owed = f"   owed to the wallet at the end {figures['owed_to_wallet']:,}" if wallet == "seamless" else ""
            print(f"{backend:10} {wallet:8} {figures['rounds_per_second']:8,.0f} durable rounds/s   "
                  f"p50 {figures['p50_ms']:6.1f} ms   p99 {figures['p99_ms']:6.1f} ms   "
                  f"GET /v1/health {figures['health_per_second']:8,.0f}/s   "
                  f"rounds/health {figures['rounds_per_second'] / figures['health_per_second']:.2f}{versus}{owed}")


if __name__ == "__main__":
    main()
