"""Amounts as text: the one strict form every amount sent to slotforge must take.

An amount is plain decimal text of ASCII digits, ``"12.50"``: no sign, no exponent, no spaces,
no other script's digits, and no more decimal places than the currency has. A JSON number is
refused, so no float ever carries money. The API's models, the games' bet fields, the wallets and
the jackpot service all read amounts here, so they all accept and refuse the same texts.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, StringConstraints, WithJsonSchema
from pydantic_core import PydanticCustomError

# Every currency slotforge keeps has two decimal places (cents): see slotforge.rgs.money.
CURRENCY_PLACES = 2
# The most digits before the point: far above any balance, far below a 64-bit count of cents.
WHOLE_DIGITS = 12
# Python's ``re``: [0-9] is ASCII only (``\d`` would take Arabic-Indic digits); fullmatch, as
# ``$`` would let a trailing newline through.
PLAIN_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")
FORM = 'a decimal string of ASCII digits like "12.50" (no sign, exponent or spaces; not a JSON number)'


class AmountError(ValueError):
    """An amount not in the strict form; ``reason`` says why without the field's name."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def parse_decimal(raw: Any, field: str = "amount", places: int | None = CURRENCY_PLACES,
                  whole_digits: int | None = WHOLE_DIGITS) -> Decimal:
    """``raw`` as an exact Decimal if it is plain decimal text with at most ``places`` decimals
    (None: any number) and ``whole_digits`` digits before the point; else :class:`AmountError`
    naming ``field``."""
    if not isinstance(raw, str) or not PLAIN_DECIMAL.fullmatch(raw):
        raise AmountError(field, f"expected {FORM}, got {raw!r}")
    whole, _, fraction = raw.partition(".")
    if places is not None and len(fraction) > places:
        raise AmountError(field, f"expected at most {places} decimal places, got {raw!r}")
    if whole_digits is not None and len(whole.lstrip("0")) > whole_digits:
        raise AmountError(field, f"expected at most {whole_digits} digits before the point, got {raw!r}")
    return Decimal(raw)


def parse_minor(raw: Any, field: str = "amount", places: int = CURRENCY_PLACES, *, positive: bool = True) -> int:
    """``raw`` (strict amount text) as a whole number of minor units (cents at two places);
    ``positive`` refuses zero."""
    minor = int(parse_decimal(raw, field, places).scaleb(places))
    if positive and minor == 0:
        raise AmountError(field, f"expected an amount above zero, got {raw!r}")
    return minor


def amount_text(places: int = CURRENCY_PLACES, whole_digits: int = WHOLE_DIGITS) -> Any:
    """A pydantic field type: the amount as the text given, checked in the strict form (a 422
    naming the field otherwise; the message says the form)."""

    def check(raw: str) -> str:
        try:
            parse_decimal(raw, "amount", places, whole_digits)
        except AmountError as error:
            raise PydanticCustomError("amount", error.reason) from None
        return raw

    pattern = rf"^[0-9]{{1,{whole_digits}}}(\.[0-9]{{1,{places}}})?$"
    return Annotated[str, StringConstraints(strict=True), AfterValidator(check),
                     WithJsonSchema({"type": "string", "pattern": pattern, "examples": ["12.50"]})]


def setting_amount(places: int = CURRENCY_PLACES) -> Any:
    """A pydantic field type for a settings file: an exact Decimal from strict amount text (a
    TOML or JSON number is a float, and refused); a Decimal given in Python is taken as it is."""

    def read(raw: Any) -> Any:
        if isinstance(raw, Decimal):
            return raw
        try:
            return parse_decimal(raw, "amount", places)
        except AmountError as error:
            raise PydanticCustomError("amount", error.reason) from None

    return Annotated[Decimal, BeforeValidator(read)]


# An amount of a currency ("12.50").
AmountText = amount_text()
# An amount of a currency in the settings, as a Decimal.
SettingAmount = setting_amount()
