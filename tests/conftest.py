"""Shared fixtures: games are loaded once per session (compilation is cached on disk).

Before any test runs, the session compiles every game's round function once, in parallel (one
worker process per core, each game under its compile lock), into the cache that the tests, the
server processes they start and the command line all share: no test waits for a compile that
another test process is doing, and none compiles a game twice.

It also makes sure PostgreSQL answers where the tests look for it (``tests/postgres.py``): where no
server answers, it starts a throwaway cluster for the session, which every test process shares,
and removes it at the end.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from pathlib import Path

import postgres
import pytest

from slotforge.games import game_codes, load_game
from slotforge.games.warmup import FAILED, READY, compile_games, warm_up


def games_to_warm_up() -> list[str]:
    """Every game, or those ``SLOTFORGE_WARM_UP`` names (comma-separated: a run of a few test
    files that play only those, such as tools/mutation_check.py's; any other game a test plays
    compiles on first use)."""
    named = [code.strip() for code in os.environ.get("SLOTFORGE_WARM_UP", "").split(",") if code.strip()]
    unknown = sorted(set(named) - set(game_codes()))
    if unknown:
        raise pytest.UsageError(f"SLOTFORGE_WARM_UP: unknown games {unknown}; expected some of {game_codes()}")
    return named or game_codes()


class ToyWarmUp:
    """Two Doors, the engine tests' toy game (``engine/toy/``), compiled in a process of its own
    once the games' warm-up leaves a core idle (its last game compiling alone): its half a minute
    of compile fills that core instead of holding up a test process later. Only on a run of the
    whole suite (no ``SLOTFORGE_WARM_UP``)."""

    def __init__(self) -> None:
        self.wanted = not os.environ.get("SLOTFORGE_WARM_UP", "").strip()
        self.process: multiprocessing.Process | None = None

    def start(self) -> None:
        if self.wanted and self.process is None:
            self.process = multiprocessing.get_context("spawn").Process(target=warm_up_toy, name="compile two-doors",
                                                                        daemon=True)
            self.process.start()

    def join(self) -> str | None:
        """How it ended ("ready", or "failed": its tests then compile it), None if not wanted."""
        self.start()  # a warm-up of one game never left a core idle
        if self.process is None:
            return None
        self.process.join()
        return "ready" if self.process.exitcode == 0 else "failed, left to its tests"


def warm_up_toy() -> None:
    sys.path.insert(0, str(Path(__file__).parent / "engine"))
    from toy.two_doors import TwoDoors

    warm_up(TwoDoors())


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Two test processes per core for ``-n auto``: much of the suite waits (for a server it
    started, a browser, a commit on disk), and a second process per core plays its tests
    meanwhile (on two cores the processes kept both cores busy about four fifths of the run)."""
    return 2 * (os.cpu_count() or 1)


def pytest_sessionstart(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did all this
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    started = time.monotonic()
    session.config.stash[THROWAWAY_POSTGRES] = throwaway_postgres(reporter)

    codes, toy, finished = games_to_warm_up(), ToyWarmUp(), []

    def say(what: str) -> None:
        if reporter is not None:
            reporter.write_line(f"warm-up: {what} ({time.monotonic() - started:.0f} s)")

    def said(code: str, state: str) -> None:
        say(f"{code} {state}")
        if state in (READY, FAILED):
            finished.append(code)
            if len(finished) == len(codes) - 1:  # the last game compiles alone: a core is idle
                toy.start()

    states = compile_games(codes, on_change=said)
    toy_state = toy.join()
    if toy_state is not None:
        say(f"two-doors (the engine tests' toy game) {toy_state}")
    failed = [code for code, state in states.items() if state != "ready"]
    if failed:
        raise pytest.UsageError(f"warm-up: the round functions of {failed} did not compile (see above)")


# The files that take longest (a minute or more each in a fresh clone's run: cold compiles of the
# maths, server processes killed and started again, a cold server's own compile), longest first.
# Test processes take files each whole. pytest-xdist hands them out sorted by their count of tests
# (its default --loadscope-reorder), so this order decides among files of equal count only. In
# collection order instead (--no-loadscope-reorder), every long file ran at once at the start and
# the fresh clone's run was slower: they contend for the cores.
LONGEST_FILES = (
    "design/test_certify.py",
    "rgs/test_fault_injection.py",
    "web/test_browser.py",
    "test_docs.py",
    "rgs/test_processes.py",
    "rgs/test_seamless_processes.py",
    "rgs/test_player_api.py",
    "rgs/test_free_rounds.py",
    "rgs/test_jackpot_service.py",
    "web/test_player_view.py",
    "web/test_warmup.py",
    "rgs/test_fuzz.py",
    "games/test_divine_fortune.py",
    "maths/test_wish_upon_a_jackpot_maths.py",
)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Collect :data:`LONGEST_FILES` first, in that order; the rest as they come."""
    folder = Path(__file__).parent
    rank = {folder / name: place for place, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path, len(rank)))  # stable: the rest keep their order


THROWAWAY_POSTGRES = pytest.StashKey["postgres.Cluster | None"]()


def throwaway_postgres(reporter) -> postgres.Cluster | None:
    """A cluster started for this session where no PostgreSQL answers at the tests' address
    (None where one answers, or where none can be started: the PostgreSQL tests then say why)."""
    unanswered = postgres.answers()
    if unanswered is None:
        return None
    host, port = postgres.address()
    try:
        cluster = postgres.start_cluster()
    except RuntimeError as error:
        if reporter is not None:
            reporter.write_line(f"PostgreSQL: none at {host}:{port} ({unanswered}), and none started: {error}")
        return None
    if reporter is not None:
        reporter.write_line(f"PostgreSQL: none at {host}:{port}; a throwaway cluster started there ({cluster.folder})")
    return cluster


def pytest_unconfigure(config: pytest.Config) -> None:
    cluster = config.stash.get(THROWAWAY_POSTGRES, None)
    if cluster is not None:
        cluster.stop()


@pytest.fixture(scope="session")
def dynasty():
    return load_game("dynasty")
