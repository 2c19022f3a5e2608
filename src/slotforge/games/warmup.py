"""Getting the games' round functions compiled: in parallel, once per cache, never twice at once.

numba compiles a game's round loop on its first use and caches it on disk (beside the game's
source, or under ``NUMBA_CACHE_DIR``); every later process loads it from there in about a second.
A cold compile takes tens of seconds to minutes per game, so:

- :func:`compile_games` compiles games in worker processes, one per core;
- every compile runs under a lock file per game and cache (:func:`compile_lock`), so two
  processes (two servers, two test workers, the command line) never compile the same game at
  the same time: the second waits and then loads what the first wrote;
- :class:`Warmup` does this in the background for a server, which answers at once and makes
  each game playable the moment its round is loaded into the server's own process.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import multiprocessing
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path

from numba.core import config as numba_config

from slotforge.engine import round as runner
from slotforge.engine.game import Game, Operator
from slotforge.games import REGISTRY, load_game

log = logging.getLogger("slotforge.games")

QUEUED, COMPILING, LOADING, READY, FAILED = "queued", "compiling", "loading", "ready", "failed"

# The games by their cold compile, longest first, for a machine that has never compiled them
# (``python bench/bench_compile.py`` on two cores: about 95, 70, 55, 45 and 45 s; Divine Fortune,
# ready last, is among the shortest: it starts last). Started in this order, the last game to begin
# is a short one, so the parallel warm-up ends sooner than in the lobby's order (130 s against 195
# when measured). Once this machine has compiled them, its own times (:func:`measured_compile_s`)
# take precedence.
LONGEST_COMPILE_FIRST = ("wish-upon-a-jackpot", "golden-grimoire", "dynasty", "moon-of-fortune", "divine-fortune")


def compile_order(codes: list[str]) -> list[str]:
    """``codes`` in the order to compile them, longest first: by this machine's last cold compiles
    once it has measured every one of them, else by :data:`LONGEST_COMPILE_FIRST` (a game in
    neither last)."""
    rank = {code: place for place, code in enumerate(LONGEST_COMPILE_FIRST)}
    measured = {code: seconds for code in codes if (seconds := measured_compile_s(code)) is not None}
    if len(measured) == len(codes):
        return sorted(codes, key=lambda code: -measured[code])
    return sorted(codes, key=lambda code: rank.get(code, len(rank)))


def timing_path(code: str) -> Path:
    """Where this machine keeps ``code``'s last cold compile time (beside its compile lock)."""
    return lock_path(code).with_suffix(".seconds")


def measured_compile_s(code: str) -> float | None:
    """The seconds of this machine's last cold compile of ``code`` (None: never measured)."""
    if code not in REGISTRY:  # a game this release does not ship: never compiled here
        return None
    try:
        return float(timing_path(code).read_text())
    except (OSError, ValueError):
        return None


def warm_up(game: Game) -> None:
    """Play one seeded round, so that the game's compiled loop is compiled or loaded from the
    cache now rather than in the first player's request."""
    runner.play(game, None, source=runner.seeded_words(0), operator=Operator())


def how_compiled(game: Game) -> str:
    """Whether numba compiled the game's round loop in this process or loaded it from its cache."""
    stats = getattr(game.simulate_rounds, "stats", None)
    if stats is None:
        return "run as plain Python"
    return "compiled" if stats.cache_misses else "loaded from the cache"


def lock_path(code: str) -> Path:
    """The lock file of ``code``'s compiled round: one per game source and numba cache folder,
    since numba's cache is kept per source path (two checkouts compile apart)."""
    source = package_folder(code).resolve()
    where = f"{source}|{os.environ.get('NUMBA_CACHE_DIR', '')}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"slotforge-compile-{code}-{digest}.lock"


def package_folder(code: str) -> Path:
    """The folder of a game's package, found without importing it (importing compiles)."""
    package = REGISTRY[code].package
    return Path(__file__).parent / package.rsplit(".", 1)[1]


@contextmanager
def compile_lock(code: str) -> Iterator[None]:
    """Hold ``code``'s compile lock: whoever holds it compiles or loads; the others wait."""
    path = lock_path(code)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ready_game(code: str) -> Game:
    """The shipped game ``code`` with its round loop compiled or loaded, under its compile lock."""
    with compile_lock(code):
        game = load_game(code)
        warm_up(game)
    return game


def _compile_in_child(code: str, reply: Connection) -> None:
    """A worker process's whole work: compile ``code`` into the shared cache, and tell the parent
    how (:func:`how_compiled`) and in how many seconds."""
    started = time.monotonic()
    game = ready_game(code)
    seconds = time.monotonic() - started
    how = how_compiled(game)
    if how == "compiled":
        timing_path(code).write_text(f"{seconds:.1f}")
    reply.send((how, seconds))


def worker_words(how: str, seconds: float) -> str:
    """What a worker did for a game, for the log: ``compiled in a worker in 48 s``."""
    return f"{how} in a worker in {seconds:.0f} s"


def compile_games(codes: list[str], workers: int | None = None,
                  on_change: Callable[[str, str], None] = lambda code, state: None,
                  stop: threading.Event | None = None, told: dict[str, str] | None = None) -> dict[str, str]:
    """Compile ``codes`` into the disk cache, longest first (:func:`compile_order`), ``workers``
    processes at a time (default: one per core); ``on_change(code, state)`` hears each game
    become ``compiling`` and then ``ready`` or ``failed``. Returns each game's final state. With
    numba's JIT disabled there is nothing to compile.

    ``told``, where given, receives what each worker did for its game (:func:`worker_words`)
    before ``on_change`` hears it ready."""
    if numba_config.DISABLE_JIT:
        return {code: READY for code in codes}
    workers = max(1, min(workers or os.cpu_count() or 1, len(codes)))
    spawn = multiprocessing.get_context("spawn")  # never fork a threaded server
    waiting = compile_order(codes)
    running: dict[object, tuple[str, multiprocessing.Process, Connection]] = {}
    states: dict[str, str] = {}
    try:
        while waiting or running:
            while waiting and len(running) < workers and not (stop and stop.is_set()):
                code = waiting.pop(0)
                heard, reply = spawn.Pipe(duplex=False)
                child = spawn.Process(target=_compile_in_child, args=(code, reply), name=f"compile {code}", daemon=True)
                child.start()
                reply.close()  # the child's end: the parent only listens
                running[child.sentinel] = (code, child, heard)
                on_change(code, COMPILING)
            if not running:
                break
            for sentinel in wait(list(running), timeout=1.0):
                code, child, heard = running.pop(sentinel)
                child.join()
                states[code] = READY if child.exitcode == 0 else FAILED
                if told is not None and states[code] == READY and heard.poll():
                    told[code] = worker_words(*heard.recv())
                heard.close()
                on_change(code, states[code])
    finally:
        for _, child, heard in running.values():
            child.terminate()
            heard.close()
    return states


@dataclass
class Readiness:
    """Where one game stands in a server's warm-up."""

    state: str = QUEUED
    since: float = 0.0  # when it entered this state (time.monotonic())
    seconds: float | None = None  # from the start of the warm-up to ready
    error: str | None = None

    def view(self, now: float) -> dict[str, object]:
        shown: dict[str, object] = {"state": self.state, "ready": self.state == READY}
        if self.state in (COMPILING, LOADING):
            shown["for_s"] = round(now - self.since, 1)
        if self.seconds is not None:
            shown["seconds"] = round(self.seconds, 1)
        if self.error:
            shown["error"] = self.error
        return shown


class Warmup:
    """A server's games made playable in the background: compiled by worker processes (one per
    core), then loaded into this process one by one, each ``on_ready(game)`` as soon as it is.

    Games handed over already loaded are ready from the start (tests, and a server whose games
    a caller prepared).
    """

    def __init__(self, codes: list[str], on_ready: Callable[[Game], None] = lambda game: None,
                 workers: int | None = None, loaded: dict[str, Game] | None = None) -> None:
        self.codes = list(codes)
        self.workers = workers
        self.on_ready = on_ready
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._games: dict[str, Readiness] = {code: Readiness(since=self.started) for code in self.codes}
        for code in loaded or {}:
            self._games[code] = Readiness(READY, self.started, 0.0)
        self._thread: threading.Thread | None = None
        self._workers_told: dict[str, str] = {}  # what each worker did: "compiled in a worker in 48 s"

    # -- what others ask ----------------------------------------------------------------------
    def ready(self, code: str) -> bool:
        with self._lock:
            return code in self._games and self._games[code].state == READY

    def all_ready(self) -> bool:
        with self._lock:
            return all(r.state == READY for r in self._games.values())

    def status(self) -> dict[str, dict[str, object]]:
        """Each game's state (``queued``, ``compiling``, ``loading``, ``ready``, ``failed``), how
        long it has been compiling, and the seconds it took once ready."""
        now = time.monotonic()
        with self._lock:
            return {code: readiness.view(now) for code, readiness in self._games.items()}

    def counts(self) -> tuple[int, int]:
        """(games ready, games offered)."""
        with self._lock:
            return sum(r.state == READY for r in self._games.values()), len(self._games)

    # -- running it ---------------------------------------------------------------------------
    def start(self) -> None:
        """Begin in a background thread (returns at once)."""
        pending = [code for code in self.codes if not self.ready(code)]
        if not pending:
            return
        self._thread = threading.Thread(target=self._run, args=(pending,), name="slotforge warm-up", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop compiling (the worker processes are ended); games ready stay ready."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the warm-up has finished (every game ready or failed); whether it has."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def _run(self, pending: list[str]) -> None:
        log.info("compiling %d games in the background, %s at a time (first start only; each game is playable "
                 "as soon as it is ready)", len(pending), max(1, min(self.workers or os.cpu_count() or 1,
                                                                   len(pending))))
        compile_games(pending, self.workers, on_change=self._compiled, stop=self._stop, told=self._workers_told)

    def _set(self, code: str, state: str, error: str | None = None) -> None:
        now = time.monotonic()
        with self._lock:
            readiness = self._games[code]
            readiness.state, readiness.since, readiness.error = state, now, error
            if state == READY:
                readiness.seconds = now - self.started

    def _compiled(self, code: str, state: str) -> None:
        """A worker process is done with ``code`` (or has begun it): load it here."""
        if state == COMPILING:
            self._set(code, COMPILING)
            log.info("game %s: compiling its round function in a worker process", code)
            return
        if self._stop.is_set():
            return
        self._set(code, LOADING)
        loading = time.monotonic()
        try:
            game = ready_game(code)  # from the cache the worker wrote; compiles here if it failed there
        except Exception as error:  # a game that cannot be played is reported, the others go on
            log.exception("game %s could not be compiled", code)
            self._set(code, FAILED, f"{type(error).__name__}: {error}")
            return
        self._set(code, READY)
        self.on_ready(game)
        ready, offered = self.counts()
        log.info("game %s ready (%s, %s) after %.0f s: %d of %d games playable", code, game.model_id,
                 self._how_made_ready(code, game, time.monotonic() - loading), time.monotonic() - self.started,
                 ready, offered)

    def _how_made_ready(self, code: str, game: Game, loading_s: float) -> str:
        """How ``code`` came to be ready: what its worker did, then how it was loaded here (this
        process loads from the cache whatever the worker did: saying only that would hide a compile)."""
        here = how_compiled(game)
        worker = self._workers_told.get(code)
        if worker is None or here != "loaded from the cache":
            return f"{here} in {loading_s:.1f} s"
        return f"{worker}, loaded in {loading_s:.1f} s"
