"""The seamless wallet's calls: the client's CPU per call, the server's own keep-alive client
against httpx's asynchronous client and, where it is installed, aiohttp's (the client the
server used before its own: ``pip install aiohttp``), in the same run:

    python bench/bench_wallet_calls.py [--calls 20000] [--concurrency 32]

Both post the same signed credit body to the same ``slotforge wallet-demo`` (its own process, a
SQLite file, players opened on first sight) with ``concurrency`` calls in flight, and answers are
checked as the server checks them. The figure is the client process's CPU time per call (user
and system, from ``os.times``), which is what a seamless round pays in the server's one core;
the wallet's own time is not in it. Each client runs twice, alternating, and the better run of
each is printed with the ratio between them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import SECRET, start_wallet, stop  # noqa: E402

from slotforge.rgs.wallets.http1 import Http1Pool  # noqa: E402
from slotforge.rgs.wallets.seamless.client import SIGNATURE_HEADER, encode, sign, understood  # noqa: E402

Post = Callable[[bytes, dict[str, str]], Awaitable[tuple[int, bytes]]]


def body(n: int) -> dict:
    return {"transaction_id": f"bench-{os.getpid()}-{time.monotonic_ns()}-{n}-win", "round_id": n,
            "player_id": f"bench-{n % 32}", "amount": "0.10", "currency": "EUR", "game": "dynasty"}


async def run(post: Post, calls: int, concurrency: int) -> float:
    """CPU seconds per call of ``calls`` credits, ``concurrency`` at a time."""
    queue = iter(range(calls))

    async def worker() -> None:
        for n in queue:
            raw = encode(body(n))
            status, content = await post(raw, {"Content-Type": "application/json",
                                               SIGNATURE_HEADER: sign(SECRET, raw)})
            understood("credit", str(n), status, content)

    started = os.times()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    ended = os.times()
    return (ended.user - started.user + ended.system - started.system) / calls


async def own_client(url: str, calls: int, concurrency: int) -> float:
    pool = Http1Pool(url, limit=100)
    try:
        return await run(lambda raw, headers: pool.post("/credit", raw, headers, 5.0), calls, concurrency)
    finally:
        await pool.close()


async def httpx_client(url: str, calls: int, concurrency: int) -> float:
    async with httpx.AsyncClient(base_url=url, timeout=5.0,
                                 limits=httpx.Limits(max_connections=100)) as client:
        async def post(raw: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
            answer = await client.post("/credit", content=raw, headers=headers)
            return answer.status_code, answer.content

        return await run(post, calls, concurrency)


async def aiohttp_client(url: str, calls: int, concurrency: int) -> float:
    import aiohttp

    async with aiohttp.ClientSession(base_url=url, timeout=aiohttp.ClientTimeout(total=5.0),
                                     connector=aiohttp.TCPConnector(limit=100)) as session:
        async def post(raw: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
            async with session.post("/credit", data=raw, headers=headers) as answer:
                return answer.status, await answer.read()

        return await run(post, calls, concurrency)


def clients() -> dict[str, Callable[[str, int, int], Awaitable[float]]]:
    """The clients to measure: ours first, then the references installed."""
    found = {"slotforge's own (http1)": own_client, "httpx.AsyncClient": httpx_client}
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print("aiohttp is not installed: measuring against httpx alone")
    else:
        found["aiohttp.ClientSession"] = aiohttp_client
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        wallet = start_wallet(Path(folder), args.port)
        url = f"http://127.0.0.1:{args.port}"
        try:
            measured = clients()
            best = dict.fromkeys(measured, float("inf"))
            for _ in range(2):
                for name, client in measured.items():
                    best[name] = min(best[name], asyncio.run(client(url, args.calls, args.concurrency)))
        finally:
            stop(wallet)
    print(f"{args.calls:,} signed credits, {args.concurrency} at a time, to slotforge wallet-demo; "
          f"the client's CPU per call (the better of two runs each):")
    ours = "slotforge's own (http1)"
    for name, seconds in best.items():
        ratio = "" if name == ours else f"   ours / this: {best[ours] / seconds:.2f}"
        print(f"  {name:26} {seconds * 1e6:8.0f} us{ratio}")


if __name__ == "__main__":
    main()
