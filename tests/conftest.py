"""Shared fixtures: games are loaded once per session (compilation is cached on disk).

Before any test runs, the session compiles every game's round function once, in parallel (one
worker process per core, each game under its compile lock), into the cache that the tests, the
server processes they start and the command line all share: no test waits for a compile that
another test process is doing, and none compiles a game twice.
"""

from __future__ import annotations

import time

import pytest

from slotforge.games import game_codes, load_game
from slotforge.games.warmup import compile_games


def pytest_sessionstart(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller warmed the games up
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    started = time.monotonic()

    def said(code: str, state: str) -> None:
        if reporter is not None:
            reporter.write_line(f"warm-up: {code} {state} ({time.monotonic() - started:.0f} s)")

    states = compile_games(game_codes(), on_change=said)
    failed = [code for code, state in states.items() if state != "ready"]
    if failed:
        raise pytest.UsageError(f"warm-up: the round functions of {failed} did not compile (see above)")


@pytest.fixture(scope="session")
def dynasty():
    return load_game("dynasty")
