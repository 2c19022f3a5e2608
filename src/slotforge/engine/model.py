"""Game models as data: the schema of a model file and its loading.

A model file (JSON, one per game) holds what the rules leave to the designer: symbols, reel
strips per mode, paylines, paytable, bet options and feature weights. It is validated on load;
a broken file fails with a :class:`ModelError` that names the file, the field and what was
expected. The game-specific ``bet`` and ``features`` sections are validated by the game's own
schema, passed to :func:`load_model`.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

# The most scatter symbols a model may have, each with its own pays (the evaluator's limit).
MAX_SCATTERS = 4

SymbolKind = Literal["wild", "scatter", "high", "medium", "low", "bonus", "mystery", "special"]


class ModelError(ValueError):
    """A model file that cannot be used, with the file and field at fault."""


class UnknownPaylines(ModelError):
    """A payline set the engine does not have."""


class Strict(BaseModel):
    """Base of every schema: unknown fields are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Symbol(Strict):
    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    kind: SymbolKind
    reels: list[int] | None = Field(
        default=None, description="1-based reels the symbol may stand on; all when omitted"
    )


class Wild(Strict):
    symbol: str
    substitutes_except: list[str] = Field(
        default_factory=list, description="symbols the wild never stands in for"
    )
    needs_paying_symbol: bool = Field(
        default=False, description="count pays: wilds alone never pay, only with one of the symbol itself"
    )


class Grid(Strict):
    reels: int = Field(ge=1, le=8)
    rows: int = Field(ge=1, le=8)


class Choice(Strict):
    """A bet option chosen from a list, with its default."""

    values: list[Decimal] = Field(min_length=1)
    default: Decimal


class IntRange(Strict):
    min: int = Field(ge=0)
    max: int = Field(ge=0)
    default: int

    @model_validator(mode="after")
    def _ordered(self) -> IntRange:
        if not self.min <= self.default <= self.max:
            raise ValueError(f"expected min <= default <= max, got {self.min}, {self.default}, {self.max}")
        return self


class RtpRange(Strict):
    """A published RTP that the player's strategy moves: its two ends and the strategy (a name
    the game's simulator and ``slotforge rtp --strategy`` take) that gives each."""

    min: Decimal = Field(gt=0, lt=1, description="the lowest RTP, as a fraction")
    max: Decimal = Field(gt=0, lt=1, description="the highest RTP, as a fraction (the model's rtp)")
    min_strategy: str
    max_strategy: str

    @model_validator(mode="after")
    def _ordered(self) -> RtpRange:
        if self.min >= self.max:
            raise ValueError(f"expected min < max, got {self.min}, {self.max}")
        return self


class LineGameSpec(Strict):
    """Everything a line game's model file holds besides its game-specific sections."""

    game: str
    name: str
    version: str
    rtp: Decimal = Field(description="the published RTP, as a fraction (the top of rtp_range when one is given)")
    rtp_range: RtpRange | None = Field(default=None, description="the published range, where strategy moves it")
    grid: Grid
    paylines: str | None = Field(
        default=None, description="a set of payline shapes from the engine's paylines.json (line games)"
    )
    symbols: list[Symbol] = Field(min_length=2)
    wild: Wild | None = None
    line_pays: dict[str, dict[int, int]] = Field(default_factory=dict)
    scatter_pays: dict[str, dict[int, int]] = Field(default_factory=dict)
    count_pays: dict[str, dict[int, Decimal]] = Field(
        default_factory=dict,
        description="pays-anywhere: pay by how many of a symbol the screen shows, in paytable order",
    )
    count_rule: Literal["every", "highest"] = Field(
        default="every",
        description="every paying symbol pays, or only the highest win (of equal wins the symbol listed first)",
    )
    pay_scale: int = Field(
        default=1, ge=1, description="win units per paytable unit: 10 pays 0.4 as 4 units"
    )
    reels: dict[str, list[list[str]]] = Field(default_factory=dict, description="reel strips by mode, one per reel")
    cell_weights: dict[str, list[dict[str, int]]] = Field(
        default_factory=dict,
        description="independent reels of one cell each, by mode: symbol weights for every cell "
        "(one entry) or per cell (rows x reels entries, reading order)",
    )
    bet: dict[str, Any]
    features: dict[str, Any] = Field(default_factory=dict)
    design: dict[str, Any] = Field(default_factory=dict, description="the designer's notes")

    @model_validator(mode="after")
    def _consistent(self) -> LineGameSpec:
        codes = [s.code for s in self.symbols]
        known = set(codes)
        if len(known) != len(codes):
            raise ValueError("symbols: every code must be unique")
        if self.rtp_range is not None and self.rtp_range.max != self.rtp:
            raise ValueError(f"rtp_range.max: expected the published rtp {self.rtp}, got {self.rtp_range.max}")

        def check_symbol(where: str, code: str) -> None:
            if code not in known:
                raise ValueError(f"{where}: unknown symbol {code!r}; expected one of {sorted(known)}")

        if self.wild:
            check_symbol("wild.symbol", self.wild.symbol)
            for code in self.wild.substitutes_except:
                check_symbol("wild.substitutes_except", code)
        cells = self.grid.reels * self.grid.rows
        most = {"line_pays": self.grid.reels, "scatter_pays": cells, "count_pays": cells}
        for table, highest in most.items():
            for code, pays in getattr(self, table).items():
                check_symbol(table, code)
                for count in pays:
                    if not 1 <= count <= highest:
                        raise ValueError(
                            f"{table}.{code}: count {count} cannot happen on a {self.grid.reels}x{self.grid.rows} "
                            f"screen; expected 1 to {highest}"
                        )
        if len(self.scatter_pays) > MAX_SCATTERS:
            raise ValueError(
                f"scatter_pays: {len(self.scatter_pays)} scatter symbols; the engine pays at most {MAX_SCATTERS}"
            )
        for code, pays in self.count_pays.items():
            for count, pay in pays.items():
                scaled = pay * self.pay_scale
                if pay < 0 or scaled != scaled.to_integral_value():
                    raise ValueError(
                        f"count_pays.{code}: pay {pay} for {count} is not a whole number of units "
                        f"at pay_scale {self.pay_scale}"
                    )
        self._check_paylines()
        for code, pays in self.line_pays.items():
            ordered = [pays[c] for c in sorted(pays)]
            if ordered != sorted(ordered) or any(p < 0 for p in ordered):
                raise ValueError(f"line_pays.{code}: pays must not fall as the count grows, got {pays}")
        allowed = {s.code: set(s.reels) if s.reels else None for s in self.symbols}
        for mode, strips in self.reels.items():
            if len(strips) != self.grid.reels:
                raise ValueError(f"reels.{mode}: expected {self.grid.reels} strips, got {len(strips)}")
            for index, strip in enumerate(strips, start=1):
                if len(strip) < self.grid.rows:
                    raise ValueError(f"reels.{mode}[{index}]: a strip needs at least {self.grid.rows} stops")
                for code in strip:
                    check_symbol(f"reels.{mode}[{index}]", code)
                    if allowed[code] is not None and index not in allowed[code]:
                        raise ValueError(
                            f"reels.{mode}[{index}]: {code} may only stand on reels {sorted(allowed[code])}"
                        )
        self._check_cells(check_symbol)
        if not self.reels and not self.cell_weights:
            raise ValueError("reels: expected reel strips or cell_weights for at least one mode")
        if self.line_pays and self.paylines is None:
            raise ValueError("paylines: a game with line_pays needs a payline set")
        return self

    def _check_cells(self, check_symbol) -> None:
        """Cell weights: one table for every cell or one per cell; positive weights that the
        generator's bounded draw can take (a total below 2**32)."""
        cells = self.grid.reels * self.grid.rows
        for mode, tables in self.cell_weights.items():
            if len(tables) not in (1, cells):
                raise ValueError(f"cell_weights.{mode}: expected 1 or {cells} weight tables, got {len(tables)}")
            for index, weights in enumerate(tables):
                where = f"cell_weights.{mode}[{index}]"
                for code, weight in weights.items():
                    check_symbol(where, code)
                    if weight <= 0:
                        raise ValueError(f"{where}.{code}: expected a positive weight, got {weight}")
                if not 0 < sum(weights.values()) < 2**32:
                    raise ValueError(f"{where}: the weights must total between 1 and 2**32 - 1")

    def _check_paylines(self) -> None:
        """The payline set must exist and fit the grid, and fit the line bitmasks (64 bits).
        A game without line pays (count pays on independent reels) may have none."""
        if self.paylines is None:
            return
        try:
            lines = paylines(self.paylines)
        except UnknownPaylines as error:
            raise ValueError(str(error)) from error
        if any(len(line) != self.grid.reels for line in lines):
            raise ValueError(f"paylines: {self.paylines!r} has lines for other than {self.grid.reels} reels")
        if any(row >= self.grid.rows or row < 0 for line in lines for row in line):
            raise ValueError(f"paylines: {self.paylines!r} uses rows outside a {self.grid.rows}-row grid")
        if len(lines) > 64:
            raise ValueError(f"paylines: {self.paylines!r} has {len(lines)} lines; at most 64 fit the line bitmasks")

    @property
    def line_count(self) -> int:
        """How many paylines the model's payline set has."""
        return len(paylines(self.paylines)) if self.paylines else 0

    def symbol_id(self, code: str) -> int:
        """The index of a symbol code in the model (the id used by compiled code)."""
        for index, symbol in enumerate(self.symbols):
            if symbol.code == code:
                return index
        raise KeyError(code)

    @property
    def codes(self) -> list[str]:
        return [s.code for s in self.symbols]


def check_weights(weights: list[int] | dict[str, int]) -> list[int] | dict[str, int]:
    """Draw weights the generator can use: whole numbers, none negative, a positive total below
    2**32 (the unbiased bounded draw's range). For a pydantic ``field_validator``."""
    values = list(weights.values()) if isinstance(weights, dict) else list(weights)
    if any(w < 0 for w in values):
        raise ValueError(f"weights must not be negative, got {weights}")
    total = sum(values)
    if not 0 < total < 2**32:
        raise ValueError(f"the weights must add up to between 1 and 2**32 - 1, got {total}")
    return weights


def fingerprint(raw: dict[str, Any]) -> str:
    """A short hash of a model's canonical JSON: which data paid a round."""
    canonical = json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(canonical).hexdigest()[:12]


def describe_error(path: str, error: ValidationError) -> str:
    """One line per problem: file, dotted field, what was expected.

    A check of the whole model names its own field in its message, so it is shown as is
    (without pydantic's "(top level): Value error," framing).
    """
    lines = []
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"])
        message = problem["msg"].removeprefix("Value error, ")
        lines.append(f"{path}: {field}: {message}" if field else f"{path}: {message}")
    return "\n".join(lines)


def read_json_file(path: str | Path, what: str) -> Any:
    """The JSON content of a file; a missing, unreadable or malformed one is a ``ValueError``
    naming the file (``what`` says what kind of file was expected: "model", "script", ...)."""
    try:
        text = Path(path).read_text()
    except FileNotFoundError as error:
        raise ValueError(f"{path}: no such {what} file") from error
    except IsADirectoryError as error:
        raise ValueError(f"{path}: is a folder; expected a {what} file") from error
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not text"
        raise ValueError(f"{path}: cannot read the {what} file ({reason})") from error
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: line {error.lineno} column {error.colno}: not valid JSON ({error.msg})") from error


def load_json(path: str | Path) -> dict[str, Any]:
    """Read a model file, turning any problem into a ModelError naming the file."""
    try:
        return read_json_file(path, "model")
    except ValueError as error:
        raise ModelError(str(error)) from error


def validate(schema: type[BaseModel], raw: Any, path: str, prefix: str = "") -> Any:
    """Validate ``raw`` against ``schema``, reporting failures against ``path`` and ``prefix``."""
    try:
        return schema.model_validate(raw)
    except ValidationError as error:
        message = describe_error(path, error)
        if prefix:
            message = message.replace(f"{path}: ", f"{path}: {prefix}.")
        raise ModelError(message) from error


@cache
def paylines(name: str) -> tuple[tuple[int, ...], ...]:
    """Payline shapes by name, as 0-based rows per reel."""
    data = json.loads(resources.files("slotforge.engine").joinpath("data/paylines.json").read_text())
    if name not in data or name.startswith("_"):
        known = sorted(k for k in data if not k.startswith("_"))
        raise UnknownPaylines(f"paylines: unknown payline set {name!r}; expected one of {known}")
    return tuple(tuple(line) for line in data[name])
