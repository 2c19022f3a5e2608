"""Where a player's money is kept. The server talks to a :class:`Wallet`; this module has the
internal (transfer) wallet: balances in the server's own database, moved by the operator's
deposits and withdrawals, each movement a ledger entry written in the caller's transaction.

A seamless wallet (the operator keeps the money and the server calls it over HTTP) implements
the same interface.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import Connection, bindparam, func, insert, select, update

from slotforge.rgs.errors import InsufficientFunds
from slotforge.rgs.money import to_text
from slotforge.rgs.schema import ledger, players

# How each ledger kind moves the balance.
# "reversal": a paid win taken back when its round is voided after it completed.
# "promo": a free round's stake, the operator's promotional money, credited for the stake to take;
# "promo_back": that money returned to the operator when the free round is voided.
SIGN = {"deposit": 1, "withdrawal": -1, "stake": -1, "win": 1, "refund": 1, "reversal": -1, "promo": 1,
        "promo_back": -1}


# Built once (see the round's statements in the service).
BALANCE = select(players.c.balance).where(players.c.id == bindparam("p_player"))
TAKE = (update(players).where(players.c.id == bindparam("p_player"), players.c.balance >= bindparam("p_amount"))
        .values(balance=players.c.balance - bindparam("p_amount")).returning(players.c.balance))
PAY = (update(players).where(players.c.id == bindparam("p_player"))
       .values(balance=players.c.balance + bindparam("p_amount")).returning(players.c.balance))
ENTRY = insert(ledger)


class Wallet(Protocol):
    """Money movements of one player, each inside the caller's database transaction."""

    def balance(self, conn: Connection, player_id: int) -> int:
        """The player's balance in minor units."""

    def debit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
              reference: str | None = None, now: int) -> int:
        """Take ``amount`` (raises :class:`InsufficientFunds`); returns the new balance."""

    def credit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
               reference: str | None = None, now: int) -> int:
        """Pay ``amount``; returns the new balance."""


class InternalWallet:
    """Balances in the ``players`` table, every movement in the ``ledger``.

    A debit is one conditional update (``balance >= amount``), so concurrent rounds of one
    player can never take the balance below zero whatever the database's locking.
    """

    def balance(self, conn: Connection, player_id: int) -> int:
        return conn.execute(BALANCE, {"p_player": player_id}).scalar_one()

    def debit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
              reference: str | None = None, now: int) -> int:
        taken = conn.execute(TAKE, {"p_player": player_id, "p_amount": amount}).scalar_one_or_none()
        if taken is None:
            balance = to_text(self.balance(conn, player_id))
            raise InsufficientFunds(f"balance {balance} is below {to_text(amount)}", balance=balance)
        self._entry(conn, player_id, kind, amount, round_id, reference, now)
        return taken

    def credit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
               reference: str | None = None, now: int) -> int:
        paid = conn.execute(PAY, {"p_player": player_id, "p_amount": amount}).scalar_one()
        self._entry(conn, player_id, kind, amount, round_id, reference, now)
        return paid

    @staticmethod
    def _entry(conn: Connection, player_id: int, kind: str, amount: int, round_id: int | None,
               reference: str | None, now: int) -> None:
        if amount:
            conn.execute(ENTRY, dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id,
                                     reference=reference, created_at=now))


def ledger_sum(conn: Connection, player_id: int | None = None) -> dict[int, int]:
    """Each player's balance as the ledger says it (deposits - withdrawals - stakes + wins + refunds)."""
    signed = func.sum(ledger.c.amount * _sign_case())
    query = select(ledger.c.player_id, signed).group_by(ledger.c.player_id)
    if player_id is not None:
        query = query.where(ledger.c.player_id == player_id)
    return {row[0]: int(row[1]) for row in conn.execute(query)}


def _sign_case():
    from sqlalchemy import case

    return case(*[(ledger.c.kind == kind, sign) for kind, sign in SIGN.items()], else_=0)
