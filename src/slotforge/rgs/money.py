"""Amounts: integer minor units (cents) in the database, exact decimal strings in JSON."""

from __future__ import annotations

from decimal import Decimal

from slotforge.amounts import parse_minor

CENT = Decimal("0.01")


def to_minor(amount: Decimal, field: str = "amount") -> int:
    """A currency amount as whole cents; a fraction of a cent is refused, never rounded."""
    cents = amount / CENT
    if not amount.is_finite() or cents != cents.to_integral_value():
        raise ValueError(f"{field}: expected whole cents, got {amount}")
    return int(cents)


def to_text(minor: int) -> str:
    """Whole cents as the decimal string players see ("12.50")."""
    return str((Decimal(minor) * CENT).quantize(CENT))


def to_signed_text(minor: int) -> str:
    """Whole cents that may be negative (a net position): "-1.20"."""
    return to_text(minor) if minor >= 0 else "-" + to_text(-minor)


def parse_amount(raw: str, field: str = "amount") -> int:
    """Strict amount text from a request ("12.50") as positive whole cents (see
    :mod:`slotforge.amounts`); ValueError naming ``field`` otherwise."""
    return parse_minor(raw, field)
