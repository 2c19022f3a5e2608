"""A server's first start, as a new user meets it: ``slotforge serve`` with an empty compile cache
answers at once, says which games are still being compiled, refuses their rounds with 503
``GAME_WARMING_UP`` rather than hanging, and the game page shows the warm-up and then starts by
itself and plays.

The server gets a compile cache of its own (``NUMBA_CACHE_DIR``), so that its game really is
compiled cold whatever the test session warmed up before; it offers Dynasty alone, to keep the
cold compile to one game.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.web.conftest import SRC, free_port

COLD_COMPILE_S = 900  # the most one cold game may take on a loaded two-core machine


def start_cold_server(folder: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(SRC), "NUMBA_CACHE_DIR": str(folder / "numba-cache"),
           "SLOTFORGE_GAMES": '["dynasty"]'}
    with open(folder / "server.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "slotforge.cli", "serve", "--port", str(port),
                                    "--database", f"sqlite:///{folder / 'cold.db'}"],
                                   env=env, stdout=log, stderr=subprocess.STDOUT)
    return process, f"http://127.0.0.1:{port}"


def first_health(url: str, process: subprocess.Popen, log: Path) -> dict:
    """The first answer of ``/v1/health``, however the compile stands."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-2000:]
        try:
            answer = httpx.get(f"{url}/v1/health", timeout=1)
            return answer.json()
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"no answer from {url}: {log.read_text()[-2000:]}")


def test_a_cold_server_answers_at_once_and_each_game_starts_by_itself(browser, tmp_path):
    process, url = start_cold_server(tmp_path)
    try:
        health = first_health(url, process, tmp_path / "server.log")
        # It answers while Dynasty is still being compiled: nothing waited for numba.
        assert health["status"] == "ok" and health["ready"] is False, health
        assert health["games"]["dynasty"]["state"] in ("queued", "compiling", "loading"), health
        assert httpx.get(f"{url}/").status_code == 200  # the lobby too
        assert httpx.get(f"{url}/v1/games/dynasty").json()["name"] == "Dynasty"  # and what a page draws

        token = httpx.post(f"{url}/v1/fun-sessions", json={"currency": "EUR"}).json()["token"]
        refused = httpx.post(f"{url}/v1/rounds", json={"game": "dynasty"},
                             headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "cold-1"})
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"] == "GAME_WARMING_UP" and refused.json()["field"] == "game"
        assert int(refused.headers["Retry-After"]) > 0
        assert "dynasty" in refused.json()["message"]

        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script("localStorage.setItem('slotforge.settings', "
                                + json.dumps(json.dumps({"intro": False, "quickSpin": True})) + ")")
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        badge = page.locator("article[data-game=dynasty] .warming")
        badge.wait_for(timeout=30_000)
        assert "Preparing" in badge.inner_text()

        page.goto(f"{url}/play/dynasty")
        page.wait_for_selector("#app[data-ready=warming]", timeout=30_000)
        assert page.get_by_role("heading", name="Preparing Dynasty…").is_visible()
        assert re.search(r"(compiling for \d+ s|waiting for a free core|almost ready); 0 of 1 games ready",
                         page.get_by_role("status").inner_text())

        # No reload: the page starts the game by itself once the server has it ready, and plays.
        page.wait_for_selector("#app[data-ready=true]", timeout=COLD_COMPILE_S * 1000)
        assert httpx.get(f"{url}/v1/health").json()["games"]["dynasty"]["ready"] is True
        with page.expect_response(lambda r: r.url.endswith("/v1/rounds") and r.request.method == "POST") as answer:
            page.get_by_role("button", name="Spin").click()
        assert answer.value.status == 200, answer.value.text()
        played = answer.value.json()["round"]
        page.wait_for_selector(f"#app[data-shown='{played['id']}']", timeout=60_000)
        assert not errors, errors
        context.close()
        ready = next(line for line in (tmp_path / "server.log").read_text().splitlines() if "game dynasty ready" in line)
        assert re.search(r"compiled in a worker in \d+ s, loaded in [\d.]+ s", ready), ready  # not "from the cache"
    finally:
        process.terminate()
        process.wait(timeout=30)
