"""The progressive jackpot pool: contributions, claims and re-seeding, in exact decimals.

Every real-money bet contributes a share of its stake (Divine Fortune: 3.7%). Of each
contribution a fixed share (20%) is set aside for the next jackpot and the rest (80%) grows
the current one. When the jackpot is won, the winner is paid the current amount and the next
jackpot starts at the seed (10,000 EUR) plus what was set aside.

Money is never a float: amounts are :class:`~decimal.Decimal` in EUR, computed in a local
context with enough digits that every product is exact (an inexact result raises instead of
rounding). Contributions are kept to the last fraction of a cent; a payout is the current
amount rounded down to the cent, and the fraction left behind stays in the next jackpot, so
the books always balance::

    seeds + contributions == paid + current + reserve

:class:`JackpotPool` is the interface a game server talks to; :class:`InMemoryPool` is the
in-process implementation (thread-safe). A networked jackpot server implements the same
protocol. Every call names its round, so a retried call (after a lost reply) is answered from
what was recorded and never counted twice; a claim is locked to its round, so no other round
can claim the same jackpot at the same time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Context, Decimal, Inexact, localcontext
from typing import Protocol, runtime_checkable

CENT = Decimal("0.01")
# 60 significant digits: exact for any stake and share this pool will see.
EXACT = Context(prec=60, traps=[Inexact])


class JackpotError(RuntimeError):
    """A call the pool cannot honour (bad amount, a claim held by another round, ...)."""


class ClaimLocked(JackpotError):
    """Another round holds the claim on this jackpot."""


@dataclass(frozen=True)
class PoolConfig:
    """How a pool grows: share of each bet, share set aside, and the seed (all exact)."""

    contribution: Decimal = Decimal("0.037")
    reserve_share: Decimal = Decimal("0.2")
    seed: Decimal = Decimal("10000")

    def __post_init__(self) -> None:
        for name in ("contribution", "reserve_share", "seed"):
            value = getattr(self, name)
            if not isinstance(value, Decimal) or not value.is_finite():
                raise JackpotError(f"{name}: expected a finite Decimal, got {value!r}")
        if not (0 < self.contribution < 1 and 0 <= self.reserve_share < 1 and self.seed > 0):
            raise JackpotError("expected 0 < contribution < 1, 0 <= reserve_share < 1 and seed > 0")


@dataclass(frozen=True)
class Contribution:
    """What one bet added: ``to_current + to_reserve == amount == stake x contribution``."""

    round_id: str
    stake: Decimal
    amount: Decimal
    to_current: Decimal
    to_reserve: Decimal


@dataclass(frozen=True)
class Claim:
    """A jackpot won by a round: the amount paid and the next jackpot's start."""

    round_id: str
    amount: Decimal  # paid to the winner, whole cents
    left_over: Decimal  # the fraction of a cent kept in the next jackpot
    next_current: Decimal


@dataclass(frozen=True)
class PoolState:
    """A snapshot of the books."""

    current: Decimal
    reserve: Decimal
    contributed: Decimal
    seeded: Decimal
    paid: Decimal
    wins: int

    @property
    def display(self) -> Decimal:
        """The current jackpot as players see it: rounded down to the cent."""
        return self.current.quantize(CENT, rounding=ROUND_DOWN)

    def balances(self) -> bool:
        """The books' invariant: every euro put in is paid out or still in the pool."""
        with localcontext(EXACT):
            return self.seeded + self.contributed == self.paid + self.current + self.reserve


@runtime_checkable
class JackpotPool(Protocol):
    """What a game server needs from a progressive jackpot, local or across the network."""

    def contribute(self, round_id: str, stake: Decimal) -> Contribution:
        """Add a real-money bet's contribution (idempotent per round)."""

    def claim(self, round_id: str) -> Claim:
        """Pay the current jackpot to ``round_id`` and re-seed (idempotent per round)."""

    def lock_claim(self, round_id: str) -> Decimal:
        """Reserve the jackpot for ``round_id``; returns the amount it would pay."""

    def release_claim(self, round_id: str) -> None:
        """Give up a locked claim (the round was not committed)."""

    def state(self) -> PoolState:
        """A consistent snapshot of the books."""


def split(stake: Decimal, config: PoolConfig) -> tuple[Decimal, Decimal, Decimal]:
    """A bet's contribution and its split (current, reserve), exactly."""
    if not isinstance(stake, Decimal) or not stake.is_finite() or stake <= 0:
        raise JackpotError(f"stake: expected a positive Decimal, got {stake!r}")
    with localcontext(EXACT):
        amount = stake * config.contribution
        to_reserve = amount * config.reserve_share
        to_current = amount - to_reserve
    return amount, to_current, to_reserve


@dataclass
class InMemoryPool:
    """A jackpot pool held in this process; every operation takes one lock."""

    config: PoolConfig = field(default_factory=PoolConfig)
    _current: Decimal = Decimal(0)
    _reserve: Decimal = Decimal(0)
    _contributed: Decimal = Decimal(0)
    _seeded: Decimal = Decimal(0)
    _paid: Decimal = Decimal(0)
    _contributions: dict[str, Contribution] = field(default_factory=dict)
    _claims: dict[str, Claim] = field(default_factory=dict)
    _locked_by: str | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self) -> None:
        if not self._seeded:
            self._seeded = self.config.seed
            self._current = self.config.seed

    def contribute(self, round_id: str, stake: Decimal) -> Contribution:
        with self._lock:
            if round_id in self._contributions:
                return self._contributions[round_id]
            amount, to_current, to_reserve = split(stake, self.config)
            with localcontext(EXACT):
                self._current += to_current
                self._reserve += to_reserve
                self._contributed += amount
            made = Contribution(round_id, stake, amount, to_current, to_reserve)
            self._contributions[round_id] = made
            return made

    def lock_claim(self, round_id: str) -> Decimal:
        with self._lock:
            if self._locked_by not in (None, round_id):
                raise ClaimLocked(f"round {self._locked_by} holds the claim on this jackpot")
            self._locked_by = round_id
            return self._current.quantize(CENT, rounding=ROUND_DOWN)

    def release_claim(self, round_id: str) -> None:
        with self._lock:
            if self._locked_by == round_id:
                self._locked_by = None

    def claim(self, round_id: str) -> Claim:
        with self._lock:
            if round_id in self._claims:
                return self._claims[round_id]
            self.lock_claim(round_id)
            # Rounding down to the cent is the one deliberate rounding: outside the exact context.
            amount = self._current.quantize(CENT, rounding=ROUND_DOWN)
            with localcontext(EXACT):
                left_over = self._current - amount
                self._paid += amount
                self._seeded += self.config.seed
                self._current = self.config.seed + self._reserve + left_over
                self._reserve = Decimal(0)
            won = Claim(round_id, amount, left_over, self._current)
            self._claims[round_id] = won
            self._locked_by = None
            return won

    def state(self) -> PoolState:
        with self._lock:
            return PoolState(
                self._current, self._reserve, self._contributed, self._seeded, self._paid, len(self._claims)
            )
