"""Shared fixtures: games are loaded once per session (compilation is cached on disk).

Before any test runs, the session compiles every game's round function once, in parallel (one
worker process per core, each game under its compile lock), into the cache that the tests, the
server processes they start and the command line all share: no test waits for a compile that
another test process is doing, and none compiles a game twice.
"""

from __future__ import annotations

import os
import time

import pytest

from slotforge.games import game_codes, load_game
from slotforge.games.warmup import compile_games


def games_to_warm_up() -> list[str]:
    """Every game, or those ``SLOTFORGE_WARM_UP`` names (comma-separated: a run of a few test
    files that play only those, such as tools/mutation_check.py's; any other game a test plays
    compiles on first use)."""
    named = [code.strip() for code in os.environ.get("SLOTFORGE_WARM_UP", "").split(",") if code.strip()]
    unknown = sorted(set(named) - set(game_codes()))
    if unknown:
        raise pytest.UsageError(f"SLOTFORGE_WARM_UP: unknown games {unknown}; expected some of {game_codes()}")
    return named or game_codes()


def pytest_sessionstart(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller warmed the games up
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    started = time.monotonic()

    def said(code: str, state: str) -> None:
        if reporter is not None:
            reporter.write_line(f"warm-up: {code} {state} ({time.monotonic() - started:.0f} s)")

    states = compile_games(games_to_warm_up(), on_change=said)
    failed = [code for code, state in states.items() if state != "ready"]
    if failed:
        raise pytest.UsageError(f"warm-up: the round functions of {failed} did not compile (see above)")


@pytest.fixture(scope="session")
def dynasty():
    return load_game("dynasty")
