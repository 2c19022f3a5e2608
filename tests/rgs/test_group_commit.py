"""SQLite group commit: writers share commits, a failing writer rolls back alone, and no writer
returns before its writes are committed (visible to a connection of its own); the same for jobs
handed over by the event loop (batched writes)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, event, insert, select

from slotforge.db import GroupCommit, Writer, connect

from .loops import in_a_loop_of_its_own

WRITERS = 64

metadata = MetaData()
marks = Table("marks", metadata, Column("writer", Integer, primary_key=True))


class Refused(Exception):
    pass


@pytest.fixture
def engine(tmp_path):
    engine = connect(f"sqlite:///{tmp_path / 'group.db'}")
    metadata.create_all(engine)
    yield engine
    engine.dispose()


def test_writers_share_commits_and_a_failing_writer_rolls_back_alone(engine):
    group = GroupCommit(engine)
    commits = []
    event.listen(engine, "commit", lambda conn: commits.append(1))
    start = threading.Barrier(WRITERS)

    def write(writer: int) -> bool:
        """Mark ``writer``; odd writers fail after writing. True once committed and visible."""
        start.wait()
        try:
            with group.transaction() as conn:
                conn.execute(insert(marks).values(writer=writer))
                if writer % 2:
                    raise Refused(writer)
        except Refused:
            return False
        with engine.connect() as reader:  # committed: another connection sees it
            return reader.execute(select(marks.c.writer).where(marks.c.writer == writer)).first() is not None

    with ThreadPoolExecutor(WRITERS) as pool:
        visible = list(pool.map(write, range(WRITERS)))

    assert visible == [writer % 2 == 0 for writer in range(WRITERS)]
    with engine.connect() as conn:
        assert sorted(conn.execute(select(marks.c.writer)).scalars()) == list(range(0, WRITERS, 2))
    assert 1 <= len(commits) < WRITERS  # commits were shared


def test_a_failed_commit_is_raised_to_every_writer_of_the_batch(engine):
    group = GroupCommit(engine)
    with pytest.raises(Exception, match="disk full"):
        with group.transaction() as conn:
            conn.execute(insert(marks).values(writer=1))

            def refuse(_connection):
                raise OSError("disk full")

            event.listen(conn, "commit", refuse)
    with engine.connect() as reader:
        assert reader.execute(select(marks.c.writer)).first() is None


def test_jobs_from_the_event_loop_share_commits_and_a_failing_job_rolls_back_alone(engine):
    """Batches: rounds handed over by the event loop are written by one thread in shared commits;
    each job's answer arrives only once its writes are committed, a failing job takes back only
    its own writes and gets its own error."""
    writer = Writer(engine)
    commits = []
    event.listen(engine, "commit", lambda conn: commits.append(1))

    def job(number: int):
        def write(conn) -> int:
            conn.execute(insert(marks).values(writer=number))
            if number % 3 == 0:
                raise Refused(number)
            return number * 10
        return write

    async def all_jobs() -> list:
        return await asyncio.gather(*(writer.batches.run(job(n)) for n in range(WRITERS)), return_exceptions=True)

    outcomes = in_a_loop_of_its_own(all_jobs)

    for number, outcome in enumerate(outcomes):
        if number % 3 == 0:
            assert isinstance(outcome, Refused) and outcome.args == (number,)
        else:
            assert outcome == number * 10
    with engine.connect() as conn:
        assert sorted(conn.execute(select(marks.c.writer)).scalars()) == [n for n in range(WRITERS) if n % 3]
    assert 1 <= len(commits) < WRITERS // 4  # the jobs queued meanwhile went into each commit


def test_jobs_of_two_loops_in_one_batch_each_get_their_outcome_and_a_closed_loop_stops_nothing(engine):
    """A batch may hold jobs handed over by several event loops (the server's, the wallet calls'
    own): each loop is told of its own jobs. A loop closed while its job was being written (its
    request cancelled) is skipped, and the writes go on for everyone else."""
    writer = Writer(engine)
    writing, go_on = threading.Event(), threading.Event()

    def blocking(conn) -> int:
        writing.set()
        go_on.wait(10)
        conn.execute(insert(marks).values(writer=1))
        return 1

    async def leave_a_job_behind() -> None:
        asyncio.get_running_loop().create_task(writer.batches.run(blocking))
        await asyncio.to_thread(writing.wait, 10)  # returning cancels the task and closes the loop

    in_a_loop_of_its_own(leave_a_job_behind)

    def mark(number: int):
        return lambda conn: conn.execute(insert(marks).values(writer=number)).rowcount * number

    async def jobs_of(numbers: range) -> list:
        return await asyncio.wait_for(asyncio.gather(*(writer.batches.run(mark(n)) for n in numbers)), 10)

    with ThreadPoolExecutor(2) as loops:
        first, second = loops.submit(in_a_loop_of_its_own, lambda: jobs_of(range(10, 20))), \
            loops.submit(in_a_loop_of_its_own, lambda: jobs_of(range(20, 30)))
        time.sleep(0.2)  # both loops' jobs queue behind the blocked one, for one batch
        go_on.set()
        assert first.result(20) == list(range(10, 20)) and second.result(20) == list(range(20, 30))
    with engine.connect() as conn:
        assert sorted(conn.execute(select(marks.c.writer)).scalars()) == [1, *range(10, 30)]


def test_a_failed_commit_of_batched_jobs_reaches_every_job(engine):
    writer = Writer(engine)

    def refuse(_connection):
        raise OSError("disk full")

    event.listen(engine, "commit", refuse)

    async def two_jobs() -> list:
        return await asyncio.gather(*(writer.batches.run(lambda conn, n=n: conn.execute(insert(marks).values(
            writer=n))) for n in range(2)), return_exceptions=True)

    outcomes = in_a_loop_of_its_own(two_jobs)
    assert [type(outcome) for outcome in outcomes] == [OSError, OSError]
    event.remove(engine, "commit", refuse)
    with engine.connect() as reader:
        assert reader.execute(select(marks.c.writer)).first() is None


def test_postgresql_has_no_batched_writes():
    assert Writer(connect("postgresql+psycopg://postgres@127.0.0.1:5432/test")).batches is None


HOLDER = """
import sys, time
from slotforge.db import connect
from slotforge.db.engine import processes_turn
turn = processes_turn(connect(sys.argv[1]))
turn.take()  # the turn only: SQLite's own write lock is free
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
released = time.time()
turn.give_back()
print(released, flush=True)
"""


def test_server_processes_take_turns_at_the_write_lock_and_a_waiter_goes_when_it_is_given_back(tmp_path):
    """Two server processes on one SQLite file take turns at its write lock through a lock file
    beside it, not through SQLite's busy handler (which sleeps between tries, up to 100 ms): a
    process's write waits for the other process's turn (SQLite's own lock is free meanwhile, so a
    write that did not wait would go at once), and goes when it is given back. How soon after is
    the machine's speed: printed, not asserted."""
    url = f"sqlite:///{tmp_path / 'turns.db'}"
    engine = connect(url)
    metadata.create_all(engine)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, url, "0.5"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with GroupCommit(engine).transaction() as conn:
            began = time.time()
            conn.execute(insert(marks).values(writer=1))
        released = float(holder.stdout.readline())
    finally:
        holder.wait(10)
    assert (tmp_path / "turns.db.writers-lock").exists()
    assert began >= released, "the write began while the other process held the turn"
    print(f"\nthe write began {began - released:.3f} s after the turn was given back")
    with engine.connect() as reader:
        assert reader.execute(select(marks.c.writer)).scalars().all() == [1]
    engine.dispose()


def test_a_failed_commit_gives_the_turn_back(engine):
    group = GroupCommit(engine)
    with pytest.raises(Exception, match="disk full"):
        with group.transaction() as conn:
            conn.execute(insert(marks).values(writer=1))
            event.listen(conn, "commit", lambda _connection: (_ for _ in ()).throw(OSError("disk full")))
    with group.transaction() as conn:  # would wait for ever on a turn never given back
        conn.execute(insert(marks).values(writer=2))
    with engine.connect() as reader:
        assert reader.execute(select(marks.c.writer)).scalars().all() == [2]
