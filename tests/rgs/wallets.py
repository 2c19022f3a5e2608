"""Helpers of the seamless-wallet tests: ``slotforge wallet-demo`` as a real process, signed calls
to it, a game server's settings for a seamless operator, and the reconciliation of both sides'
books."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from slotforge.db import connect
from slotforge.rgs.schema import ledger, players, rounds
from slotforge.rgs.wallets.seamless.client import encode, sign
from slotforge.rgs.wallets.seamless.debits import owed

from .conftest import SRC, free_port, launch

SECRET = "wallet-secret-for-the-tests-0123"
OPERATOR = "casino"


class WalletProcess:
    """``slotforge wallet-demo serve`` in a process of its own, started and killed by the test."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.database = folder / "wallet.db"
        self.log = folder / "wallet.log"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [sys.executable, "-m", "slotforge.cli", "wallet-demo", "serve", "--port", str(self.port),
                     "--database", str(self.database), "--secret", SECRET, *options]
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> WalletProcess:
        self.process = launch(self.args, {**os.environ, "PYTHONPATH": str(SRC)}, self.log, f"{self.url}/health",
                              "wallet", timeout)
        return self

    def kill(self) -> None:
        """``kill -9``."""
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def call(self, kind: str, body: dict[str, Any], secret: str = SECRET) -> httpx.Response:
        raw = encode(body)
        return httpx.post(f"{self.url}/{kind}", content=raw, timeout=30,
                          headers={"Content-Type": "application/json", "X-Signature": sign(secret, raw)})

    def faults(self, **faults: Any) -> None:
        answer = httpx.post(f"{self.url}/admin/faults", json=faults, timeout=10)
        assert answer.status_code == 200, answer.text

    def injected(self) -> dict[str, int]:
        """How many calls each fault has struck."""
        return httpx.get(f"{self.url}/admin/faults", timeout=10).json()["injected"]

    def deposit(self, player: str, amount: str, currency: str = "EUR") -> str:
        answer = httpx.post(f"{self.url}/admin/players", json={"player_id": player, "currency": currency,
                                                                "amount": amount}, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()["balance"]

    def books(self) -> dict[str, Any]:
        return httpx.get(f"{self.url}/admin/books", timeout=30).json()

    def wait_for_debits(self, count: int, timeout: float = 30) -> None:
        """Until the wallet has applied ``count`` debits (whether or not it has answered them)."""
        deadline = time.monotonic() + timeout
        while sum(tx["kind"] == "debit" for tx in self.books()["transactions"]) < count:
            assert time.monotonic() < deadline, f"fewer than {count} debits at the wallet after {timeout} s"
            time.sleep(0.05)

    def balance(self, player: str) -> str | None:
        return next((p["balance"] for p in self.books()["players"] if p["player_id"] == player), None)


def seamless_operator(url: str, **extra: Any) -> dict[str, Any]:
    """The settings of the seamless operator ``casino`` at ``url``."""
    return {OPERATOR: {"wallet": "seamless", "wallet_url": url, "wallet_secret": SECRET, **extra}}


def settings_file(folder: Path, url: str, **extra: Any) -> Path:
    """A settings file: ``casino`` seamless at ``url`` (``extra`` operator fields), and a
    jurisdiction without the gamble so that every Dynasty round completes in one request."""
    fields = "\n".join(f"{name} = {json.dumps(value)}" for name, value in extra.items())
    path = folder / "settings.toml"
    path.write_text(f'[operators.{OPERATOR}]\nwallet = "seamless"\nwallet_url = "{url}"\n'
                    f'wallet_secret = "{SECRET}"\n{fields}\n\n[jurisdictions.nogamble]\ngamble = false\n')
    return path


def add_operator(database_url: str) -> str:
    done = subprocess.run([sys.executable, "-m", "slotforge.cli", "operator", "add", OPERATOR, "--database",
                           database_url], env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def wait_until_settled(database_url: str, timeout: float = 60) -> None:
    """Wait until the server owes the wallet nothing (held rollbacks included)."""
    engine = connect(database_url)
    try:
        deadline = time.monotonic() + timeout
        while True:
            with engine.connect() as conn:
                left = owed(conn)
            if not left:
                return
            assert time.monotonic() < deadline, f"{left} wallet calls still pending after {timeout} s"
            time.sleep(0.2)
    finally:
        engine.dispose()


def cents(text: str) -> int:
    return int(Decimal(text) * 100)


def reconcile(database_url: str, books: dict[str, Any]) -> dict[str, int]:
    """Compare the game server's rounds and ledger with the wallet's books, transaction by
    transaction and player by player; raises on any difference. Returns counts of what was
    compared."""
    engine = connect(database_url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(select(rounds.c.id, rounds.c.status, rounds.c.stake, rounds.c.win,
                                         rounds.c.wallet_tx, rounds.c.wallet_status, rounds.c.void_reason,
                                         players.c.external_id)
                                  .join(players, players.c.id == rounds.c.player_id)
                                  .where(players.c.wallet == "seamless")).mappings().all()
            entries = conn.execute(select(players.c.external_id, ledger.c.kind, ledger.c.amount)
                                   .join(players, players.c.id == ledger.c.player_id)
                                   .where(players.c.wallet == "seamless")).all()
    finally:
        engine.dispose()
    assert books["balanced"], "the wallet's balances are not the sums of its movements"
    transactions = {tx["id"]: tx for tx in books["transactions"]}
    rolled_back = {r["transaction_id"]: r for r in books["rollbacks"]}
    taken = {tx["id"] for tx in transactions.values() if tx["kind"] == "debit" and tx["status"] == "applied"}
    credits = {tx["id"]: tx for tx in transactions.values() if tx["kind"] == "credit"}
    counted = {"complete": 0, "void": 0}
    for row in stored:
        debit = row["wallet_tx"]
        assert debit is not None, f"round {row['id']}: a seamless round without its debit's transaction id"
        if row["status"] == "complete":
            counted["complete"] += 1
            assert debit in taken, f"round {row['id']}: complete, but its debit is not taken at the wallet"
            assert transactions[debit]["amount"] == to_text(row["stake"]), f"round {row['id']}: stake differs"
            credit = credits.pop(f"{debit}-win", None)
            assert credit is not None, f"round {row['id']}: its win was never credited"
            assert cents(credit["amount"]) == row["win"], f"round {row['id']}: credited {credit['amount']}"
            assert row["wallet_status"] == "settled", f"round {row['id']}: {row['wallet_status']}"
            taken.discard(debit)
        elif row["status"] == "void":
            counted["void"] += 1
            assert debit in rolled_back, f"round {row['id']}: void, but its debit {debit} was never rolled back"
            assert debit not in taken and f"{debit}-win" not in credits, f"round {row['id']}: void but paid"
            assert row["wallet_status"] == "rolled_back", f"round {row['id']}: {row['wallet_status']}"
    assert not taken, f"stakes taken at the wallet for no round of the server: {sorted(taken)[:5]}"
    # Every debit the wallet saw is a round of the server's (its placeholder is written first).
    known = {row["wallet_tx"] for row in stored}
    strays = [tx["id"] for tx in transactions.values() if tx["kind"] == "debit" and tx["id"] not in known]
    assert not strays, f"debits at the wallet for no round of the server: {strays[:5]}"
    # Rounds whose debit was sent but which never committed (the server killed in between).
    counted["void after a crash"] = sum(1 for row in stored if row["status"] == "void"
                                        and (row["void_reason"] or "").startswith("the round did not complete"))
    assert not credits, f"credits at the wallet for no round of the server: {sorted(credits)[:5]}"
    net: dict[str, int] = {}
    for player, kind, amount in entries:
        net[player] = net.get(player, 0) + {"stake": -amount, "win": amount, "refund": amount}.get(kind, 0)
    for player in books["players"]:
        at_wallet = cents(player["balance"]) - cents(player["deposits"])
        assert net.get(player["player_id"], 0) == at_wallet, (
            f"player {player['player_id']}: the server's ledger nets {net.get(player['player_id'], 0)}, "
            f"the wallet's books {at_wallet}")
    return counted


def to_text(minor: int) -> str:
    return f"{Decimal(minor) / 100:.2f}"
