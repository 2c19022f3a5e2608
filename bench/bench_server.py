"""The game server: durable Dynasty rounds per second and their latency, 32 players at once.

    python bench/bench_server.py [--seconds 10] [--players 32] [--backends sqlite,postgresql] [--workers 1]

For each database a real ``slotforge serve`` process is started; 32 players each play rounds
back to back (every answer is a committed round: stake, record, win and ledger on disk). The
same server's bare ``GET /v1/health`` rate with the same concurrency is measured in the same run
as the reference: what the HTTP stack alone costs on this machine. Server and load generator
share the machine; the load generator writes HTTP/1.1 by hand so that it costs the server's
machine little CPU. PostgreSQL is expected at 127.0.0.1:5432 (user postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
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


def start_server(database_url: str, folder: Path, port: int, workers: int = 1) -> subprocess.Popen:
    config = folder / "settings.toml"
    config.write_text(SETTINGS)
    env = {**os.environ, "PYTHONPATH": str(SRC), "SLOTFORGE_GAMES": '["dynasty"]'}
    process = subprocess.Popen(
        [sys.executable, "-m", "slotforge.cli", "serve", "--port", str(port), "--database", database_url,
         "--config", str(config), "--workers", str(workers)],
        env=env, stdout=open(folder / "server.log", "w"), stderr=subprocess.STDOUT,
        start_new_session=True)  # its own process group: stop() ends every worker too
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health").status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    stop(process)
    raise SystemExit(f"server did not start: see {folder / 'server.log'}")


def stop(process: subprocess.Popen) -> None:
    """End the server and its worker processes."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def operator_key(database_url: str) -> str:
    done = subprocess.run([sys.executable, "-m", "slotforge.cli", "operator", "add", f"bench-{secrets.token_hex(3)}",
                           "--database", database_url], env={**os.environ, "PYTHONPATH": str(SRC)},
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


async def players(client: httpx.AsyncClient, key: str, count: int) -> list[str]:
    tokens = []
    for n in range(count):
        session = await client.post("/v1/operator/sessions", headers={"X-Api-Key": key}, json={
            "player_id": f"bench-{n}", "currency": "EUR", "jurisdiction": "bench"})
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


async def measure(port: int, key: str, count: int, seconds: float) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        tokens = await players(client, key, count)
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


def bench(backend: str, count: int, seconds: float, port: int, workers: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        name = None
        if backend == "sqlite":
            url = f"sqlite:///{Path(folder) / 'bench.db'}"
        else:
            name, url = postgres_database()
        server = start_server(url, Path(folder), port, workers)
        try:
            return asyncio.run(measure(port, operator_key(url), count, seconds))
        finally:
            stop(server)
            if name:
                drop(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=1, help="server processes (slotforge serve --workers)")
    args = parser.parse_args()
    print(f"{args.players} players, {args.seconds:.0f} s each, Dynasty default bet, gamble off, "
          f"{args.workers} server process(es)")
    for backend in args.backends.split(","):
        figures = bench(backend, args.players, args.seconds, args.port, args.workers)
        print(f"{backend:10} {figures['rounds_per_second']:8,.0f} durable rounds/s   "
              f"p50 {figures['p50_ms']:6.1f} ms   p99 {figures['p99_ms']:6.1f} ms   "
              f"GET /v1/health {figures['health_per_second']:8,.0f}/s   "
              f"rounds/health {figures['rounds_per_second'] / figures['health_per_second']:.2f}")


if __name__ == "__main__":
    main()
