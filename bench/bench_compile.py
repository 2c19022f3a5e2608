"""Cold compile of each game, beside its speed, in this tree and (optionally) another revision.

A fresh machine's first wait is numba compiling each game's round loop. For each game this
benchmark starts a process with an empty numba cache and measures:

- the server's path: load the game and play one round (what ``slotforge serve`` waits for),
  as wall time and CPU time;
- the simulator's extra compile (``simulate_chunk``'s first call) and then its rounds per
  second on one core, so that a cut in compile time is weighed against the speed it costs;
- the functions numba compiled, each with its own (exclusive) compile time, the largest first.

With ``--base REV`` the same is measured for another revision (checked out in a temporary git
worktree), game by game alternating trees, and the ratio this / base printed for each figure.
With ``--serve`` it also starts ``slotforge serve`` on an empty cache and a scratch SQLite file
and times its first ``/v1/health`` answer and each game becoming playable (the games compiling
in parallel worker processes, as a new user meets them).

    python bench/bench_compile.py                      # all five games, this tree
    python bench/bench_compile.py dynasty --base HEAD~1
    python bench/bench_compile.py --serve --json
    python bench/bench_compile.py --serve-only

Cold compiles take tens of seconds to minutes per game; a full run takes about as long as the
games' compiles added up (twice that with ``--base``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["dynasty", "divine-fortune", "moon-of-fortune", "wish-upon-a-jackpot", "golden-grimoire"]

COLD = """
import json, sys, time
from numba.core import event
from slotforge.games import load_game
from slotforge.games.warmup import warm_up
from slotforge.reports.simulate import simulate_chunk

code, rounds = sys.argv[1], int(sys.argv[2])

def exclusive_times(buffer):
    # numba:compile events nest (a function compiles its callees inside its own compile):
    # a function's own time is its span less the spans of the compiles directly inside it.
    own, stack = {}, []  # name -> [seconds, signatures compiled]
    for stamp, ev in buffer:
        if ev.is_start:
            stack.append([ev.data["dispatcher"].py_func.__qualname__, stamp, 0.0])
        else:
            name, began, inner = stack.pop()
            span = stamp - began
            seconds, signatures = own.get(name, (0.0, 0))
            own[name] = (seconds + span - inner, signatures + 1)
            if stack:
                stack[-1][2] += span
    return own

with event.install_recorder("numba:compile") as recorder:
    wall, cpu = time.perf_counter(), time.process_time()
    warm_up(load_game(code))
    serve_wall, serve_cpu = time.perf_counter() - wall, time.process_time() - cpu
    wall = time.perf_counter()
    simulate_chunk(code, 1, 0, 1000)
    simulate_extra = time.perf_counter() - wall
started = time.perf_counter()
part = simulate_chunk(code, 1, 0, rounds)
speed = part.rounds / (time.perf_counter() - started)
print(json.dumps({"serve_wall_s": serve_wall, "serve_cpu_s": serve_cpu, "simulate_extra_s": simulate_extra,
                  "rounds_per_second": speed, "functions": exclusive_times(recorder.buffer)}))
"""

FIGURES = [("serve_wall_s", "server path, wall", "s"), ("serve_cpu_s", "server path, CPU", "s"),
           ("simulate_extra_s", "simulator's extra compile", "s"), ("rounds_per_second", "rounds/s, one core", "")]


def cold_compile(tree: Path, code: str, rounds: int) -> dict:
    """One game's cold figures in source tree ``tree``, in a process with an empty numba cache."""
    with tempfile.TemporaryDirectory(prefix="slotforge-cold-") as cache:
        env = {**os.environ, "PYTHONPATH": str(tree / "src"), "NUMBA_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, "-c", COLD, code, str(rounds)], env=env, check=True,
                              capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def checkout(revision: str, folder: Path) -> Path:
    """A temporary worktree of ``revision``."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(folder), revision], check=True)
    return folder


def show(code: str, figures: dict[str, dict], top: int) -> None:
    """Print one game's figures per tree (and the ratio when there are two), then its costliest functions."""
    print(code)
    trees = list(figures)
    for key, label, unit in FIGURES:
        values = "   ".join(f"{tree} {figures[tree][key]:>12,.1f}{unit}" for tree in trees)
        ratio = ""
        if "base" in figures and figures["base"][key] >= 0.1:  # a ratio of two near-zero times says nothing
            ratio = f"   this/base {figures['this'][key] / figures['base'][key]:.2f}x"
        print(f"  {label:<28}{values}{ratio}")
    own = sorted(figures["this"]["functions"].items(), key=lambda item: -item[1][0])
    total = sum(seconds for _, (seconds, _signatures) in own)
    print(f"  compiled functions (this tree): {len(own)}, {total:.1f} s in all; the costliest:")
    for name, (seconds, signatures) in own[:top]:
        twice = f"  ({signatures} signatures)" if signatures > 1 else ""
        print(f"    {seconds:7.1f} s  {name}{twice}")


def free_port() -> int:
    """A port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cold_serve(tree: Path) -> dict:
    """``slotforge serve`` on an empty cache: seconds to the first health answer, to each game
    playable, and to all of them."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="slotforge-serve-") as folder:
        env = {**os.environ, "PYTHONPATH": str(tree / "src"), "NUMBA_CACHE_DIR": str(Path(folder) / "cache")}
        command = [sys.executable, "-m", "slotforge.cli", "serve", "--port", str(port),
                   "--database", f"sqlite:///{folder}/serve.db"]
        started = time.monotonic()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            return watch_warmup(f"http://127.0.0.1:{port}/v1/health", started, process)
        finally:
            process.terminate()
            process.wait(30)


def watch_warmup(url: str, started: float, process: subprocess.Popen) -> dict:
    """Poll the server's health until every game is ready; note when each thing first happened."""
    first_answer, ready_at = None, {}
    while process.poll() is None and time.monotonic() - started < 1800:
        try:
            health = httpx.get(url, timeout=5).json()
        except httpx.HTTPError:
            time.sleep(0.1)
            continue
        now = time.monotonic() - started
        first_answer = first_answer if first_answer is not None else now
        for code, game in health["games"].items():
            if game["state"] == "failed":
                raise SystemExit(f"{code} failed to compile: {game.get('error')}")
            if game["ready"] and code not in ready_at:
                ready_at[code] = now
        if health["ready"]:
            return {"first_health_s": first_answer, "games_ready_s": ready_at, "all_ready_s": now}
        time.sleep(0.5)
    raise SystemExit("the server stopped or took over 30 minutes: run it by hand to see its log")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("games", nargs="*", default=GAMES, help="games to measure (default: all five)")
    parser.add_argument("--base", help="also measure this git revision, e.g. HEAD~1, and print ratios")
    parser.add_argument("--rounds", type=int, default=5_000_000, help="rounds timed for rounds/s")
    parser.add_argument("--top", type=int, default=6, help="costliest compiled functions shown per game")
    parser.add_argument("--serve", action="store_true", help="also time a cold `slotforge serve`")
    parser.add_argument("--serve-only", action="store_true", help="time a cold `slotforge serve` alone")
    parser.add_argument("--json", action="store_true", help="also print every figure as JSON")
    args = parser.parse_args()
    results: dict = {"cores": os.cpu_count(), "games": {}}
    if args.serve_only:
        args.games, args.serve = [], True
    with tempfile.TemporaryDirectory(prefix="slotforge-base-") as scratch:
        trees = {"this": ROOT}
        if args.base:
            trees = {"base": checkout(args.base, Path(scratch) / "tree"), "this": ROOT}
        try:
            for code in args.games:
                figures = {name: cold_compile(tree, code, args.rounds) for name, tree in trees.items()}
                show(code, figures, args.top)
                results["games"][code] = figures
        finally:
            if args.base:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees["base"])])
    if args.serve:
        serve = cold_serve(ROOT)
        results["serve"] = serve
        print(f"slotforge serve, empty cache, {os.cpu_count()} cores: first /v1/health answer after "
              f"{serve['first_health_s']:.1f} s, all games playable after {serve['all_ready_s']:.0f} s")
        for code, seconds in sorted(serve["games_ready_s"].items(), key=lambda item: item[1]):
            print(f"  {code:<22} playable after {seconds:5.0f} s")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
