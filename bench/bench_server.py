"""The game server: durable rounds per second and their latency, 32 players at once, in four
configurations measured in the same run:

    python bench/bench_server.py [--seconds 10] [--players 32] [--backends sqlite,postgresql] [--workers 1,2]
                                 [--configurations internal,seamless,embedded,networked] [--json]

The limit it is measured against: ``pgbench`` (PostgreSQL's own benchmark, its TPC-B-like
transaction: update an account's balance, a teller's and a branch's, insert a history row; the
same shape of work as a round) with as many clients and for as long, on a scratch database of
the same PostgreSQL, in the same run; each configuration is printed with its ratio to it, and
the server's CPU time per round (and, on PostgreSQL, the database's; with the wallet or the
jackpot service, theirs too; and the load generator's: on a small machine they all share the
cores with the server). A configuration compared with another (seamless with internal,
networked with embedded) is also printed with what a round cost the whole machine in CPU, and
the ratio of the two: where every core is busy, the rates are in that ratio (the
``cores-bound ratio``), whatever the server does with its time.

- ``internal``: Dynasty, the players' money in the server's own database (the reference);
- ``seamless``: Dynasty, the players' money at ``slotforge wallet-demo`` (its own process and
  SQLite database, no faults): every round's debit sent over HTTP, its credit sent as the round
  answers (the outbox's worker sends what that attempt left); the wallet calls still owed when
  the load stops show whether the outbox kept up;
- ``embedded``: Divine Fortune, every round contributing to the Mega pool kept in the server's
  database (the reference for the next; a bonus start is answered with a decision);
- ``networked``: Divine Fortune with the pool at a jackpot service (``slotforge jackpot serve``,
  its own database of the same kind) reached through the outbox; how long after the load the
  last contribution was delivered is printed.

For each database a real ``slotforge serve`` process is started; the players play rounds back to
back (every answer is a committed round: stake, record, win and ledger on disk). The same
server's bare ``GET /v1/health`` rate with the same concurrency is measured in the same run as the
reference for the HTTP stack alone. Server and load generator share the machine; the load
generator writes HTTP/1.1 by hand so that it costs the server's machine little CPU. PostgreSQL is
expected at 127.0.0.1:5432 (user postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
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


def check_free(port: int, patience: float = 10.0) -> None:
    """Refuse to measure another program's server (other benchmarks may share the machine); the
    previous configuration's worker processes get ``patience`` seconds to close the port."""
    deadline = time.monotonic() + patience
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return
        if time.monotonic() > deadline:
            raise SystemExit(f"port {port} is in use: choose another with --port (it and the next are used)")
        time.sleep(0.2)


def wait_for(url: str, process: subprocess.Popen, log: Path) -> None:
    """Until ``url`` answers 200 and, for a game server, says its games are ready (compiled)."""
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        try:
            answer = httpx.get(url)
            if answer.status_code == 200 and answer.json().get("ready", True):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop(process)
    raise SystemExit(f"{url} did not answer: see {log}")


def start_jackpot_service(database_url: str, folder: Path, port: int) -> subprocess.Popen:
    """``slotforge jackpot serve`` on its own database."""
    process = subprocess.Popen(
        [sys.executable, "-m", "slotforge.cli", "jackpot", "serve", "--port", str(port), "--database", database_url],
        env={**os.environ, "PYTHONPATH": str(SRC)}, stdout=open(folder / "jackpot.log", "w"),
        stderr=subprocess.STDOUT, start_new_session=True)
    wait_for(f"http://127.0.0.1:{port}/v1/health", process, folder / "jackpot.log")
    return process


def start_server(database_url: str, folder: Path, port: int, workers: int, game: str,
                 wallet_port: int | None = None, jackpot_url: str | None = None) -> subprocess.Popen:
    config = folder / "settings.toml"
    config.write_text(SETTINGS + (seamless_settings(wallet_port) if wallet_port else ""))
    env = {**os.environ, "PYTHONPATH": str(SRC), "SLOTFORGE_GAMES": json.dumps([game])}
    if jackpot_url:
        env["SLOTFORGE_JACKPOT_URL"] = jackpot_url
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


def pgbench(clients: int, seconds: float) -> float:
    """``pgbench``'s TPC-B-like transactions per second with ``clients`` on a scratch database
    (scale: one branch per client, so that clients do not all queue on one branch row)."""
    name = f"slotforge_pgbench_{secrets.token_hex(3)}"
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    connection = ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]
    try:
        subprocess.run(["pgbench", *connection, "-i", "-q", "-s", str(clients), name], check=True,
                       capture_output=True)
        done = subprocess.run(["pgbench", *connection, "-c", str(clients), "-j", "2", "-T", str(round(seconds)), name],
                              check=True, capture_output=True, text=True)
    finally:
        drop(name)
    for line in done.stdout.splitlines():
        if line.startswith("tps = "):
            return float(line.split()[2])
    raise SystemExit(f"pgbench printed no tps: {done.stdout[-500:]}")


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User and system CPU time each process has used so far (from /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return used


def cpu_since(before: dict[int, float], pids: list[int]) -> float:
    """CPU seconds the processes used since ``before`` (a process started since: all of its own)."""
    return sum(used - before.get(pid, 0.0) for pid, used in cpu_seconds(pids).items())


def session_pids(leader: int) -> list[int]:
    """The processes of a server started in its own session (uvicorn's workers included)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == leader:  # the session id
            pids.append(int(stat.parent.name))
    return pids


def database_pids(database_url: str) -> list[int]:
    """PostgreSQL's backend processes serving the database (none for SQLite)."""
    if database_url.startswith("sqlite"):
        return []
    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as admin:
        return [row[0] for row in admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,))]


def percentile(values: list[float], share: float) -> float:
    return statistics.quantiles(values, n=100)[int(share * 100) - 1] if len(values) > 1 else values[0]


async def measure(port: int, key: str, count: int, seconds: float, seamless: bool, game: str,
                  server_pid: int, database_url: str, helpers: dict[str, int]) -> dict[str, float]:
    """The configuration's figures; ``helpers``: the other processes of ours it runs with (the
    wallet, the jackpot service) by name, whose CPU time per round is measured too."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        tokens = await players(client, key, count, seamless)
    await load(port, tokens, 1.0, rounds=True, game=game)  # warm up
    health = await load(port, tokens, seconds, rounds=False)
    server, database = cpu_seconds(session_pids(server_pid)), cpu_seconds(database_pids(database_url))
    helped = {name: cpu_seconds([pid]) for name, pid in helpers.items()}
    generator = os.times()
    played = await load(port, tokens, seconds, rounds=True, game=game)
    generated = os.times()
    server_cpu = cpu_since(server, session_pids(server_pid))
    database_cpu = cpu_since(database, database_pids(database_url))
    helper_cpu = {name: cpu_since(helped[name], [pid]) for name, pid in helpers.items()}
    return {
        "rounds_per_second": len(played) / seconds,
        "p50_ms": percentile(played, 0.50) * 1000,
        "p99_ms": percentile(played, 0.99) * 1000,
        "health_per_second": len(health) / seconds,
        "server_cpu_ms_per_round": server_cpu * 1000 / len(played),
        **({"database_cpu_ms_per_round": database_cpu * 1000 / len(played)} if database else {}),
        **{f"{name}_cpu_ms_per_round": used * 1000 / len(played) for name, used in helper_cpu.items()},
        "load_cpu_ms_per_round": (generated.user + generated.system - generator.user - generator.system)
        * 1000 / len(played),
    }


def machine_cpu_ms(figures: dict[str, float]) -> float:
    """What a round cost every process of the run in CPU: the server, the database, the wallet or
    the jackpot service, and the load generator (on a small machine they share the cores)."""
    return sum(value for name, value in figures.items() if name.endswith("_cpu_ms_per_round"))


def postgres_database() -> tuple[str, str]:
    name = f"slotforge_bench_{secrets.token_hex(3)}"
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return name, f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def drop(name: str) -> None:
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass(frozen=True)
class Configuration:
    """One way of running the server: its game, where the money is, where the pool is."""

    game: str
    seamless: bool = False
    networked: bool = False
    reference: str | None = None  # the configuration it is compared with


CONFIGURATIONS = {
    "internal": Configuration("dynasty"),
    "seamless": Configuration("dynasty", seamless=True, reference="internal"),
    "embedded": Configuration("divine-fortune"),
    "networked": Configuration("divine-fortune", networked=True, reference="embedded"),
}


def database(backend: str, folder: Path, file: str) -> tuple[str | None, str]:
    """A fresh database of the backend: (the PostgreSQL name to drop or None, its URL)."""
    if backend == "sqlite":
        return None, f"sqlite:///{folder / file}"
    return postgres_database()


def owed(database_url: str, target: str) -> int:
    """Messages to ``target`` (wallet, jackpot) not yet acknowledged (to the wallet: and the
    debits' rollbacks held by their rounds)."""
    from slotforge.db import connect
    from slotforge.rgs import outbox
    from slotforge.rgs.wallets.seamless import credits, debits

    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            return debits.owed(conn) if target == credits.TARGET else outbox.pending(conn, target)
    finally:
        engine.dispose()


def drained(database_url: str, target: str) -> float:
    """Seconds after the load until the server's outbox has delivered every message to ``target``."""
    started = time.perf_counter()
    while owed(database_url, target):
        time.sleep(0.05)
    return time.perf_counter() - started


def bench(backend: str, count: int, seconds: float, port: int, workers: int, setup: Configuration) -> dict[str, float]:
    sys.path.insert(0, str(SRC))
    with tempfile.TemporaryDirectory() as folder:
        name, url = database(backend, Path(folder), "bench.db")
        names, helpers = [name], {}
        check_free(port)
        check_free(port + 1)
        jackpot_url = None
        if setup.seamless:
            helpers["wallet"] = start_wallet(Path(folder), port + 1)
        if setup.networked:
            service_name, service_url = database(backend, Path(folder), "jackpot.db")
            names.append(service_name)
            helpers["jackpot_service"] = start_jackpot_service(service_url, Path(folder), port + 1)
            jackpot_url = f"http://127.0.0.1:{port + 1}"
        server = None
        try:
            server = start_server(url, Path(folder), port, workers, setup.game,
                                  port + 1 if setup.seamless else None, jackpot_url)
            key = operator_key(url, SEAMLESS if setup.seamless else None)
            figures = asyncio.run(measure(port, key, count, seconds, setup.seamless, setup.game, server.pid, url,
                                          {name: process.pid for name, process in helpers.items()}))
            if setup.seamless:
                figures["owed"] = owed(url, "wallet")
            if setup.networked:
                figures["backlog_s"] = drained(url, "jackpot")
            return figures
        finally:
            for process in [server, *helpers.values()]:
                if process is not None:
                    stop(process)
            for each in names:
                if each:
                    drop(each)


# The CPU a round cost the other processes of a run, as printed after the server's.
OTHER_CPU = {"database": "database", "wallet": "wallet", "jackpot_service": "jackpot service",
             "load": "load generator"}


def describe(backend: str, label: str, figures: dict[str, float], reference: dict[str, float] | None) -> str:
    line = (f"{backend:10} {label:12} {figures['rounds_per_second']:8,.0f} durable rounds/s "
            f"({figures['pgbench_ratio']:.2f}x pgbench)   p50 {figures['p50_ms']:6.1f} ms   "
            f"p99 {figures['p99_ms']:6.1f} ms   server CPU {figures['server_cpu_ms_per_round']:.2f} ms/round")
    for part, shown in OTHER_CPU.items():
        if f"{part}_cpu_ms_per_round" in figures:
            line += f" + {shown} {figures[f'{part}_cpu_ms_per_round']:.2f}"
    line += f"   GET /v1/health {figures['health_per_second']:8,.0f}/s"
    if reference:
        speed = figures["rounds_per_second"] / reference["rounds_per_second"]
        line += f"   vs {reference['label']}: rounds/s {speed:.2f}, p99 {figures['p99_ms'] / reference['p99_ms']:.2f}"
        # Where every core is busy, the rates are in the inverse ratio of what a round costs them all.
        line += (f", machine CPU a round {machine_cpu_ms(figures):.2f} ms against {machine_cpu_ms(reference):.2f} "
                 f"(cores-bound ratio {machine_cpu_ms(reference) / machine_cpu_ms(figures):.2f})")
    if "owed" in figures:
        line += f"   owed to the wallet at the end {figures['owed']:,}"
    if "backlog_s" in figures:
        line += f"   contributions delivered {figures['backlog_s']:.1f} s after the load"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", default="1", help="server processes (slotforge serve --workers); several, "
                        "comma-separated, measure each (e.g. 1,2: how the server scales out)")
    parser.add_argument("--configurations", default=",".join(CONFIGURATIONS),
                        help=f"any of {', '.join(CONFIGURATIONS)} (comma-separated)")
    parser.add_argument("--json", action="store_true", help="print the figures as a JSON list, one object per "
                        "backend and configuration")
    args = parser.parse_args()
    chosen = args.configurations.split(",")
    unknown = sorted(set(chosen) - set(CONFIGURATIONS))
    if unknown:
        parser.error(f"--configurations: unknown {unknown}; expected any of {list(CONFIGURATIONS)}")
    try:
        process_counts = [int(count) for count in args.workers.split(",")]
    except ValueError:
        process_counts = [0]
    if min(process_counts) < 1:
        parser.error(f"--workers: expected whole numbers of processes from 1, comma-separated, got {args.workers!r}")
    say = (lambda *_, **__: None) if args.json else print
    say(f"{args.players} players, {args.seconds:.0f} s each, default bets, gamble off, "
        f"{args.workers} server process(es)")
    limit = pgbench(args.players, args.seconds)
    say(f"pgbench (TPC-B-like, {args.players} clients, {args.seconds:.0f} s): {limit:,.0f} transactions/s", flush=True)
    results = []
    for backend in args.backends.split(","):
        for workers in process_counts:
            measured: dict[str, dict[str, float]] = {}
            for label in chosen:
                setup = CONFIGURATIONS[label]
                figures = bench(backend, args.players, args.seconds, args.port, workers, setup)
                figures["pgbench_ratio"] = figures["rounds_per_second"] / limit
                measured[label] = {**figures, "label": label}
                shown = label if len(process_counts) == 1 else f"{label} x{workers}"
                say(describe(backend, shown, figures, measured.get(setup.reference or "")), flush=True)
                rounded = {name: round(value, 3) for name, value in figures.items()}
                results.append({"backend": backend, "configuration": label, "workers": workers, **rounded,
                                "pgbench_tps": round(limit, 1)})
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
