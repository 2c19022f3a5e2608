"""A seamless debit's rollback held by its placeholder round: it falls due after its own
operator's ``rollback_hold_s``, and the outbox's worker then writes it as a message due at once,
once, for the round's player and stake, unless the round took it first."""

from __future__ import annotations

import json

from sqlalchemy import Engine, insert, select

from slotforge.db import Writer, connect
from slotforge.rgs.outbox import Outbox
from slotforge.rgs.schema import migrate, operators, outbox, players, rounds, sessions
from slotforge.rgs.settings import load_settings
from slotforge.rgs.wallets.seamless import SeamlessWallet
from slotforge.rgs.wallets.seamless.credits import TARGET
from slotforge.rgs.wallets.seamless.debits import TAKE_HOLD, Debits, HeldDebits, owed

from .conftest import FakeClock
from .wallets import SECRET

HOLDS_S = {"quick": 5, "patient": 30}  # each operator's rollback_hold_s


def placed(engine: Engine, debits: Debits, operator: str, player: str) -> tuple[int, str]:
    """``player`` of ``operator`` and the placeholder of their round, its debit out: (round, debit)."""
    with engine.begin() as conn:
        operator_id = conn.execute(select(operators.c.id).where(operators.c.name == operator)).scalar() or \
            conn.execute(insert(operators).values(name=operator, key_hash=operator.ljust(64, "k"), created_at=0)
                         .returning(operators.c.id)).scalar_one()
        player_id = conn.execute(insert(players).values(
            operator_id=operator_id, external_id=player, currency="EUR", fun=False, balance=0,
            wallet="seamless", created_at=0).returning(players.c.id)).scalar_one()
        session_id = conn.execute(insert(sessions).values(
            token_hash=player.ljust(64, "t"), player_id=player_id, jurisdiction="default", created_at=0,
            last_seen=0).returning(sessions.c.id)).scalar_one()
    with debits.writer() as conn:
        intent = debits.hold(conn, dict(
            player_id=player_id, session_id=session_id, game="dynasty", fun=False, currency="EUR",
            jurisdiction="default", stake=20, win=0, jackpot_win=0, balance_before=0, balance_after=0,
            started_at=debits.now(), status="pending", record="{}", wallet_status="debit_pending"), "dynasty")
    return intent.round_id, intent.transaction_id


def test_each_hold_falls_due_after_its_operators_time_and_becomes_one_rollback(database_url):
    clock = FakeClock()
    engine = connect(database_url)
    migrate(engine)
    writer = Writer(engine)
    settings = load_settings(None, operators={
        name: {"wallet": "seamless", "wallet_url": "http://127.0.0.1:9", "wallet_secret": SECRET,
               "rollback_hold_s": hold_s, "timeout_s": 1.0, "debit_attempts": 1}
        for name, hold_s in HOLDS_S.items()})
    now = lambda: int(clock() * 1000)  # noqa: E731
    wallet = SeamlessWallet(settings, engine, Outbox(engine, writer, clock), now, writer)
    holds = HeldDebits(wallet.debits)
    try:
        quick, quick_debit = placed(engine, wallet.debits, "quick", "ann")
        patient, _ = placed(engine, wallet.debits, "patient", "bob")
        taken, _ = placed(engine, wallet.debits, "quick", "cid")
        with writer() as conn:  # this one's round took its hold (its debit succeeded, the round committed)
            assert conn.execute(TAKE_HOLD, {"p_round": taken}).first() is not None

        with engine.connect() as conn:
            assert holds.count(conn) == 2 and owed(conn) == 2
        assert holds.fall_due() == 0
        clock.advance(HOLDS_S["quick"])
        assert holds.fall_due() == 1 and holds.fall_due() == 0  # once
        with engine.connect() as conn:
            (message,) = conn.execute(select(outbox)).mappings().all()
            statuses = dict(conn.execute(select(rounds.c.id, rounds.c.wallet_status)).all())
            assert holds.count(conn) == 1 and owed(conn) == 2  # the patient one held, the quick one a message
        assert (message["target"], message["kind"], message["key"], message["round_id"]) == (
            TARGET, "rollback", quick_debit, quick)
        assert message["due_at"] == now(), "due at once"
        assert json.loads(message["payload"]) == {"operator": "quick", "body": {
            "transaction_id": quick_debit, "round_id": quick, "player_id": "ann", "amount": "0.20",
            "currency": "EUR", "game": "dynasty"}}
        assert statuses == {quick: "rollback_pending", patient: "debit_pending", taken: None}

        clock.advance(HOLDS_S["patient"] - HOLDS_S["quick"])
        assert holds.fall_due() == 1
        with engine.connect() as conn:
            assert holds.count(conn) == 0
            assert sorted(conn.execute(select(outbox.c.round_id)).scalars()) == [quick, patient]
    finally:
        wallet.calls.close()
        engine.dispose()
