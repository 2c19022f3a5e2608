"""The round store's interface: :class:`RoundStore`, the rounds and placements it writes, its
refusal and its fault-injection steps (each database's implementation is a module of its own)."""

from __future__ import annotations

import logging
import os
import signal
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from slotforge.db import Writer
from slotforge.db.driver import DriverTransaction
from slotforge.rgs.store.general import GeneralPath

Result = TypeVar("Result")
log = logging.getLogger("slotforge.rgs")

# The steps a round's transactions leave between them, where a test may have the process killed
# (``SLOTFORGE_FAULT_AT``): before and after each fast path's transaction, and before the
# general path's commit.
FAULT_STEPS = tuple(f"{when}_{step}" for step in ("play_round", "hold_debit", "settle_at_wallet")
                    for when in ("before", "after")) + ("before_commit",)

NEVER = 2**62  # a "latest allowed last round" that every time meets: no least time between rounds


class Refused(Exception):
    """A conditional statement of a fast path changed nothing (or its function raised
    :data:`~slotforge.rgs.store.postgres.REFUSED`): nothing of the transaction stays; the caller
    finds out why outside it, or takes the general path."""


def latest_allowed(min_round_ms: int, now: int) -> int:
    """The latest time of the player's last round that lets a round start at ``now``: the
    jurisdiction's least time between rounds (``min_round_ms``) before it (:data:`NEVER`: none)."""
    return now - min_round_ms if min_round_ms else NEVER


def ledger_entries(player_id: int, round_id: int, stake: int, win: int, now: int) -> list[dict[str, Any]]:
    """A round's rows of the ledger: its stake and its win (a zero is no entry)."""
    return [dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id, reference=None, created_at=now)
            for kind, amount in (("stake", stake), ("win", win)) if amount]


@dataclass
class StraightRound:
    """A straight round's figures for its one transaction (internal wallet, no decision to keep
    for later, no jackpot): the player's row settled with ``settle``, the round's ``row`` (gains
    its id and balances), the idempotency key's row ``stored``, the key's claim number."""

    settle: dict[str, Any]
    row: dict[str, Any]
    stored: dict[str, Any]
    claim: int

    @property
    def awaiting(self) -> bool:
        return self.row["status"] == "awaiting"

    def settled(self, balance: int) -> None:
        """The player's balance after the settling: the round's balances."""
        self.row.update(balance_before=balance + self.row["stake"] - self.row["win"], balance_after=balance)


@dataclass(frozen=True)
class Placement:
    """A seamless round's placeholder: the round, pending, that holds its debit's rollback."""

    player: int
    session: int
    game: str
    currency: str
    jurisdiction: str
    stake: int
    now: int
    latest: int
    wallet_tx: str
    request_key: str

    def parameters(self) -> dict[str, Any]:
        """Its fields as the statements' (and the function's) ``p_`` parameters."""
        return {f"p_{name}": value for name, value in vars(self).items()}


@dataclass(frozen=True)
class WalletSettlement:
    """A seamless round whose debit was taken and whose round completed, for its second
    transaction: the wallet's reported balance, the round's figures, its credit's outbox row
    (:func:`~slotforge.rgs.wallets.seamless.credits.wallet_message`) and the key's row."""

    player: int
    round_id: int
    wallet_tx: str
    reported: int
    stake: int
    win: int
    now: int
    latest: int
    record: str
    credit: dict[str, Any]
    key: str
    request_hash: str
    status_code: int = 200


class RoundStore(GeneralPath, ABC):
    """What a round does to the books, on one database. The fast paths' methods run in a
    transaction of their own (:meth:`write`) and raise :class:`Refused` when a condition fails;
    the general path's (inherited from :class:`~slotforge.rgs.store.general.GeneralPath`) run
    in the caller's transaction."""

    def __init__(self, writer: Writer, fault_at: str | None = None) -> None:
        if fault_at is not None and fault_at not in FAULT_STEPS:
            raise ValueError(f"fault_at: {fault_at!r} is no step of a round; expected one of {', '.join(FAULT_STEPS)}")
        self.writer = writer
        self.fault_at = fault_at

    async def write(self, step: str, job: Callable[[DriverTransaction], Result]) -> Result:
        """``job(transaction)`` as the fast path's transaction ``step`` (``play_round``, ...),
        handed over by the event loop; its result once committed."""
        self.fault(f"before_{step}")
        result = await self.transaction(job)
        self.fault(f"after_{step}")
        return result

    def fault(self, step: str) -> None:
        """Fault injection, for the tests that kill a server between two steps of a round: the
        process kills itself (``SIGKILL``: no clean-up, no flush) when it reaches the step the
        settings name (``fault_at``); nothing otherwise."""
        if step == self.fault_at:
            log.critical("fault injection: killed at %s", step)
            os.kill(os.getpid(), signal.SIGKILL)

    @abstractmethod
    async def transaction(self, job: Callable[[DriverTransaction], Result]) -> Result:
        """``job(transaction)`` as one write transaction of this database's fast paths."""
        ...

    # -- settle: the straight round, whole ------------------------------------------------------
    @abstractmethod
    def play_round(self, transaction: DriverTransaction, round_: StraightRound) -> None:
        """Take the stake, pay the win, insert the round and its ledger entries, store the key
        (the claim held: 409 ``REQUEST_IN_PROGRESS`` if not); ``round_`` gains its id and
        balances. :class:`Refused`: too little money, too soon, a round awaiting, the key stored."""
        ...

    @abstractmethod
    def keep_answer(self, transaction: DriverTransaction, player: int, key: str, answer: bytes) -> None:
        """Keep a round's answer as sent with its key (a round awaiting a decision will change)."""
        ...

    # -- hold the stake and settle at a seamless wallet -----------------------------------------
    @abstractmethod
    def hold_debit(self, transaction: DriverTransaction, placement: Placement) -> int:
        """The placeholder, which holds its debit's rollback; its id. :class:`Refused`: too
        soon, a round awaiting, the key answered or with a debit out."""
        ...

    @abstractmethod
    def settle_at_wallet(self, transaction: DriverTransaction, settlement: WalletSettlement) -> tuple[int, int]:
        """Take the held rollback, settle the player's balance, finish the round, its ledger
        entries, its credit in the outbox, the key; (the player's balance, the credit's outbox
        id). :class:`Refused`: the rollback no longer held, too soon, a round awaiting, the key."""
        ...
