"""``kill -9`` between each two steps of a round, on both databases and both wallets, by the
store's fault-injection hook (``SLOTFORGE_FAULT_AT``: the server process kills itself when the
round reaches the step), not by sleeps and luck.

Each case: a server process that dies at the step; the player's request cut off; the server
started again without the fault; the same request retried with its key until it is answered
(a seamless round's debit held by the dead process answers 409 until its rollback is delivered).
Then nothing is lost or doubled: exactly one completed round for the player, the balance the
round's answer says, and the books balance (``slotforge audit``; with the seamless wallet, both
sides' books agree transaction by transaction).
"""

from __future__ import annotations

import secrets
import time
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from sqlalchemy import select

from slotforge.db import connect
from slotforge.rgs.schema import players, rounds
from slotforge.rgs.store import FAULT_STEPS, store_for

from .conftest import ServerProcess, audit, database_for
from .wallets import WalletProcess, add_operator, reconcile, settings_file, wait_until_settled

DEPOSIT = Decimal("10.00")
STAKE = Decimal("0.20")  # Dynasty's default bet
# Each fast path's steps, by the wallet whose rounds take it.
STEPS = {"internal": [step for step in FAULT_STEPS if step.endswith("play_round")],
         "seamless": [step for step in FAULT_STEPS if step.endswith(("hold_debit", "settle_at_wallet"))]}
CASES = [(backend, wallet, step) for backend in ("sqlite", "postgresql") for wallet in STEPS for step in STEPS[wallet]]


def session(url: str, operator_key: str, seamless: bool) -> tuple[str, str]:
    """A new player in the jurisdiction without the gamble (one request a round) with
    :data:`DEPOSIT` where their money is kept: (their token, their id)."""
    player = f"p-{secrets.token_hex(4)}"
    headers = {"X-Api-Key": operator_key}
    answer = httpx.post(f"{url}/v1/operator/sessions", headers=headers, timeout=30,
                        json={"player_id": player, "currency": "EUR", "jurisdiction": "nogamble"})
    assert answer.status_code == 200, answer.text
    if not seamless:  # (the demo wallet's new players hold it already)
        deposit = httpx.post(f"{url}/v1/operator/players/{player}/transactions", headers=headers, timeout=30,
                             json={"kind": "deposit", "amount": str(DEPOSIT), "reference": f"d-{player}"})
        assert deposit.status_code == 200, deposit.text
    return answer.json()["token"], player


def round_request(url: str, token: str, key: str) -> httpx.Response:
    return httpx.post(f"{url}/v1/rounds", json={"game": "dynasty"}, timeout=30,
                      headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})


def answered(url: str, token: str, key: str, timeout: float = 60) -> dict:
    """The request retried with its key until it is answered (not 409 in progress)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = round_request(url, token, key)
        if answer.status_code != 409:
            assert answer.status_code == 200, answer.text
            return answer.json()
        assert time.monotonic() < deadline, f"still in progress after {timeout} s: {answer.text}"
        time.sleep(0.5)


def money(body: dict) -> tuple:
    """What an answer says of the round and its money."""
    round_ = body["round"]
    return round_["id"], round_["status"], round_["total_win"], round_["balance_after"], body["balance"]


def rounds_of(database_url: str, player: str) -> list[tuple[str, int, int]]:
    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(
                select(rounds.c.status, rounds.c.stake, rounds.c.win).join(players, players.c.id == rounds.c.player_id)
                .where(players.c.external_id == player).order_by(rounds.c.id))]
    finally:
        engine.dispose()


@pytest.mark.parametrize(("backend", "wallet_kind", "step"), CASES)
def test_a_kill_between_two_steps_of_a_round_loses_nothing_and_doubles_nothing(backend, wallet_kind, step,
                                                                                tmp_path: Path):
    urls = database_for(backend, tmp_path)
    database_url = next(urls)
    wallet = None
    if wallet_kind == "seamless":
        wallet = WalletProcess(tmp_path, "--new-player-balance", str(DEPOSIT)).start()
    config = settings_file(tmp_path, wallet.url if wallet else "http://127.0.0.1:9", timeout_s=0.2, debit_attempts=2, rollback_hold_s=3)
    log = tmp_path / "server.log"
    dying = ServerProcess(database_url, log, config=config, extra_env={"SLOTFORGE_FAULT_AT": step})
    server = None
    try:
        dying.start()
        operator_key = add_operator(database_url) if wallet else dying.operator_key()
        token, player = session(dying.url, operator_key, wallet is not None)
        key = secrets.token_hex(8)
        with pytest.raises(httpx.HTTPError):  # the process died at the step: no answer
            round_request(dying.url, token, key)
        dying.process.wait(30)
        assert f"fault injection: killed at {step}" in log.read_text(), "the process died where the test said"

        server = ServerProcess(database_url, log, config=config).start()
        body = answered(server.url, token, key)
        again = answered(server.url, token, key)  # (a seamless round's wallet status moves on meanwhile)
        assert money(again) == money(body), "a retry answers the first answer"
        assert body["round"]["status"] == "complete"

        played = rounds_of(database_url, player)
        assert [status for status, _stake, _win in played].count("complete") == 1, played
        assert set(status for status, _stake, _win in played) <= {"complete", "void"}, played
        win = Decimal(body["round"]["total_win"])
        assert Decimal(body["balance"]) == DEPOSIT - STAKE + win, body
        if wallet is not None:
            wait_until_settled(database_url)
            assert Decimal(wallet.balance(player)) == Decimal(body["balance"])
            reconcile(database_url, wallet.books())
        checked = audit(database_url)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        for process in (dying, server, wallet):
            if process is not None:
                process.kill()
        next(urls, None)


def test_a_step_that_is_no_step_of_a_round_is_refused():
    with pytest.raises(ValueError, match="expected one of before_play_round"):
        store_for(SimpleNamespace(batches=object()), "after_lunch")
