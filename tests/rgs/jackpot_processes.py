"""The jackpot service as a real process for the tests, and what they read of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from slotforge.jackpot.service import bearer

from .conftest import SRC, database_for, free_port, launch


class JackpotService:
    """``slotforge jackpot serve`` in a process of its own, started, stopped and killed by the test."""

    def __init__(self, database_url: str, log: Path, port: int | None = None, secret: str | None = None) -> None:
        self.database_url = database_url
        self.log = log
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PYTHONPATH": str(SRC), **({"SLOTFORGE_JACKPOT_SECRET": secret} if secret else {})}
        self.headers = bearer(secret)
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> JackpotService:
        self.process = launch([sys.executable, "-m", "slotforge.cli", "jackpot", "serve", "--port", str(self.port),
                               "--database", self.database_url], self.env, self.log, f"{self.url}/v1/health",
                              "jackpot service", timeout)
        return self

    def freeze(self) -> None:
        """``kill -STOP``: the service hangs, connections open and silent."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def kill(self) -> None:
        """``kill -9``: no shutdown, no flush."""
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        answer = httpx.get(f"{self.url}{path}", params=params, headers=self.headers, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def pool(self, name: str = "divine-fortune") -> dict[str, Any]:
        return self.get(f"/v1/pools/{name}")

    def entries(self, **query: str) -> list[dict[str, Any]]:
        return self.get("/v1/entries", **query)["entries"]

    def hold_claim(self, key: str) -> dict[str, Any]:
        """A Mega paid and held for ``key``, as a round's claim is before its confirm arrives."""
        for path, body in (("/v1/pools/divine-fortune/contributions", {"key": f"seed-{key}", "stake": "100.00"}),
                           ("/v1/pools/divine-fortune/claims", {"key": key})):
            answer = httpx.post(f"{self.url}{path}", json=body, headers=self.headers, timeout=30)
            assert answer.status_code == 200, answer.text
        return next(entry for entry in self.entries(kind="claim") if entry["key"] == key)


def commit_confirm(conn: Any, round_id: int, claim: dict[str, Any], now: int, hold_ms: int = 0) -> None:
    """In ``conn``'s transaction, the confirm a round's transaction commits with its ``claim`` (an
    entry of :meth:`JackpotService.hold_claim`); ``hold_ms`` holds its delivery back, as while the
    service cannot be reached."""
    from slotforge.rgs.jackpots.networked import TARGET, confirm_key
    from slotforge.rgs.outbox import enqueue

    enqueue(conn, TARGET, "confirm", confirm_key(claim["key"]), {
        "key": claim["key"], "pool": claim["pool"], "amount": claim["amount"], "payout": claim["payout"],
        "currency": "EUR", "rate": "1"}, now=now, round_id=round_id, hold_ms=hold_ms)


@contextmanager
def service_on(backend: str, folder: Path) -> Iterator[JackpotService]:
    """A jackpot service process on a new database of ``backend`` ("sqlite" or "postgresql");
    killed afterwards, and its PostgreSQL database dropped."""
    urls = database_for(backend, folder)
    running = JackpotService(next(urls), folder / "service.log").start()
    try:
        yield running
    finally:
        running.kill()
        next(urls, None)
