"""A round-shaped transaction's CPU through SQLAlchemy's execution layer and straight to the driver:

    python bench/bench_statements.py [--transactions 5000] [--backends sqlite,postgresql]

Each transaction is what a straight round sends (``slotforge.rgs.rounds.straight``): a
conditional balance update returning the new balance, an insert returning its id, and a second
insert, in one write transaction opened the server's way (``slotforge.db.write_transaction``).
The same SQLAlchemy constructs are run both ways, back to back in one process, on a scratch
database of each backend; printed: the interpreter's CPU per transaction (``time.process_time``:
the server's cost, whatever the machine's load) and the driver's ratio to SQLAlchemy's.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
from sqlalchemy import BigInteger, Column, Connection, Integer, MetaData, String, Table, bindparam, update

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from slotforge.db import connect, write_transaction  # noqa: E402
from slotforge.db.driver import DriverStatement, DriverTransaction  # noqa: E402

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
metadata = MetaData()
accounts = Table("accounts", metadata, Column("id", Integer, primary_key=True), Column("balance", BigInteger))
history = Table("history", metadata, Column("id", Integer, primary_key=True), Column("account", Integer),
                Column("amount", BigInteger), Column("kind", String(10)))

SETTLE = (update(accounts).where(accounts.c.id == bindparam("p_account"), accounts.c.balance >= bindparam("p_amount"))
          .values(balance=accounts.c.balance - bindparam("p_amount")).returning(accounts.c.balance))
ENTRY = history.insert().values(account=bindparam("account"), amount=bindparam("amount"),
                                kind=bindparam("kind")).returning(history.c.id)
SECOND = history.insert().values(account=bindparam("account"), amount=bindparam("amount"), kind=bindparam("kind"))


def through_sqlalchemy(conn: Connection, number: int) -> None:
    conn.execute(SETTLE, {"p_account": number % 100, "p_amount": 1}).scalar()
    conn.execute(ENTRY, {"account": number % 100, "amount": 1, "kind": "stake"}).scalar()
    conn.execute(SECOND, {"account": number % 100, "amount": 2, "kind": "win"})


def to_the_driver(dialect: str) -> Callable[[Connection, int], None]:
    settle, entry, second = (DriverStatement.of(statement, dialect) for statement in (SETTLE, ENTRY, SECOND))

    def run(conn: Connection, number: int) -> None:
        transaction = DriverTransaction(conn)
        transaction.first(settle, {"p_account": number % 100, "p_amount": 1})
        transaction.first(entry, {"account": number % 100, "amount": 1, "kind": "stake"})
        transaction.send(second, {"account": number % 100, "amount": 2, "kind": "win"})

    return run


def cpu_per_transaction(url: str, work: Callable[[Connection, int], None], count: int) -> float:
    """Microseconds of this process's CPU per transaction of ``work``."""
    engine = connect(url)
    try:
        for number in range(50):  # warm: connections open, statements compiled and prepared
            with write_transaction(engine) as conn:
                work(conn, number)
        started = time.process_time()
        for number in range(count):
            with write_transaction(engine) as conn:
                work(conn, number)
        return (time.process_time() - started) * 1e6 / count
    finally:
        engine.dispose()


def scratch(backend: str, folder: Path) -> tuple[str, str | None]:
    """A fresh database with the two tables: its URL and, on PostgreSQL, its name to drop."""
    if backend == "sqlite":
        url, name = f"sqlite:///{folder / 'statements.db'}", None
    else:
        name = f"slotforge_statements_{secrets.token_hex(3)}"
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    engine = connect(url)
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(accounts.insert(), [{"id": number, "balance": 10**12} for number in range(100)])
    engine.dispose()
    return url, name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transactions", type=int, default=5000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    for backend in args.backends.split(","):
        with tempfile.TemporaryDirectory() as folder:
            url, name = scratch(backend, Path(folder))
            try:
                layered = cpu_per_transaction(url, through_sqlalchemy, args.transactions)
                direct = cpu_per_transaction(url, to_the_driver(backend), args.transactions)
            finally:
                if name:
                    with psycopg.connect(ADMIN, autocommit=True) as admin:
                        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"{backend:10}  SQLAlchemy {layered:7.1f} µs   driver {direct:7.1f} µs of CPU a transaction   "
              f"driver/SQLAlchemy {direct / layered:.2f}", flush=True)


if __name__ == "__main__":
    main()
