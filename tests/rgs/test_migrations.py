"""The migrations build exactly the schema the code declares, on either database: a column added
to one and forgotten in the other fails here, not on an operator's upgrade; and what a migration
does to the rows already there."""

from __future__ import annotations

import json

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import insert, select, update

from slotforge.db import connect
from slotforge.db.engine import Writer
from slotforge.rgs import outbox as mail
from slotforge.rgs.schema import MIGRATIONS, ledger, metadata, migrate, operators, outbox, players, rounds, sessions


def test_the_migrated_schema_is_the_declared_schema(database_url):
    engine = connect(database_url)
    try:
        migrate(engine)
        with engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()
    assert differences == []


def alembic_config(conn) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    return config


def placeholder(conn, wallet_tx: str) -> int:
    """A seamless round's placeholder, its debit out (as both versions of the code write it)."""
    operator_id = conn.execute(insert(operators).values(name=f"o-{wallet_tx}", key_hash=wallet_tx.ljust(64, "k"),
                                                        created_at=0)
                               .returning(operators.c.id)).scalar_one()
    player_id = conn.execute(insert(players).values(
        operator_id=operator_id, external_id=f"p-{wallet_tx}", currency="EUR", fun=False, balance=0,
        wallet="seamless", created_at=0).returning(players.c.id)).scalar_one()
    session_id = conn.execute(insert(sessions).values(
        token_hash=f"t-{wallet_tx}".ljust(64, "t"), player_id=player_id, jurisdiction="default", created_at=0,
        last_seen=0).returning(sessions.c.id)).scalar_one()
    return conn.execute(insert(rounds).values(
        player_id=player_id, session_id=session_id, game="dynasty", status="pending", fun=False, currency="EUR", jurisdiction="default",
        stake=20, win=0, jackpot_win=0, balance_before=0, balance_after=0, record="{}", started_at=0,
        wallet_tx=wallet_tx, wallet_status="debit_pending").returning(rounds.c.id)).scalar_one()


def test_a_placeholder_whose_rollback_the_outbox_holds_is_given_up_to_it_on_upgrade(database_url):
    """Before migration 0011 a debit's rollback was held by an outbox message: such a round, left
    by a process that stopped, is marked as given up to it, so that the worker does not write the
    rollback a second time; a placeholder without one holds its own."""
    engine = connect(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0010")
            by_message = placeholder(conn, "tx-held-by-a-message")
            mail.enqueue(conn, "wallet", "rollback", "tx-held-by-a-message", {"body": {}}, now=0, hold_ms=60_000,
                         round_id=by_message)
            by_round = placeholder(conn, "tx-held-by-its-round")
            command.upgrade(alembic_config(conn), "head")
            statuses = dict(conn.execute(select(rounds.c.id, rounds.c.wallet_status)).all())
        assert statuses == {by_message: "rollback_pending", by_round: "debit_pending"}
    finally:
        engine.dispose()


def test_a_downgrade_is_refused_while_a_round_holds_its_debits_rollback(database_url):
    engine = connect(database_url)
    try:
        migrate(engine)
        with engine.begin() as conn:
            held = placeholder(conn, "tx-1")
        with engine.begin() as conn, pytest.raises(RuntimeError, match="1 rounds hold their debit's rollback"):
            command.downgrade(alembic_config(conn), "0010")
        with engine.begin() as conn:
            conn.execute(update(rounds).where(rounds.c.id == held).values(status="void",
                                                                          wallet_status="rolled_back"))
            command.downgrade(alembic_config(conn), "0010")
            command.upgrade(alembic_config(conn), "head")
    finally:
        engine.dispose()


class Crash(Exception):
    """The transaction's process fails before the commit."""


def rolled_back_ids(transaction) -> dict[str, int]:
    """The ids a round, its ledger entry and its outbox message were given in ``transaction()``
    (a context giving a connection), which then rolls back."""
    given = {}
    with pytest.raises(Crash), transaction() as conn:
        given["rounds"] = placeholder(conn, "tx-rolled-back")
        player_id = conn.execute(select(rounds.c.player_id).where(rounds.c.id == given["rounds"])).scalar_one()
        given["ledger"] = conn.execute(insert(ledger).values(player_id=player_id, kind="stake", amount=20,
                                                             round_id=given["rounds"], created_at=0)
                                       .returning(ledger.c.id)).scalar_one()
        given["outbox"] = conn.execute(insert(outbox).values(mail.message_row(
            "wallet", "credit", f"k-{given['rounds']}", {}, now=0, round_id=given["rounds"]))
            .returning(outbox.c.id)).scalar_one()
        raise Crash
    return given


@pytest.fixture
def migrated(database_url):
    engine = connect(database_url)
    migrate(engine)
    yield engine
    engine.dispose()


def test_an_id_given_to_a_row_that_rolled_back_is_never_given_again(migrated):
    """A round, ledger entry or outbox message written in a server's transaction that rolls back
    leaves its id unused for good: a claim or message made for it meanwhile names no later row."""
    writer = Writer(migrated)
    first, second = rolled_back_ids(writer), rolled_back_ids(writer)
    assert all(second[table] > first[table] for table in first), (first, second)


def test_an_id_given_in_a_transaction_a_crash_cut_short_is_never_given_after_the_restart(migrated):
    cut_short = rolled_back_ids(migrated.begin)  # nothing of it on disk, as after kill -9
    migrate(migrated)  # the server's restart
    after = rolled_back_ids(Writer(migrated))
    assert all(after[table] > cut_short[table] for table in after), (cut_short, after)


def test_the_rebuilt_tables_keep_their_rows_and_count_on_from_the_highest_id(database_url):
    engine = connect(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0011")
            kept = [placeholder(conn, f"tx-{n}") for n in range(3)]
            later = ("model", "free_grant_id", "free_campaign")  # the columns migrations after 0011 add
            as_then = select(*(column for column in rounds.c if column.name not in later)).order_by(rounds.c.id)
            before = conn.execute(as_then).all()
            command.upgrade(alembic_config(conn), "head")
            assert conn.execute(as_then).all() == before
        writer = Writer(engine)
        assert rolled_back_ids(writer)["rounds"] == max(kept) + 1
        assert rolled_back_ids(writer)["rounds"] == max(kept) + 2
    finally:
        engine.dispose()


def test_a_rounds_model_is_read_from_its_record_by_the_database(database_url):
    engine = connect(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0015")
            before = placeholder(conn, "tx-model")
            command.upgrade(alembic_config(conn), "head")
            model = "dynasty/92.00:0123456789ab"
            conn.execute(update(rounds).where(rounds.c.id == before).values(record=json.dumps({"model": model})))
            assert conn.execute(select(rounds.c.model).where(rounds.c.id == before)).scalar_one() == model
    finally:
        engine.dispose()
