"""The game server: durable Dynasty rounds per second and their latency, 32 players at once.

    python bench/bench_server.py [--seconds 10] [--players 32] [--backends sqlite,postgresql] [--workers 1]
    python bench/bench_server.py --jackpots [--seconds 10] [--players 32] [--backends sqlite]

For each database a real ``slotforge serve`` process is started; 32 players each play rounds
back to back (every answer is a committed round: stake, record, win and ledger on disk). The
same server's bare ``GET /v1/health`` rate with the same concurrency is measured in the same run
as the reference: what the HTTP stack alone costs on this machine. Server and load generator
share the machine; the load generator writes HTTP/1.1 by hand so that it costs the server's
machine little CPU. PostgreSQL is expected at 127.0.0.1:5432 (user postgres).

``--jackpots`` measures Divine Fortune instead (every round contributes to the Mega pool, a bonus
start is answered with a decision), twice in the same run: with the pool embedded in the
server's database, and with it at a jackpot service (``slotforge jackpot serve``, its own
database of the same kind) that the server reaches over HTTP through its outbox; the ratio of
the two is the networked pool's cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


def start_server(database_url: str, folder: Path, port: int, workers: int = 1, game: str = "dynasty",
                 jackpot_url: str | None = None) -> subprocess.Popen:
    config = folder / "settings.toml"
    config.write_text(SETTINGS)
    env = {**os.environ, "PYTHONPATH": str(SRC), "SLOTFORGE_GAMES": f'["{game}"]'}
    if jackpot_url:
        env["SLOTFORGE_JACKPOT_URL"] = jackpot_url
    return started([sys.executable, "-m", "slotforge.cli", "serve", "--port", str(port), "--database", database_url,
                    "--config", str(config), "--workers", str(workers)], env, folder / "server.log", port)


def start_jackpot_service(database_url: str, folder: Path, port: int) -> subprocess.Popen:
    return started([sys.executable, "-m", "slotforge.cli", "jackpot", "serve", "--port", str(port),
                    "--database", database_url], {**os.environ, "PYTHONPATH": str(SRC)}, folder / "jackpot.log", port)


def started(command: list[str], env: dict[str, str], log: Path, port: int) -> subprocess.Popen:
    """A server process, once it answers ``GET /v1/health``."""
    process = subprocess.Popen(command, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                               start_new_session=True)  # its own process group: stop() ends every worker too
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:  # e.g. the port is taken: never measure another server
            raise SystemExit(f"server exited with {process.returncode}: see {log}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health").status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    stop(process)
    raise SystemExit(f"server did not start: see {log}")


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


async def load(port: int, tokens: list[str], seconds: float, rounds: bool, game: str = "dynasty") -> list[float]:
    """Requests back to back from every player for ``seconds``; the latencies in seconds of the
    rounds (a round waiting for a decision is answered with its first option: its latency is
    that of both requests)."""
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    body = json.dumps({"game": game}).encode()

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
                while status == 200 and rounds and b'"status":"awaiting"' in answer:
                    waiting = json.loads(answer)["round"]
                    status, answer = await connection.request(
                        "POST", f"/v1/rounds/{waiting['id']}/decisions",
                        {**headers, "Idempotency-Key": secrets.token_hex(8)},
                        json.dumps({"choice": waiting["awaiting"]["options"][0]}).encode())
                if status != 200:
                    raise SystemExit(f"unexpected answer {status}: {answer[:300]!r}")
                latencies.append(time.perf_counter() - started)
        finally:
            connection.close()

    await asyncio.gather(*(player(token) for token in tokens))
    return latencies


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100)[int(share * 100) - 1] if len(values) > 1 else values[0]


async def measure(port: int, key: str, count: int, seconds: float, game: str = "dynasty") -> dict[str, float]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        tokens = await players(client, key, count)
    await load(port, tokens, 1.0, rounds=True, game=game)  # warm up
    health = await load(port, tokens, seconds, rounds=False)
    played = await load(port, tokens, seconds, rounds=True, game=game)
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


def database(backend: str, folder: Path, file: str) -> tuple[str | None, str]:
    """A fresh database of the backend: (the PostgreSQL name to drop or None, its URL)."""
    if backend == "sqlite":
        return None, f"sqlite:///{folder / file}"
    return postgres_database()


def bench(backend: str, count: int, seconds: float, port: int, workers: int, game: str = "dynasty",
          networked: bool = False) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        name, url = database(backend, Path(folder), "bench.db")
        names, service, jackpot_url = [name], None, None
        if networked:
            service_name, service_url = database(backend, Path(folder), "jackpot.db")
            names.append(service_name)
            service = start_jackpot_service(service_url, Path(folder), port + 1)
            jackpot_url = f"http://127.0.0.1:{port + 1}"
        server = start_server(url, Path(folder), port, workers, game, jackpot_url)
        try:
            figures = asyncio.run(measure(port, operator_key(url), count, seconds, game))
            if networked:
                figures["backlog_s"] = drained(url)
            return figures
        finally:
            stop(server)
            if service is not None:
                stop(service)
            for each in names:
                if each:
                    drop(each)


def drained(database_url: str) -> float:
    """Seconds after the load until the server's outbox has delivered every contribution."""
    sys.path.insert(0, str(SRC))
    from slotforge.rgs.database import connect
    from slotforge.rgs.outbox import pending

    engine, started = connect(database_url), time.perf_counter()
    try:
        while True:
            with engine.connect() as conn:
                if not pending(conn, "jackpot"):
                    return time.perf_counter() - started
            time.sleep(0.05)
    finally:
        engine.dispose()


def print_figures(label: str, figures: dict[str, float]) -> None:
    print(f"{label:22} {figures['rounds_per_second']:8,.0f} durable rounds/s   "
          f"p50 {figures['p50_ms']:6.1f} ms   p99 {figures['p99_ms']:6.1f} ms   "
          f"GET /v1/health {figures['health_per_second']:8,.0f}/s   "
          f"rounds/health {figures['rounds_per_second'] / figures['health_per_second']:.2f}")


def bench_jackpots(backends: list[str], count: int, seconds: float, port: int, workers: int) -> None:
    """Divine Fortune with the pool embedded, then at a jackpot service, in the same run."""
    print(f"{count} players, {seconds:.0f} s each, Divine Fortune default bet, {workers} server process(es)")
    for backend in backends:
        embedded = bench(backend, count, seconds, port, workers, "divine-fortune")
        print_figures(f"{backend}, embedded", embedded)
        networked = bench(backend, count, seconds, port, workers, "divine-fortune", networked=True)
        print_figures(f"{backend}, networked", networked)
        print(f"{'':22} every contribution delivered {networked['backlog_s']:.1f} s after the load ended")
        ratio = networked["rounds_per_second"] / embedded["rounds_per_second"]
        print(f"{'':22} networked / embedded: rounds/s {ratio:.2f}, p99 {networked['p99_ms'] / embedded['p99_ms']:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=1, help="server processes (slotforge serve --workers)")
    parser.add_argument("--jackpots", action="store_true",
                        help="Divine Fortune with the pool embedded and at a jackpot service")
    args = parser.parse_args()
    if args.jackpots:
        bench_jackpots(args.backends.split(","), args.players, args.seconds, args.port, args.workers)
        return
    print(f"{args.players} players, {args.seconds:.0f} s each, Dynasty default bet, gamble off, "
          f"{args.workers} server process(es)")
    for backend in args.backends.split(","):
        print_figures(backend, bench(backend, args.players, args.seconds, args.port, args.workers))


if __name__ == "__main__":
    main()
