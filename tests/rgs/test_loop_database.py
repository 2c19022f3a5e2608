"""PostgreSQL from the event loop (the straight rounds' transactions): a transaction commits or
rolls back as a whole, its connection serves the next (from another event loop too, as a test
client starts one per request), a request cancelled mid-transaction leaves nothing behind, and no more
transactions run at once than the limit."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import bindparam, text

from slotforge.db.postgres import LoopDatabase, postgres_text

from .conftest import postgres_database
from .test_group_commit import in_a_loop_of_its_own

MARK = postgres_text(text("INSERT INTO marks (mark) VALUES (:mark) RETURNING mark").bindparams(bindparam("mark")))
BACKEND_PID = "SELECT pg_backend_pid()"


class Refused(Exception):
    pass


@pytest.fixture
def url() -> Iterator[str]:
    for url in postgres_database():
        with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute("CREATE TABLE marks (mark integer PRIMARY KEY)")
        yield url


def marks(url: str) -> list[int]:
    with psycopg.connect(url.replace("+psycopg", "")) as conn:
        return [mark for (mark,) in conn.execute("SELECT mark FROM marks ORDER BY mark")]


def test_a_transaction_commits_whole_or_rolls_back_whole(url):
    database = LoopDatabase(url)

    async def main() -> None:
        async with database.transaction() as transaction:
            assert await transaction.first(MARK, {"mark": 1}) == (1,)
            await transaction.send(MARK, {"mark": 2})  # leaves with the commit
        with pytest.raises(Refused):
            async with database.transaction() as transaction:
                await transaction.first(MARK, {"mark": 3})
                raise Refused
        with pytest.raises(psycopg.errors.UniqueViolation):
            async with database.transaction() as transaction:
                await transaction.send(MARK, {"mark": 4})
                await transaction.first(MARK, {"mark": 1})  # taken: the whole transaction fails
        await database.close()

    in_a_loop_of_its_own(main)
    assert marks(url) == [1, 2]


def test_a_connection_serves_the_next_transaction_even_from_another_event_loop(url):
    database = LoopDatabase(url)

    async def backend() -> int:
        async with database.transaction() as transaction:
            (pid,) = await transaction.first(BACKEND_PID, {})
            return pid

    first, second = in_a_loop_of_its_own(backend), in_a_loop_of_its_own(backend)
    assert first == second  # the same connection, kept between the two loops
    in_a_loop_of_its_own(database.close)


def test_a_request_cancelled_mid_transaction_commits_nothing_and_spoils_no_connection(url):
    database = LoopDatabase(url)

    async def main() -> None:
        started = asyncio.Event()

        async def stuck() -> None:
            async with database.transaction() as transaction:
                await transaction.first(MARK, {"mark": 7})
                started.set()
                await asyncio.sleep(3600)

        task = asyncio.create_task(stuck())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for mark in (8, 9):  # whichever connection comes next is clean: its transaction is its own
            async with database.transaction() as transaction:
                await transaction.first(MARK, {"mark": mark})
        await database.close()

    in_a_loop_of_its_own(main)
    assert marks(url) == [8, 9]


def test_no_more_transactions_run_at_once_than_the_limit(url):
    database = LoopDatabase(url, size=3)
    running, most = 0, 0

    async def one(mark: int) -> None:
        nonlocal running, most
        async with database.transaction() as transaction:
            running += 1
            most = max(most, running)
            await transaction.first(MARK, {"mark": mark})
            await asyncio.sleep(0.01)
            running -= 1

    async def main() -> None:
        await asyncio.gather(*(one(mark) for mark in range(20)))
        await database.close()

    in_a_loop_of_its_own(main)
    assert most == 3
    assert marks(url) == list(range(20))
