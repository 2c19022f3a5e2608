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

Pools are kept in EUR. A stake in another currency is converted at a rate (EUR per unit of the
player's currency, from the operator's table): its EUR value is ``stake x rate``, exact. A
payout is converted back at the claim's rate, rounded down to the player's cent, and the pool
pays exactly ``payout x rate`` EUR; whatever is left stays in the next jackpot.

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
ONE = Decimal(1)
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
    """What one bet added: ``to_current + to_reserve == amount == stake x rate x contribution``
    (``stake`` in the player's currency, the rest in EUR)."""

    round_id: str
    stake: Decimal
    amount: Decimal
    to_current: Decimal
    to_reserve: Decimal
    rate: Decimal = ONE


@dataclass(frozen=True)
class Claim:
    """A jackpot won by a round: the amount paid and the next jackpot's start."""

    round_id: str
    amount: Decimal  # what the pool paid, EUR (whole cents when the rate is 1)
    left_over: Decimal  # what the payout left of the pot, kept in the next jackpot (EUR)
    next_current: Decimal
    rate: Decimal = ONE  # EUR per unit of the winner's currency
    payout: Decimal | None = None  # paid to the winner in their currency, whole cents

    def __post_init__(self) -> None:
        if self.payout is None:
            object.__setattr__(self, "payout", self.amount)


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

    def contribute(self, round_id: str, stake: Decimal, rate: Decimal = ONE) -> Contribution:
        """Add a real-money bet's contribution (idempotent per round)."""

    def claim(self, round_id: str, rate: Decimal = ONE) -> Claim:
        """Pay the current jackpot to ``round_id`` and re-seed (idempotent per round)."""

    def lock_claim(self, round_id: str) -> Decimal:
        """Reserve the jackpot for ``round_id``; returns the amount it would pay."""

    def release_claim(self, round_id: str) -> None:
        """Give up a locked claim (the round was not committed)."""

    def state(self) -> PoolState:
        """A consistent snapshot of the books."""


def checked_rate(rate: Decimal) -> Decimal:
    """A conversion rate (EUR per unit of a currency): a positive, finite Decimal."""
    if not isinstance(rate, Decimal) or not rate.is_finite() or rate <= 0:
        raise JackpotError(f"rate: expected a positive Decimal, got {rate!r}")
    return rate


def to_pool(amount: Decimal, rate: Decimal) -> Decimal:
    """An amount of the player's currency in EUR, exactly."""
    with localcontext(EXACT):
        return amount * checked_rate(rate)


def payout_of(current: Decimal, rate: Decimal) -> tuple[Decimal, Decimal]:
    """What a pot of ``current`` EUR pays a winner whose currency is worth ``rate`` EUR: the
    payout in their currency (rounded down to the cent) and what it costs the pool in EUR."""
    rate = checked_rate(rate)
    with localcontext(EXACT):
        cents = (current * 100) // rate  # whole cents of the player's currency, rounded down
        payout = cents * CENT
        return payout, payout * rate


def split(stake: Decimal, config: PoolConfig, rate: Decimal = ONE) -> tuple[Decimal, Decimal, Decimal]:
    """A bet's contribution in EUR and its split (current, reserve), exactly; ``stake`` is in the
    player's currency, worth ``rate`` EUR a unit."""
    if not isinstance(stake, Decimal) or not stake.is_finite() or stake <= 0:
        raise JackpotError(f"stake: expected a positive Decimal, got {stake!r}")
    with localcontext(EXACT):
        amount = to_pool(stake, rate) * config.contribution
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

    def contribute(self, round_id: str, stake: Decimal, rate: Decimal = ONE) -> Contribution:
        with self._lock:
            if round_id in self._contributions:
                return self._contributions[round_id]
            amount, to_current, to_reserve = split(stake, self.config, rate)
            with localcontext(EXACT):
                self._current += to_current
                self._reserve += to_reserve
                self._contributed += amount
            made = Contribution(round_id, stake, amount, to_current, to_reserve, rate)
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

    def claim(self, round_id: str, rate: Decimal = ONE) -> Claim:
        with self._lock:
            if round_id in self._claims:
                return self._claims[round_id]
            self.lock_claim(round_id)
            # Rounding down to the winner's cent is the one deliberate rounding.
            payout, amount = payout_of(self._current, rate)
            with localcontext(EXACT):
                left_over = self._current - amount
                self._paid += amount
                self._seeded += self.config.seed
                self._current = self.config.seed + self._reserve + left_over
                self._reserve = Decimal(0)
            won = Claim(round_id, amount, left_over, self._current, rate, payout)
            self._claims[round_id] = won
            self._locked_by = None
            return won

    def return_claim(self, won: Claim) -> None:
        """Undo a claim whose round never happened (a jackpot service's claim held for a round
        that was not committed): what it paid goes back into the current jackpot; the seed that
        re-started the pot stays in, so the books still balance."""
        with self._lock:
            with localcontext(EXACT):
                self._paid -= won.amount
                self._current += won.amount
            self._claims.pop(won.round_id, None)

    def state(self) -> PoolState:
        with self._lock:
            return PoolState(
                self._current, self._reserve, self._contributed, self._seeded, self._paid, len(self._claims)
            )
