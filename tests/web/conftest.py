"""Fixtures of the browser client's tests: the game server as a real process (``slotforge serve
--qa``, every game) and Chromium from Debian's packages driven by Playwright.

Without Chromium (``/usr/bin/chromium``) or Playwright the browser tests skip, except under CI,
where they fail (see ``tests/services.py``).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from services import missing, require

CHROMIUM = Path("/usr/bin/chromium")
SRC = Path(__file__).resolve().parents[2] / "src"


# A jurisdiction whose reality check comes every 3 seconds, so that a test sees one.
BRISK = """
fun_sessions_per_minute = 600  # every browser test opens fun sessions from 127.0.0.1

[jurisdictions.brisk]
reality_check_s = 3
show_net_position = true
show_session_timer = true
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Served:
    """A running ``slotforge serve --qa`` and what a test needs to open sessions on it."""

    url: str
    database_url: str
    env: dict[str, str]
    process: subprocess.Popen
    log: Path
    _key: list[str] = field(default_factory=list)

    def operator_key(self) -> str:
        if not self._key:
            out = subprocess.run([sys.executable, "-m", "slotforge.cli", "operator", "add",
                                  f"op-{secrets.token_hex(4)}", "--database", self.database_url],
                                 env=self.env, capture_output=True, text=True, check=True)
            self._key.append(out.stdout.strip())
        return self._key[0]

    def real_session(self, jurisdiction: str, deposit: str = "100.00") -> str:
        """A real-money session (the operator's launch) with ``deposit`` on the player's balance."""
        key = {"X-Api-Key": self.operator_key()}
        player = f"p-{secrets.token_hex(5)}"
        answer = httpx.post(f"{self.url}/v1/operator/sessions", headers=key, json={
            "player_id": player, "currency": "EUR", "jurisdiction": jurisdiction})
        assert answer.status_code == 200, answer.text
        money = httpx.post(f"{self.url}/v1/operator/players/{player}/transactions", headers=key,
                           json={"kind": "deposit", "amount": deposit, "reference": f"d-{player}"})
        assert money.status_code == 200, money.text
        return answer.json()["token"]


def wait_ready(url: str, process: subprocess.Popen, log: Path, patience: float = 1500) -> None:
    """Wait until the server at ``url`` has every game ready (a cold start compiles them all:
    minutes each on a busy machine); fail with its log's end if it exits first."""
    deadline = time.monotonic() + patience
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()[-2000:]}")
        try:
            health = httpx.get(f"{url}/v1/health", timeout=1)
            if health.status_code == 200 and health.json()["ready"]:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"server not ready in {patience:.0f} s")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def served(tmp_path_factory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("served")
    database_url = f"sqlite:///{folder / 'web.db'}"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    log = open(folder / "server.log", "w")
    config = folder / "settings.toml"
    config.write_text(BRISK)
    process = subprocess.Popen([sys.executable, "-m", "slotforge.cli", "serve", "--qa", "--access-log", "--port", str(port),
                                "--database", database_url, "--config", str(config)],
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, process, folder / "server.log")
        yield Served(url, database_url, env, process, folder / "server.log")
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # still compiling: nothing to save
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    require(CHROMIUM.exists(), f"Chromium is not installed at {CHROMIUM}: apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


@dataclass
class Watch:
    """What a page did that a test forbids: console errors, and requests to other addresses."""

    origin: str
    http_errors_expected: bool = False
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def console(self, message: Any) -> None:
        if message.type != "error":
            return
        # Chromium logs every 4xx answer; a test that provokes an API error allows those.
        if self.http_errors_expected and message.text.startswith("Failed to load resource: the server responded "
                                                                 "with a status of 4"):
            return
        self.errors.append(message.text)

    def request(self, request: Any) -> None:
        url = request.url
        if not (url.startswith(self.origin + "/") or url.startswith("data:") or url == self.origin):
            self.foreign.append(url)


@pytest.fixture
def page_for(browser, served) -> Iterator[Any]:
    """``page_for(viewport=..., settings=...)``: a new page in a fresh context; the test fails if
    the page logs a console error or sends a request anywhere but the server."""
    opened: list[tuple[Any, Watch]] = []

    def open_page(viewport: dict[str, int] | None = None, settings: dict[str, Any] | None = None,
                  mobile: bool = False, http_errors_expected: bool = False) -> Any:
        context = browser.new_context(viewport=viewport or {"width": 1280, "height": 800},
                                      is_mobile=mobile, has_touch=mobile)
        settings = {"intro": False, "quickSpin": True, **(settings or {})}
        # Set once per context: a reload keeps what the page itself saved since.
        context.add_init_script(f"if (!localStorage.getItem('slotforge.settings')) "
                                f"localStorage.setItem('slotforge.settings', {json.dumps(json.dumps(settings))})")
        return watched_page(context, served.url, http_errors_expected, opened)

    yield open_page
    close_watched(opened)


def watched_page(context: Any, url: str, http_errors_expected: bool, opened: list[tuple[Any, Watch]]) -> Any:
    """A new page of ``context`` whose console errors and requests beyond ``url`` are watched
    (checked by :func:`close_watched`)."""
    page = context.new_page()
    watch = Watch(url, http_errors_expected)
    page.on("console", watch.console)
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    page.on("request", watch.request)
    opened.append((context, watch))
    return page


def close_watched(opened: list[tuple[Any, Watch]]) -> None:
    """Close the watched pages' contexts; fail on any console error or request beyond the server."""
    for context, watch in opened:
        context.close()
        assert not watch.errors, f"console errors: {watch.errors}"
        assert not watch.foreign, f"requests left the server's address: {watch.foreign}"
