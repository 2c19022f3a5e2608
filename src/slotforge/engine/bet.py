"""Bets: validation of the game's bet fields and the coin arithmetic of a stake.

Compiled rounds count wins in *units*: coins at one coin per line (Dynasty) or at bet level 1
(NetEnt-style games). A bet says how many coins one unit is worth, how many units the stake is,
and what a coin is worth in currency, so every amount the player sees is an exact product of
integers and one Decimal.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from slotforge.amounts import FORM, AmountError, parse_decimal
from slotforge.engine.model import Choice, IntRange


class BetError(ValueError):
    """A bet the game does not offer, naming the field and the allowed values."""


@dataclass(frozen=True)
class Bet:
    """A validated stake."""

    fields: dict[str, Any]  # the game's own bet fields, as the player gave them (normalised)
    unit_coins: int  # coins one win unit is worth
    total_units: int  # the stake in units
    coin_value: Decimal
    lines: int  # enabled paylines

    @property
    def total_coins(self) -> int:
        return self.total_units * self.unit_coins

    @property
    def total_bet(self) -> Decimal:
        return self.total_coins * self.coin_value

    def amount(self, units: int) -> Decimal:
        """A win of ``units`` in currency."""
        return units * self.unit_coins * self.coin_value

    def as_json(self) -> dict[str, Any]:
        return {k: (format_money(v) if isinstance(v, Decimal) else v) for k, v in self.fields.items()}


def format_money(value: Decimal) -> str:
    """A currency amount as an exact decimal string with at least two places ("0.20")."""
    cents = value.quantize(Decimal("0.01"))
    return str(cents) if cents == value else format(value.normalize(), "f")


def parse_int(field: str, raw: Any, allowed: IntRange) -> int:
    """An integer bet field within its range; bools, floats and strings are refused."""
    if raw is None:
        return allowed.default
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise BetError(f"bet.{field}: expected a whole number from {allowed.min} to {allowed.max}, got {raw!r}")
    if not allowed.min <= raw <= allowed.max:
        raise BetError(f"bet.{field}: expected a whole number from {allowed.min} to {allowed.max}, got {raw}")
    return raw


def parse_choice(field: str, raw: Any, allowed: Choice) -> Decimal:
    """A decimal bet field that must be one of the offered values, given as strict amount text
    ("0.05": see :mod:`slotforge.amounts`; a Decimal from Python callers is taken as it is)."""
    if raw is None:
        return allowed.default
    try:
        value = raw if isinstance(raw, Decimal) else parse_decimal(raw, f"bet.{field}")
    except AmountError as error:
        raise BetError(f"bet.{field}: expected one of {offered(allowed)} as {FORM}; got {raw!r}") from error
    if not value.is_finite() or value not in allowed.values:
        raise BetError(f"bet.{field}: expected one of {offered(allowed)}, got {raw!r}")
    return value


def offered(allowed: Choice) -> str:
    """A choice's values as an error message lists them ("0.01, 0.02, 0.05")."""
    return ", ".join(format_money(v) for v in allowed.values)


def reject_unknown(raw: dict[str, Any], known: set[str]) -> None:
    """Refuse fields the game has no use for (a typo must not silently bet the default)."""
    if not isinstance(raw, dict):
        raise BetError(f"bet: expected an object with fields {sorted(known)}, got {raw!r}")
    unknown = set(raw) - known
    if unknown:
        raise BetError(f"bet.{sorted(unknown)[0]}: not a bet field of this game; expected {sorted(known)}")
