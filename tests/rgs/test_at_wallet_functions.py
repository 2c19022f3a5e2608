"""PostgreSQL's ``slotforge_hold_debit`` and ``slotforge_settle_at_wallet``, the two transactions
of a round at a seamless wallet as one call each (see ``slotforge/rgs/rounds/at_wallet.py``),
called as the server calls them: through :func:`~slotforge.rgs.rounds.at_wallet.hold` and
:func:`~slotforge.rgs.rounds.at_wallet.commit` on a connection in autocommit. A round
they play writes row for row what SQLite's statements write for the same round (the placeholder
holding the debit's rollback, no message); each refusal leaves every table as it was, including
a refusal found after the round was changed; a round left awaiting while the call waited for the
player's row is seen; and the settling waits for, and then refuses, a placeholder whose
rollback the outbox's worker is giving up."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, insert, select, text

from slotforge.db import connect
from slotforge.db.driver import DriverTransaction
from slotforge.db.engine import Writer, autocommit, write_transaction
from slotforge.rgs.outbox import Outbox
from slotforge.rgs.rounds import at_wallet
from slotforge.rgs.rounds.service import Auth
from slotforge.rgs.schema import MIGRATIONS, idempotency, ledger, migrate, operators, outbox, players, rounds, sessions
from slotforge.rgs.settings import Jurisdiction, load_settings
from slotforge.rgs.store import Refused, store_for
from slotforge.rgs.store.postgres import REFUSED
from slotforge.rgs.wallets.seamless import SeamlessWallet
from slotforge.rgs.wallets.seamless.client import call_body
from slotforge.rgs.wallets.seamless.credits import wallet_message
from slotforge.rgs.wallets.seamless.debits import DebitIntent, Debits

from .conftest import postgres_database
from .locks import waiting_for_a_lock
from .wallets import OPERATOR, seamless_operator

NOW = 1_800_000_000_000
STAKE, WIN, REPORTED = 100, 50, 5000  # the wallet answers the debit with 50.00
OWED = 30  # an earlier round's win, its credit not yet acknowledged by the wallet
GAME = SimpleNamespace(code="dynasty")  # all the two steps read of a game
RESULT = SimpleNamespace(total_win=Decimal("0.50"), complete=True, record={"total_win": "0.50"},
                         encoded=b'{"game":"dynasty","total_win":"0.50"}')  # all they read of a round's result
TOO_SOON = Jurisdiction(min_round_ms=1000)


def counted(debits: Debits) -> None:
    """``debits`` with their transaction ids counted rather than random: two databases given the
    same rounds get the same rows."""
    numbers = itertools.count(1)
    random = debits.intent_for

    def intent_for(*args: Any) -> DebitIntent:
        intent = random(*args)
        intent.transaction_id = f"tx-{next(numbers)}"
        return intent

    debits.intent_for = intent_for


def server_of(engine: Engine) -> SimpleNamespace:
    """All the two steps use of a server: its seamless wallet, its clock and its write listeners."""
    settings = load_settings(None, operators=seamless_operator("http://127.0.0.1:9"))
    writer = Writer(engine)
    wallet = SeamlessWallet(settings, engine, Outbox(engine, writer), lambda: NOW, writer)
    counted(wallet.debits)
    return SimpleNamespace(seamless=wallet, now=lambda: NOW, transaction=writer, store=store_for(writer))


def populated(engine: Engine) -> Engine:
    """``engine``'s database migrated, with the seamless operator's player (the wallet last said
    10.00), a session, and an earlier round whose win of 0.30 the wallet is still owed."""
    migrate(engine)
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":  # ids from 1 as PostgreSQL's (a start moves SQLite's on by 1,000)
            conn.execute(text("DELETE FROM sqlite_sequence"))
        operator_id = conn.execute(insert(operators).values(name=OPERATOR, key_hash="k" * 64, created_at=NOW)
                                   .returning(operators.c.id)).scalar_one()
        player_id = conn.execute(insert(players).values(
            operator_id=operator_id, external_id="p-1", currency="EUR", fun=False, balance=1000, wallet="seamless",
            last_round_at=None, created_at=NOW).returning(players.c.id)).scalar_one()
        session_id = conn.execute(insert(sessions).values(
            token_hash="t" * 64, player_id=player_id, jurisdiction="default", created_at=NOW,
            last_seen=NOW).returning(sessions.c.id)).scalar_one()
        conn.execute(insert(rounds).values(round_row(player_id, session_id, status="complete", win=OWED,
                                                     finished_at=NOW - 5000, wallet_status="credit_pending")))
    return engine


def round_row(player_id: int, session_id: int, **changed: Any) -> dict[str, Any]:
    """A round of Dynasty, awaiting a decision unless ``changed``."""
    return {**dict(player_id=player_id, session_id=session_id, game="dynasty", status="awaiting", fun=False,
                   currency="EUR", jurisdiction="default", stake=STAKE, win=0, jackpot_win=0, balance_before=1000,
                   balance_after=900, record="{}", started_at=NOW - 5000, finished_at=None), **changed}


@pytest.fixture
def engine() -> Iterator[Engine]:
    for url in postgres_database():
        engine = populated(connect(url))
        yield engine
        engine.dispose()


@pytest.fixture
def server(engine) -> Iterator[SimpleNamespace]:
    server = server_of(engine)
    yield server
    server.seamless.calls.close()


def auth_of(engine: Engine, jurisdiction: Jurisdiction | None = None) -> Auth:
    with engine.connect() as conn:
        session_id, player_id = conn.execute(select(sessions.c.id, sessions.c.player_id)).one()
    return Auth(session_id=session_id, player_id=player_id, fun=False, currency="EUR", jurisdiction_name="default",
                jurisdiction=jurisdiction or Jurisdiction(), started_at=NOW, wallet="seamless", operator_id=1)


def hold(server, engine: Engine, auth: Auth, key: str = "k-1") -> DebitIntent:
    """Step 1 as the server takes it on PostgreSQL, the wallet then answering the debit."""
    with engine.connect() as conn:
        info = server.seamless.players.player(conn, auth.player_id)
    with autocommit(engine) as driver:
        intent = at_wallet.hold(server, DriverTransaction(driver), auth, GAME, STAKE, key, info)
    intent.balance = REPORTED
    return intent


def commit(server, engine: Engine, auth: Auth, intent: DebitIntent, key: str = "k-1") -> bytes:
    """Step 4 as the server takes it on PostgreSQL: the answer (its credit's id and row checked
    against the outbox)."""
    with autocommit(engine) as driver:
        answer, (credit_id, credit) = at_wallet.commit(server, DriverTransaction(driver), auth, GAME, key, "h" * 64,
                                                       intent, RESULT)
    with engine.connect() as conn:
        stored = conn.execute(select(outbox).where(outbox.c.id == credit_id)).mappings().one()
    assert {**credit, "id": credit_id} == dict(stored), "the credit the request sends is the one the call wrote"
    return answer


def everything(engine: Engine) -> dict[str, list]:
    """Every row of the tables a round writes to, as the server reads them (an outbox message's
    payload decoded, and no message id: SQLite may give a deleted message's id again)."""
    tables = {}
    with engine.connect() as conn:
        for table in (players, rounds, ledger, idempotency, outbox):
            rows = [dict(row) for row in conn.execute(select(table)).mappings()]
            if table is outbox:
                rows = [{**row, "id": None, "payload": json.loads(row["payload"])} for row in rows]
            tables[table.name] = sorted(rows, key=repr)
    return tables


def test_a_round_writes_what_sqlites_statements_write(engine, server, tmp_path: Path):
    """The same round through SQLite's statements (:mod:`slotforge.rgs.store.sqlite`)
    and through the two calls: the same rows after each step, the same intent, the same answer."""
    lite = populated(connect(f"sqlite:///{tmp_path / 'rgs.db'}"))
    lite_server = server_of(lite)
    try:
        auth = auth_of(engine)
        with write_transaction(lite) as conn:
            info = lite_server.seamless.players.player(conn, auth.player_id)
            held = at_wallet.hold(lite_server, DriverTransaction(conn), auth, GAME, STAKE, "k-1", info)
        held.balance = REPORTED
        intent = hold(server, engine, auth)
        assert everything(engine) == everything(lite)
        assert vars(intent) == vars(held)

        with write_transaction(lite) as conn:
            expected, _credit = at_wallet.commit(lite_server, DriverTransaction(conn), auth, GAME, "k-1", "h" * 64,
                                                 held, RESULT)
        assert commit(server, engine, auth, intent) == expected
        assert everything(engine) == everything(lite)
        assert vars(intent) == vars(held) and intent.taken
    finally:
        lite_server.seamless.calls.close()
        lite.dispose()


def test_the_hold_writes_the_placeholder_alone_which_holds_the_rollback(engine, server):
    auth = auth_of(engine)
    before = everything(engine)
    intent = hold(server, engine, auth)
    after = everything(engine)
    assert after["players"] == before["players"] and after["ledger"] == before["ledger"] == []
    assert after["idempotency"] == before["idempotency"] == []
    placeholder = next(row for row in after["rounds"] if row["id"] == intent.round_id)
    assert placeholder == {**placeholder, "status": "pending", "stake": STAKE, "win": 0, "balance_before": 1000,
                           "balance_after": 1000, "record": "{}", "started_at": NOW, "finished_at": None,
                           "wallet_tx": intent.transaction_id, "wallet_status": "debit_pending",
                           "request_key": "k-1"}
    assert len(after["rounds"]) == len(before["rounds"]) + 1
    assert after["outbox"] == [], "no message: the placeholder holds the rollback"
    assert intent.body == call_body(intent.transaction_id, intent.round_id, intent.player, STAKE, "dynasty")


@pytest.mark.parametrize("refusal", ["too soon", "a round of the game awaits", "the key is answered",
                                     "the key has a debit out"])
def test_each_refusal_of_the_hold_changes_nothing(engine, server, refusal):
    auth = auth_of(engine, TOO_SOON if refusal == "too soon" else None)
    with engine.begin() as conn:
        if refusal == "too soon":
            conn.execute(players.update().values(last_round_at=NOW - 100))
        elif refusal == "a round of the game awaits":
            conn.execute(insert(rounds).values(round_row(auth.player_id, auth.session_id)))
        elif refusal == "the key is answered":
            conn.execute(insert(idempotency).values(player_id=auth.player_id, key="k-1", request_hash="h" * 64,
                                                    status_code=200, body="{}", round_id=None, created_at=NOW))
    if refusal == "the key has a debit out":
        hold(server, engine, auth)
    before = everything(engine)
    with pytest.raises(Refused):
        hold(server, engine, auth)
    assert everything(engine) == before


def test_the_settling_pays_the_round_with_the_wins_owed(engine, server):
    auth = auth_of(engine)
    intent = hold(server, engine, auth)
    answer = json.loads(commit(server, engine, auth, intent))
    assert answer["balance"] == "50.80"  # the wallet's 50.00, the earlier 0.30 and this 0.50 on their way
    tables = everything(engine)
    assert [(row["balance"], row["last_round_at"]) for row in tables["players"]] == [(REPORTED + OWED + WIN, NOW)]
    played = next(row for row in tables["rounds"] if row["id"] == intent.round_id)
    assert (played["status"], played["wallet_status"], played["win"], played["balance_before"],
            played["balance_after"]) == ("complete", "credit_pending", WIN, REPORTED + OWED + STAKE,
                                         REPORTED + OWED + WIN)
    assert sorted((row["kind"], row["amount"]) for row in tables["ledger"]) == [("stake", STAKE), ("win", WIN)]
    credit = wallet_message("credit", intent.transaction_id, intent.round_id, intent.player, WIN, "dynasty", NOW,
                            hold_ms=server.seamless.credits.handoff_ms(intent.operator))
    assert credit["due_at"] > NOW, "held while the round's request sends it itself"
    assert tables["outbox"] == [{**credit, "id": None, "payload": json.loads(credit["payload"])}]
    assert [(row["key"], row["round_id"], row["body"]) for row in tables["idempotency"]] == [
        ("k-1", intent.round_id, None)]


@pytest.mark.parametrize("refusal", ["no held rollback", "too soon", "a round of the game awaits",
                                     "the key is stored"])
def test_each_refusal_of_the_settling_changes_nothing(engine, server, refusal):
    auth = auth_of(engine, TOO_SOON if refusal == "too soon" else None)
    intent = hold(server, engine, auth)
    with engine.begin() as conn:
        if refusal == "no held rollback":  # given up meanwhile: the round is the rollback's to void
            with server.transaction() as given_up:
                assert server.seamless.debits.give_up(given_up, intent.round_id, intent.transaction_id,
                                                      intent.player, STAKE, "dynasty", NOW)
        elif refusal == "too soon":  # another round of the player's, since the hold
            conn.execute(players.update().values(last_round_at=NOW - 100))
        elif refusal == "a round of the game awaits":
            conn.execute(insert(rounds).values(round_row(auth.player_id, auth.session_id)))
        else:
            conn.execute(insert(idempotency).values(player_id=auth.player_id, key="k-1", request_hash="h" * 64,
                                                    status_code=200, body="{}", round_id=None, created_at=NOW))
    before = everything(engine)
    with pytest.raises(Refused) as refused:
        commit(server, engine, auth, intent)
    assert everything(engine) == before
    assert not intent.taken
    # Refused before any change, the call returns nothing; after one, it raises and is undone.
    cause = refused.value.__cause__
    assert (cause is None) if refusal == "no held rollback" else (cause.sqlstate == REFUSED)


def settled_or_refused(server, engine: Engine, auth: Auth, intent: DebitIntent, outcome: list[Any]) -> None:
    """Step 4, its outcome kept: the answer, or the cause of its refusal (None: refused before
    any change)."""
    try:
        outcome.append(commit(server, engine, auth, intent))
    except Refused as refused:
        outcome.append(refused.__cause__)


def test_a_round_left_awaiting_while_the_settling_waited_for_the_player_is_seen(engine, server):
    """The round is finished by a statement after the player's row is locked: it sees a round
    that a request of the player's holding that lock left awaiting when it committed."""
    auth = auth_of(engine)
    intent = hold(server, engine, auth)
    outcome: list[Any] = []
    with engine.begin() as other:  # another request of the player's: locks the row, leaves a round awaiting
        other.execute(select(players.c.id).with_for_update())
        other.execute(insert(rounds).values(round_row(auth.player_id, auth.session_id)))
        caller = waiting_for_a_lock(engine, lambda: settled_or_refused(server, engine, auth, intent, outcome))
    caller.join(10)
    assert [refusal.sqlstate for refusal in outcome] == [REFUSED]
    with engine.connect() as conn:
        assert conn.execute(select(rounds.c.wallet_status).where(rounds.c.id == intent.round_id)).scalar_one() \
            == "debit_pending", "still held"


def test_a_rollback_given_up_while_the_settling_waited_for_the_placeholder_is_seen(engine, server):
    """The settling locks the placeholder before it finds it holding the rollback: a worker
    giving the rollback up meanwhile (its transaction open) is waited for, and then seen."""
    auth = auth_of(engine)
    intent = hold(server, engine, auth)
    outcome: list[Any] = []
    with server.transaction() as worker:
        assert server.seamless.debits.give_up(worker, intent.round_id, intent.transaction_id, intent.player,
                                              STAKE, "dynasty", NOW)
        caller = waiting_for_a_lock(engine, lambda: settled_or_refused(server, engine, auth, intent, outcome))
    caller.join(10)
    assert outcome == [None], "refused, nothing written"
    with engine.connect() as conn:
        assert conn.execute(select(outbox.c.kind)).scalars().all() == ["rollback"]
        assert conn.execute(select(rounds.c.status, rounds.c.wallet_status).where(
            rounds.c.id == intent.round_id)).one() == ("pending", "rollback_pending")


def test_the_downgrade_drops_the_functions(engine):
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    exists = text("SELECT count(*) FROM pg_proc WHERE proname IN ('slotforge_hold_debit', "
                  "'slotforge_settle_at_wallet')")
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0008")
        assert conn.execute(exists).scalar_one() == 0
        command.upgrade(config, "head")
        assert conn.execute(exists).scalar_one() == 2
