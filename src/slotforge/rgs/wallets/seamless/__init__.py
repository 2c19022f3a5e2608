"""The operator's wallet, called over HTTP for every round (the seamless wallet).

An operator configured with ``wallet = "seamless"`` keeps its players' money itself; the server
calls ``POST {base}/debit``, ``/credit`` and ``/rollback`` with ``{"transaction_id", "round_id",
"player_id", "amount", "currency", "game"}`` signed by ``X-Signature: hex(HMAC-SHA256(secret,
body))``, and the wallet answers ``{"balance": "..."}`` or ``{"error": CODE}`` (docs/wallet.md).

A round's story with the wallet, by part:

- :mod:`~slotforge.rgs.wallets.seamless.players`: who the player is to their operator's wallet.
- :mod:`~slotforge.rgs.wallets.seamless.debits`: **the debit** of the round's stake, sent before
  the round's transaction with its rollback held by the round's placeholder, kept by the round's
  transaction or rolled back (how the money stays exact whatever fails is told there).
- :mod:`~slotforge.rgs.wallets.seamless.credits`: **the credit** of every completed round and
  **the rollback** of a void round's debit, owed through the outbox until the wallet acknowledges.
- :mod:`~slotforge.rgs.wallets.seamless.client`: the signed calls over HTTP, and the event loop
  they run on.

The server's own ledger still records each round's stake, win and refund (the audit's rounds
check); a seamless player's ``balance`` column only keeps the last balance the wallet reported.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Engine, select

from slotforge.db.engine import Writer
from slotforge.rgs.outbox import Outbox
from slotforge.rgs.schema import players
from slotforge.rgs.settings import Settings
from slotforge.rgs.wallets.seamless.client import WalletCalls
from slotforge.rgs.wallets.seamless.credits import TARGET, Credits
from slotforge.rgs.wallets.seamless.debits import Debits, HeldDebits
from slotforge.rgs.wallets.seamless.players import PlayerDirectory


class SeamlessWallet:
    """The seamless wallets of every operator so configured, their parts wired together (and the
    ``wallet`` target registered with the outbox); and the :class:`~slotforge.rgs.wallets.internal.Wallet`
    of their players (each call inside the round's transaction), which the round service
    takes as it takes the internal one. Everything else a caller asks of a part."""

    def __init__(self, settings: Settings, engine: Engine, outbox: Outbox, now: Callable[[], int],
                 writer: Writer) -> None:
        self.calls = WalletCalls(settings)
        self.players = PlayerDirectory(settings)
        self.debits = Debits(settings, engine, outbox, self.calls, self.players, now, writer)
        self.credits = Credits(settings, outbox, self.calls, self.players, now, writer)
        if self.calls.clients:
            outbox.register(TARGET, self.credits.deliver, self.credits.acknowledged,
                            deliver_many=self.credits.deliver_many, holds=HeldDebits(self.debits))

    def balance(self, conn: Connection, player_id: int) -> int:
        """The balance the wallet reported for the last debit, with the wins credited since."""
        return conn.execute(select(players.c.balance).where(players.c.id == player_id)).scalar_one()

    def debit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
              reference: str | None = None, now: int) -> int:
        """Record a stake the wallet took already (:meth:`Debits.debit`)."""
        return self.debits.debit(conn, player_id, kind, amount, round_id=round_id, reference=reference, now=now)

    def credit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
               reference: str | None = None, now: int, promotion: str | None = None) -> int:
        """A win or a refund owed to the wallet through the outbox (:meth:`Credits.credit`)."""
        return self.credits.credit(conn, player_id, kind, amount, round_id=round_id, reference=reference, now=now,
                                   promotion=promotion)
