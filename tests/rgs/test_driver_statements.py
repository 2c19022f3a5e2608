"""Statements sent straight to the driver (the straight round's): on both databases they run
inside the SQLAlchemy transaction that holds them (its rollback undoes them, its commit keeps
them), keep the constants their construct compares with, and are heard by the listeners."""

from __future__ import annotations

import pytest
from sqlalchemy import BigInteger, Column, Integer, MetaData, String, Table, bindparam, select, update

from slotforge.db import connect, write_transaction
from slotforge.db.driver import DriverStatement, DriverTransaction

from .conftest import BACKENDS, database_for

metadata = MetaData()
accounts = Table("accounts", metadata, Column("id", Integer, primary_key=True), Column("balance", BigInteger),
                 Column("state", String(10)))

TAKE = (update(accounts).where(accounts.c.id == bindparam("p_id"), accounts.c.balance >= bindparam("p_amount"),
                               accounts.c.state == "open")  # a constant the construct holds
        .values(balance=accounts.c.balance - bindparam("p_amount")).returning(accounts.c.balance))
OPEN = accounts.insert().values(id=bindparam("id"), balance=bindparam("balance"), state=bindparam("state"))


class Undone(Exception):
    pass


@pytest.fixture(params=BACKENDS)
def engine(request, tmp_path):
    for url in database_for(request.param, tmp_path):
        engine = connect(url)
        metadata.create_all(engine)
        yield engine
        engine.dispose()


def balances(engine) -> dict[int, int]:
    with engine.connect() as conn:
        return dict(conn.execute(select(accounts.c.id, accounts.c.balance)).all())


def test_statements_run_inside_the_transaction_that_holds_them(engine):
    dialect = engine.dialect.name
    take, open_ = DriverStatement.of(TAKE, dialect), DriverStatement.of(OPEN, dialect)
    heard: list[str] = []
    with write_transaction(engine) as conn:
        transaction = DriverTransaction(conn, [heard.append])
        transaction.send_many(open_, [{"id": 1, "balance": 100, "state": "open"},
                                      {"id": 2, "balance": 100, "state": "closed"}])
        assert transaction.first(take, {"p_id": 1, "p_amount": 30}) == (70,)
        assert transaction.first(take, {"p_id": 1, "p_amount": 71}) is None  # too little: nothing returned
        assert transaction.first(take, {"p_id": 2, "p_amount": 1}) is None  # the constant: a closed account
    assert balances(engine) == {1: 70, 2: 100}
    assert heard == [open_.text, take.text, take.text, take.text]

    with pytest.raises(Undone), write_transaction(engine) as conn:
        DriverTransaction(conn).first(take, {"p_id": 1, "p_amount": 50})
        raise Undone
    assert balances(engine) == {1: 70, 2: 100}  # rolled back with its transaction


def test_a_construct_compiles_to_its_driver_text_with_its_constants():
    on_sqlite, on_postgres = DriverStatement.of(TAKE, "sqlite"), DriverStatement.of(TAKE, "postgresql")
    assert ":p_id" in on_sqlite.text and "%(p_id)s::INTEGER" in on_postgres.text
    assert list(on_sqlite.constants.values()) == ["open"] == list(on_postgres.constants.values())
    assert on_sqlite.parameters({"p_id": 1})["p_id"] == 1
