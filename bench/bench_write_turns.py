"""How soon a server process writes once another process gives a SQLite file's write lock back:

    python bench/bench_write_turns.py [--turns 20] [--hold 0.2]

Two ways of waiting, measured in the same run on a scratch SQLite file, ``--turns`` times each:

- the servers' way: processes take turns through a lock file beside the database (``flock``,
  :class:`slotforge.db.engine.ProcessesTurn`, which every server's group commit takes): the waiting
  process is woken when the turn is given back;
- the reference: SQLite's own busy handler (a writer that finds the database locked sleeps and
  tries again, 1, 2, 5, 10 ms and up to 100 ms between tries), which every writer meets without
  the lock file.

Each time, a holder process takes the lock, holds it for ``--hold`` seconds and gives it back;
the waiting write in this process is timed from that moment to its start. Printed: the median
and the worst delay of each way, and the ratio of the medians (the reference's over the turns').
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, insert

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from slotforge.db import GroupCommit, connect, write_transaction  # noqa: E402

marks = Table("marks", MetaData(), Column("id", Integer, primary_key=True), Column("writer", Integer))

# The holder: takes the lock its way, says so, holds it, gives it back and prints the moment.
HOLD_THE_TURN = """
import sys, time
from slotforge.db import connect
from slotforge.db.engine import processes_turn
turn = processes_turn(connect(sys.argv[1]))
turn.take()
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
released = time.time()  # before the call: the waiter may run before this process runs again
turn.give_back()
print(released, flush=True)
"""
HOLD_THE_DATABASE = """
import sqlite3, sys, time
database = sqlite3.connect(sys.argv[1].removeprefix("sqlite:///"), isolation_level=None)
database.execute("BEGIN IMMEDIATE")
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
database.execute("COMMIT")  # the lock is free once it returns
print(time.time(), flush=True)
"""


def delay_after_release(holder: str, url: str, hold: float, write: Callable[[], float]) -> float:
    """Seconds from the holder's release to the start of ``write`` (which returns its start)."""
    process = subprocess.Popen([sys.executable, "-c", holder, url, str(hold)], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(SRC)})
    try:
        assert process.stdout.readline().strip() == "holding"
        began = write()
        released = float(process.stdout.readline())
    finally:
        process.wait(30)
    return began - released


def through_the_turn(engine) -> Callable[[], float]:
    group = GroupCommit(engine)

    def write() -> float:
        with group.transaction() as conn:
            began = time.time()
            conn.execute(insert(marks).values(writer=1))
        return began

    return write


def through_the_busy_handler(engine) -> Callable[[], float]:
    def write() -> float:
        with write_transaction(engine) as conn:  # BEGIN IMMEDIATE: SQLite's busy handler waits there
            began = time.time()
            conn.execute(insert(marks).values(writer=2))
        return began

    return write


def measure(turns: int, hold: float) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'turns.db'}"
        engine = connect(url)
        marks.create(engine)
        ways = {"lock file (servers)": (HOLD_THE_TURN, through_the_turn(engine)),
                "busy handler (reference)": (HOLD_THE_DATABASE, through_the_busy_handler(engine))}
        delays: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(turns):
            for name, (holder, write) in ways.items():  # interleaved: both see the same load
                delays[name].append(delay_after_release(holder, url, hold, write))
        engine.dispose()
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--hold", type=float, default=0.2, help="seconds the holder keeps the lock")
    args = parser.parse_args()
    delays = measure(args.turns, args.hold)
    for name, values in delays.items():
        print(f"{name:26} median {statistics.median(values) * 1000:7.2f} ms, worst {max(values) * 1000:7.2f} ms "
              f"after the release ({len(values)} turns)")
    turns, reference = (statistics.median(values) for values in delays.values())
    print(f"ratio (busy handler / lock file, medians): {reference / turns:.1f}")


if __name__ == "__main__":
    main()
