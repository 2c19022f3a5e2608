"""The seamless wallet, scenario by scenario: the reference wallet's own rules (signatures,
idempotency, a rollback before its debit) against the real ``slotforge wallet-demo`` process,
then a game server (in this process, its clock moved by the test, on SQLite and PostgreSQL)
whose operator keeps the money there: the debit, the credit pending until acknowledged, a
refusal, a failing, hanging or late wallet, and a crash between the debit and the commit."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import time
from decimal import Decimal

import pytest
from sqlalchemy import select

from slotforge.rgs import outbox as mail
from slotforge.rgs.api import access
from slotforge.rgs.audit import audit
from slotforge.rgs.rounds import at_wallet
from slotforge.rgs.schema import rounds
from slotforge.rgs.settings import SettingsError, load_settings
from slotforge.rgs.wallets.seamless.debits import PENDING_WINS

from .conftest import SRC, Api
from .plans import assert_read_through
from .statements import Counter
from .wallets import OPERATOR, SECRET, WalletProcess, cents, seamless_operator, settings_file

STAKE = "0.20"  # Dynasty's default bet


@pytest.fixture(scope="module")
def wallet(tmp_path_factory):
    process = WalletProcess(tmp_path_factory.mktemp("wallet"), "--hang-s", "0.6").start()
    yield process
    process.kill()


def body(**fields) -> dict:
    return {"transaction_id": secrets.token_hex(8), "round_id": 1, "player_id": "p", "amount": "1.00",
            "currency": "EUR", "game": "dynasty", **fields}


# -- the reference wallet ------------------------------------------------------------------------

def test_a_call_with_a_bad_or_missing_signature_is_refused_and_moves_nothing(wallet):
    wallet.deposit("sig", "10.00")
    debit = body(player_id="sig")
    refused = wallet.call("debit", debit, secret="another-secret-of-16-chars")
    assert refused.status_code == 401 and refused.json()["error"] == "INVALID_SIGNATURE"
    assert wallet.balance("sig") == "10.00"
    accepted = wallet.call("debit", debit)
    assert accepted.status_code == 200 and accepted.json() == {"balance": "9.00"}


def test_a_transaction_is_applied_once_and_its_id_cannot_carry_another_amount(wallet):
    wallet.deposit("once", "10.00")
    debit = body(player_id="once", amount="2.50")
    answers = [wallet.call("debit", debit).json() for _ in range(3)]
    assert answers == [{"balance": "7.50"}] * 3
    other = wallet.call("debit", {**debit, "amount": "1.00"})
    assert other.status_code == 409 and other.json()["error"] == "DUPLICATE_TRANSACTION"
    credit = body(player_id="once", amount="4.00")
    assert [wallet.call("credit", credit).json() for _ in range(2)] == [{"balance": "11.50"}] * 2
    assert wallet.balance("once") == "11.50"


def test_a_rollback_before_its_debit_is_acknowledged_remembered_and_the_late_debit_refused(wallet):
    wallet.deposit("late", "10.00")
    debit = body(player_id="late", amount="3.00")
    assert wallet.call("rollback", debit).json() == {"balance": "10.00"}
    refused = wallet.call("debit", debit)
    assert refused.status_code == 409 and refused.json()["error"] == "TRANSACTION_ROLLED_BACK"
    assert wallet.balance("late") == "10.00"
    # A rollback after its debit gives the stake back, once.
    taken = body(player_id="late", amount="3.00")
    assert wallet.call("debit", taken).json() == {"balance": "7.00"}
    assert [wallet.call("rollback", taken).json() for _ in range(2)] == [{"balance": "10.00"}] * 2
    assert wallet.call("debit", taken).json() == {"balance": "7.00"}, "a repeat gets the stored answer"
    assert wallet.balance("late") == "10.00"


def test_insufficient_funds_and_unknown_players_are_refused(wallet):
    wallet.deposit("poor", "0.50")
    poor = wallet.call("debit", body(player_id="poor"))
    assert poor.status_code == 402 and poor.json() == {"error": "INSUFFICIENT_FUNDS", "balance": "0.50"}
    nobody = wallet.call("debit", body(player_id="nobody"))
    assert nobody.status_code == 404 and nobody.json()["error"] == "UNKNOWN_PLAYER"
    assert wallet.books()["balanced"]


def test_the_books_command_reads_what_the_books_endpoint_shows(wallet):
    wallet.deposit("reader", "3.00")
    assert wallet.call("debit", body(player_id="reader", amount="1.25")).status_code == 200
    done = subprocess.run([sys.executable, "-m", "slotforge.cli", "wallet-demo", "books", "--database",
                           str(wallet.database)], env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed == wallet.books()
    reader = next(p for p in printed["players"] if p["player_id"] == "reader")
    assert (reader["balance"], reader["deposits"], reader["debits"], reader["balanced"]) == ("1.75", "3.00", "1.25", True)


# -- settings ------------------------------------------------------------------------------------

def test_a_seamless_operator_without_a_url_or_with_a_short_secret_is_refused_naming_the_field(tmp_path):
    with pytest.raises(SettingsError, match=r"operators\.casino\.wallet_url: .*required"):
        load_settings(None, operators={"casino": {"wallet": "seamless", "wallet_secret": SECRET}})
    with pytest.raises(SettingsError, match=r"operators\.casino\.wallet_secret: .*16 characters"):
        load_settings(None, operators={"casino": {"wallet": "seamless", "wallet_url": "http://w", "wallet_secret": "x"}})
    config = settings_file(tmp_path, "http://127.0.0.1:1", rollback_hold_s=2)
    with pytest.raises(SettingsError, match=r"settings.toml: operators\.casino\.rollback_hold_s: .*twice"):
        load_settings(config)


# -- a game server with a seamless operator -------------------------------------------------------

@pytest.fixture
def casino(make_api, games, wallet):
    """An in-process server whose operator ``casino`` keeps its money at the wallet (short
    time-outs, two tries per debit); ``casino.server`` is the server."""
    operators = seamless_operator(wallet.url, timeout_s=0.3, debit_attempts=2, rollback_hold_s=5)
    api = make_api({"dynasty": games["dynasty"]}, operators=operators,
                   jurisdictions={"nogamble": {"gamble": False}})
    server = api.client.app.state.server
    with server.transaction() as conn:
        key = access.add_operator(conn, OPERATOR, server.now())
    casino = Api(api.client, key)
    casino.server = server
    wallet.faults()
    yield casino
    wallet.faults()


def seamless_player(casino, wallet, balance: str = "10.00"):
    player = casino.player("0.00", jurisdiction="nogamble")
    wallet.deposit(player.player_id, balance)
    return player


def drain(server) -> None:
    assert server.outbox.drain(timeout=30, target="wallet")


class HeldCredits:
    """A round's credit, which its request sends as it answers, kept back until :meth:`release`
    (so that a test sees the round's own transactions alone, or the credit fail)."""

    def __init__(self, server, monkeypatch) -> None:
        self.server, self.kept = server, []
        self.send = server.seamless.credits.credit_now
        monkeypatch.setattr(server.seamless.credits, "credit_now", lambda *credit: self.kept.append(credit))

    def release(self) -> None:
        """Send the kept credits, and wait until each one's outcome is recorded."""
        ids = [message_id for message_id, _row in self.kept]
        for credit in self.kept:
            self.send(*credit)
        deadline = time.monotonic() + 30
        while not self.recorded(ids):
            assert time.monotonic() < deadline, "the credits' outcomes were not recorded"
            time.sleep(0.02)

    def recorded(self, ids: list[int]) -> bool:
        with self.server.engine.connect() as conn:
            return all(attempts > 0 for attempts in conn.execute(
                select(mail.outbox.c.attempts).where(mail.outbox.c.id.in_(ids))).scalars())


def test_a_round_debits_the_wallet_and_shows_its_credit_pending_until_acknowledged(casino, wallet):
    player = seamless_player(casino, wallet)
    played = player.play()
    assert played.status_code == 200, played.text
    answer = played.json()
    assert answer["round"]["wallet"]["status"] == "credit_pending"
    win = Decimal(answer["round"]["total_win"])
    # The stake is taken; the win is on its way (the round's request sends the credit as it answers).
    assert wallet.balance(player.player_id) in ("9.80", answer["balance"])
    assert Decimal(answer["balance"]) == Decimal("9.80") + win
    drain(casino.server)
    assert wallet.balance(player.player_id) == answer["balance"]
    stored = player.get(f"/v1/rounds/{answer['round']['id']}").json()["round"]
    assert stored["wallet"] == {"transaction_id": answer["round"]["wallet"]["transaction_id"], "status": "settled"}
    first, again = player.play(key="again").json(), player.play(key="again").json()
    # Exactly once, as ever: the same round and balance; the retry shows where its credit stands now.
    assert again["round"]["wallet"]["status"] in ("credit_pending", "settled")
    for answered in (first, again):
        answered["round"]["wallet"].pop("status")
    assert again == first, "exactly once, as ever"
    drain(casino.server)
    with casino.server.engine.connect() as conn:
        assert audit(conn) == []


def test_a_plain_round_at_the_wallet_is_two_short_transactions(casino, wallet, monkeypatch):
    """The common round (debit taken, round complete) goes straight through: its placeholder and
    held rollback in one commit (two statements), the round in another (six); on PostgreSQL each
    is one call of a function in autocommit (no ``BEGIN`` or ``COMMIT`` sent), every statement
    counted as in the internal wallet's test; and the round is all there."""
    player = seamless_player(casino, wallet)
    assert player.play().status_code == 200  # the player's wallet details are read once, then kept
    drain(casino.server)
    credits = HeldCredits(casino.server, monkeypatch)  # its credit's own transaction is not the round's
    counter = Counter(casino.server)
    counter.counting = True
    played = player.play()
    counter.counting = False
    assert played.status_code == 200, played.text
    postgres = casino.server.engine.dialect.name == "postgresql"
    assert counter.commits == (0 if postgres else 2)
    assert len(counter.statements) <= (2 if postgres else 6), counter.statements
    answer = played.json()["round"]
    with casino.server.engine.connect() as conn:
        row = conn.execute(select(rounds).where(rounds.c.id == answer["id"])).mappings().one()
        owed = mail.pending(conn, "wallet", round_id=answer["id"])
    assert (row["status"], row["wallet_status"], row["win"]) == ("complete", "credit_pending",
                                                                  cents(answer["total_win"]))
    assert owed == 1, "its credit, and no held rollback left behind"
    credits.release()
    drain(casino.server)
    with casino.server.engine.connect() as conn:
        assert audit(conn) == []


def test_the_wins_owed_to_a_wallet_are_summed_without_walking_the_players_history(casino, wallet):
    """Every seamless round shows the wallet's balance plus the wins on their way to it; with
    thousands of settled rounds behind a player that sum must read only the few still owed."""
    player = seamless_player(casino, wallet)
    played = player.play().json()["round"]
    settled, owed = 3000, 3
    with casino.server.transaction() as conn:
        row = conn.execute(select(rounds).where(rounds.c.id == played["id"])).mappings().one()
        # A copy without its id and the columns the database computes (the model, from the record).
        written = {column.name for column in rounds.columns if column.computed is None and column.name != "id"}
        copy = {name: value for name, value in row.items() if name in written}
        conn.execute(rounds.update().values(wallet_status="settled"))
        conn.execute(rounds.insert(), [dict(copy, wallet_status="credit_pending" if n < owed else "settled", win=100)
                                       for n in range(settled + owed)])
    query = PENDING_WINS.params(p_player=row["player_id"])
    with casino.server.engine.connect() as conn:
        assert conn.execute(query).scalar_one() == owed * 100
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE rounds")
        assert_read_through(conn, query, "ix_rounds_credit_pending", most_rows=2 * owed)


def test_deposits_to_a_seamless_player_are_refused(casino, wallet):
    player = seamless_player(casino, wallet)
    refused = casino.operator("POST", f"/v1/operator/players/{player.player_id}/transactions",
                              json={"kind": "deposit", "amount": "5.00", "reference": "r1"})
    assert refused.status_code == 403 and refused.json()["error"] == "FEATURE_DISABLED"


def test_a_refused_debit_answers_402_voids_the_round_and_takes_nothing(casino, wallet):
    player = seamless_player(casino, wallet, balance="0.10")
    refused = player.play()
    assert refused.status_code == 402, refused.text
    assert refused.json()["error"] == "INSUFFICIENT_FUNDS" and refused.json()["balance"] == "0.10"
    drain(casino.server)
    stored = player.get(f"/v1/rounds/{refused.json()['round']}").json()["round"]
    assert stored["status"] == "void" and stored["wallet"]["status"] == "rolled_back"
    assert wallet.balance(player.player_id) == "0.10"


@pytest.mark.parametrize("fault", ["fail", "timeout", "late", "twice"])
def test_an_unanswered_debit_is_rolled_back_the_round_void_and_the_player_told_503(casino, wallet, fault):
    """fail and timeout apply nothing; late and twice apply the debit but the answer never
    arrives in time: either way the rollback leaves the balance as it was."""
    player = seamless_player(casino, wallet)
    wallet.faults(**{fault: 1.0, "hang_s": 0.6})
    refused = player.play()
    assert refused.status_code == 503, refused.text
    assert refused.json()["error"] == "WALLET_UNAVAILABLE"
    wallet.faults()
    if fault in ("timeout", "late"):
        time.sleep(0.7)  # the hung calls finish (a late one applies its debit)
    drain(casino.server)
    assert wallet.balance(player.player_id) == "10.00"
    stored = player.get(f"/v1/rounds/{refused.json()['round']}").json()["round"]
    assert stored["status"] == "void" and stored["wallet"]["status"] == "rolled_back"
    assert player.play().status_code == 200, "the wallet is back: the next round plays"
    drain(casino.server)
    with casino.server.engine.connect() as conn:
        assert audit(conn) == []


def test_a_round_whose_debit_is_at_the_wallet_is_not_in_the_history_until_it_is_played(casino, wallet):
    player = seamless_player(casino, wallet)
    player.play()
    wallet.faults(timeout=1.0, hang_s=0.6)  # the debit hangs past the time-out, twice: a window of 0.6 s
    playing = threading.Thread(target=player.play)
    playing.start()

    def pending() -> bool:
        with casino.server.engine.connect() as conn:
            return conn.execute(select(rounds.c.id).where(rounds.c.status == "pending")).first() is not None

    seen_inside = 0
    while playing.is_alive():
        before = pending()
        listed = player.get("/v1/rounds").json()["rounds"]
        if before and pending():  # this recall was answered while the round's debit was out
            seen_inside += 1
            assert len(listed) == 1 and listed[0]["status"] == "complete"
        time.sleep(0.01)
    playing.join()
    wallet.faults()
    assert seen_inside > 0
    listed = player.get("/v1/rounds").json()["rounds"]
    assert [r["status"] for r in listed] == ["void", "complete"]  # once settled, the void round shows


def test_a_credit_is_retried_until_the_wallet_acknowledges_it(casino, wallet, clock, monkeypatch):
    """The round's request sends its credit as it answers; a credit that fails there waits for
    the outbox's worker, which retries it on its back-off until the wallet acknowledges."""
    player = seamless_player(casino, wallet)
    server = casino.server
    credits = HeldCredits(server, monkeypatch)
    played = player.play()
    assert played.status_code == 200
    wallet.faults(fail=1.0)
    credits.release()  # the request's attempt fails
    assert server.outbox.deliver_due() == 0, "nothing due before the back-off"
    with server.engine.connect() as conn:
        assert mail.pending(conn, "wallet") == 1
    wallet.faults()
    clock.advance(5)  # past the back-off
    drain(server)
    answer = played.json()
    assert wallet.balance(player.player_id) == answer["balance"]
    assert player.get(f"/v1/rounds/{answer['round']['id']}").json()["round"]["wallet"]["status"] == "settled"


def fail_the_rounds_transaction(server, monkeypatch, reason: str) -> None:
    """Every round's transaction raises ``RuntimeError(reason)``, after the debit was sent."""
    def failed(*args, **kwargs):
        raise RuntimeError(reason)

    monkeypatch.setattr(at_wallet, "commit", failed)  # the round's transaction, straight through
    monkeypatch.setattr(server.once, "inside", failed)  # and on the general path


def test_a_debit_whose_round_never_commits_is_rolled_back_when_its_hold_expires(casino, wallet, clock, monkeypatch):
    """A crash between the debit and the round's commit: the process dies (here: its round's
    transaction fails and it settles nothing, as a dead process would). What is left is the
    round's placeholder and the debit's held rollback, due ``rollback_hold_s`` after it was
    written; the next process (here: the same, its clock moved) delivers it, the wallet refunds
    the stake and the placeholder becomes a void round."""
    player = seamless_player(casino, wallet)
    server = casino.server
    fail_the_rounds_transaction(server, monkeypatch, "the process dies before the round commits")
    monkeypatch.setattr(server.seamless.debits, "done", lambda *args, **kwargs: True)  # and nothing settled after it
    with pytest.raises(RuntimeError):  # the test client re-raises what the server would answer 500 for
        player.play()
    assert wallet.balance(player.player_id) == "9.80", "the wallet took the stake"
    with server.engine.connect() as conn:
        assert audit(conn) == [], "a round waiting for its debit's outcome is not a difference"
    assert server.outbox.deliver_due() == 0, "held: the round might still commit"
    clock.advance(6)
    assert server.outbox.deliver_due() == 1
    assert wallet.balance(player.player_id) == "10.00"
    monkeypatch.undo()
    stored = player.get("/v1/rounds").json()["rounds"][0]
    assert stored["status"] == "void" and stored["wallet"]["status"] == "rolled_back"
    debit = [tx for tx in wallet.books()["transactions"] if tx["id"] == stored["wallet"]["transaction_id"]][0]
    assert debit["status"] == "rolled_back" and debit["round_id"] == stored["id"]
    with server.engine.connect() as conn:
        assert audit(conn) == []


def test_a_debit_whose_round_fails_to_commit_in_a_live_process_is_rolled_back_at_once(casino, wallet, monkeypatch):
    """The round's transaction fails after the wallet took the stake, and the process lives on:
    it gives the debit's held rollback up at once, so the wallet refunds the stake with the
    server's clock standing still (not ``rollback_hold_s`` later, as after a crash)."""
    player = seamless_player(casino, wallet)
    server = casino.server
    fail_the_rounds_transaction(server, monkeypatch, "the round's transaction fails")
    with pytest.raises(RuntimeError):  # the test client re-raises what the server would answer 500 for
        player.play()
    monkeypatch.undo()
    assert server.outbox.drain(timeout=30, target="wallet"), "the rollback waits for its hold: not given up"
    assert wallet.balance(player.player_id) == "10.00"
    stored = player.get("/v1/rounds").json()["rounds"][0]
    assert stored["status"] == "void" and stored["wallet"]["status"] == "rolled_back"
    with server.engine.connect() as conn:
        assert audit(conn) == []


def test_a_round_waiting_for_a_decision_is_credited_when_decided_and_a_voided_one_rolled_back(casino, wallet):
    player = casino.player("0.00")  # the default jurisdiction: Dynasty offers the gamble after a win
    wallet.deposit(player.player_id, "10.00")

    def until_waiting() -> dict:
        for _ in range(200):
            answer = player.play()
            assert answer.status_code == 200, answer.text
            if answer.json()["round"]["status"] == "awaiting":
                return answer.json()
        raise AssertionError("no win in 200 rounds")

    waiting = until_waiting()
    assert waiting["round"]["wallet"]["status"] == "debited", "no credit before the round completes"
    seen = len(wallet.books()["transactions"])
    refused = player.play()
    assert refused.status_code == 409 and refused.json()["error"] == "ROUND_IN_PROGRESS"
    assert len(wallet.books()["transactions"]) == seen, "a round refused sends no debit"
    decided = player.post(f"/v1/rounds/{waiting['round']['id']}/decisions", {"choice": "collect"})
    assert decided.status_code == 200 and decided.json()["round"]["wallet"]["status"] == "credit_pending"
    voided = until_waiting()["round"]
    answer = casino.operator("POST", f"/v1/operator/rounds/{voided['id']}/void", json={"reason": "malfunction"})
    assert answer.status_code == 200 and answer.json()["round"]["wallet"]["status"] == "rollback_pending"
    drain(casino.server)
    assert player.get(f"/v1/rounds/{decided.json()['round']['id']}").json()["round"]["wallet"]["status"] == "settled"
    assert player.get(f"/v1/rounds/{voided['id']}").json()["round"]["wallet"]["status"] == "rolled_back"
    assert player.get("/v1/session").json()["balance"] == wallet.balance(player.player_id)
    with casino.server.engine.connect() as conn:
        assert audit(conn) == []
