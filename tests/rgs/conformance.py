"""The conformance suite's books: a game server (in this process, on SQLite or PostgreSQL) whose
operator keeps the players' money in the server's own wallet or at ``slotforge wallet-demo`` (a
real process), driven through the server's HTTP API alone; and what every scenario checks after
it: the server's audit balances and, with the seamless wallet, both sides' books agree."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from slotforge.rgs.api import access
from slotforge.rgs.app import create_app
from slotforge.rgs.audit import audit
from slotforge.rgs.schema import players
from slotforge.rgs.settings import load_settings

from .conftest import Api, Player, database_for
from .wallets import OPERATOR, WalletProcess, reconcile, seamless_operator

# Every pairing of a database and a wallet, one parameter each.
BOOKS = [f"{backend}-{wallet}" for backend in ("sqlite", "postgresql") for wallet in ("internal", "seamless")]
NO_GAMBLE = "nogamble"  # a jurisdiction whose Dynasty rounds complete in one request
GAMBLE = "default"  # one whose Dynasty wins wait for the gamble's decision


@dataclass
class Book:
    """One server and where its players' money is."""

    api: Api
    wallet_kind: str
    database_url: str
    wallet: WalletProcess | None

    @property
    def server(self) -> Any:
        return self.api.client.app.state.server

    def player(self, balance: str = "10.00", jurisdiction: str = NO_GAMBLE) -> Player:
        """A new player of the operator with ``balance`` in their wallet."""
        if self.wallet is None:
            return self.api.player(balance, jurisdiction=jurisdiction)
        player = self.api.player("0.00", jurisdiction=jurisdiction)
        self.wallet.deposit(player.player_id, balance)
        return player

    def settle(self) -> None:
        """Deliver what the server owes the wallet (a seamless round's credit or rollback)."""
        if self.wallet is not None:
            assert self.server.outbox.drain(timeout=30, target="wallet")

    def balance(self, player: Player) -> Decimal:
        """The player's money where it is kept, once everything owed is delivered."""
        self.settle()
        if self.wallet is None:
            answer = player.get("/v1/session")
            assert answer.status_code == 200, answer.text
            return Decimal(answer.json()["balance"])
        return Decimal(self.wallet.balance(player.player_id))

    def balances(self) -> None:
        """The books balance: the server's audit finds nothing and, with the seamless wallet, every
        round and ledger entry of the server matches the wallet's books."""
        self.settle()
        with self.server.engine.connect() as conn:
            assert audit(conn) == []
        if self.wallet is not None:
            reconcile(self.database_url, self.own_books())

    def own_books(self) -> dict[str, Any]:
        """The wallet's books of this server's players alone (the wallet process serves each book)."""
        with self.server.engine.connect() as conn:
            ours = set(conn.execute(select(players.c.external_id)).scalars())
        books = self.wallet.books()
        return {**books, **{part: [line for line in books[part] if line["player_id"] in ours]
                            for part in ("players", "transactions", "rollbacks")}}

    def documented_status(self, code: str, path: str = "/v1/rounds") -> int:
        """The status the OpenAPI document gives ``code`` for ``POST path``."""
        responses = self.api.client.get("/openapi.json").json()["paths"][path]["post"]["responses"]
        [status] = [int(status) for status, answer in responses.items() if f"`{code}`" in answer["description"]]
        return status


def open_book(name: str, folder: Path, games: dict, wallet: WalletProcess) -> Iterator[Book]:
    """The book ``name`` (``BACKEND-WALLET``) on a new database in ``folder``; closed afterwards."""
    backend, wallet_kind = name.split("-")
    urls = database_for(backend, folder)
    database_url = next(urls)
    seamless = wallet_kind == "seamless"
    settings = load_settings(None, database_url=database_url, jurisdictions={NO_GAMBLE: {"gamble": False}},
                             operators=seamless_operator(wallet.url, timeout_s=0.3, debit_attempts=2,
                                                         rollback_hold_s=5) if seamless else {})
    app = create_app(settings, games={"dynasty": games["dynasty"]})
    client = TestClient(app)
    server = app.state.server
    with server.transaction() as conn:
        key = access.add_operator(conn, OPERATOR if seamless else f"op-{secrets.token_hex(4)}", server.now())
    wallet.faults()
    try:
        yield Book(Api(client, key), wallet_kind, database_url, wallet if seamless else None)
    finally:
        wallet.faults()
        server.seamless.calls.close()
        server.engine.dispose()
        next(urls, None)


def played(answer) -> dict[str, Any]:
    """The round of a 200 answer."""
    assert answer.status_code == 200, answer.text
    return answer.json()["round"]


def awaiting_round(player: Player, tries: int = 200) -> dict[str, Any]:
    """A Dynasty round waiting at the gamble (a win, in a jurisdiction that offers the gamble)."""
    for _ in range(tries):
        round_ = played(player.play())
        if round_["status"] == "awaiting":
            return round_
    raise AssertionError(f"no round waited for a decision in {tries}")


def completed_win(player: Player, tries: int = 200) -> dict[str, Any]:
    """A completed Dynasty round that won."""
    for _ in range(tries):
        round_ = played(player.play())
        if round_["status"] == "complete" and Decimal(round_["total_win"]) > 0:
            return round_
    raise AssertionError(f"no winning round in {tries}")
