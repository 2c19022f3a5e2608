"""Exports of the books: rounds and wallet transactions, as CSV or JSON lines, streamed.

Rows are read a batch at a time in id order (each batch a short read of its own, after the last
id sent), so an export of ten million rounds holds one batch in memory, never the result, and
holds no lock or snapshot that writers would wait on. Every money field is exact decimal text in
the row's currency, every time ISO 8601 UTC; the columns are listed in :data:`ROUND_COLUMNS` and
:data:`TRANSACTION_COLUMNS` with their meaning (docs/compliance.md prints them).

A round still awaiting a decision is exported as it stands when its batch is read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from sqlalchemy import Engine, Select, Table, func, select

from slotforge.engine.game import version_of
from slotforge.rgs.rounds.views import utc_second
from slotforge.rgs.schema import ledger, operators, players, rounds
from slotforge.rgs.wallets.internal import SIGN

BATCH = 5_000
Format = Literal["csv", "jsonl"]
FORMATS = ("csv", "jsonl")
MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson"}


def utc(ms: int | None) -> str | None:
    """Milliseconds since the epoch as ISO 8601 UTC, to the millisecond."""
    if ms is None:
        return None
    seconds, millis = divmod(ms, 1000)
    return f"{utc_second(seconds)}.{millis:03d}Z"


def money(minor: int | None) -> str | None:
    """Whole cents as exact decimal text, by integer arithmetic (an export formats millions)."""
    if minor is None:
        return None
    sign, minor = ("-", -minor) if minor < 0 else ("", minor)
    return f"{sign}{minor // 100}.{minor % 100:02d}"


def model_of(record: str) -> str | None:
    """The model that played a round (``game/version:fingerprint``), as its record names it."""
    return orjson.loads(record).get("model")


# The ledger kinds that take money from a balance, as the wallet books them (one rule: its SIGN).
DEBITS = frozenset(kind for kind, sign in SIGN.items() if sign < 0)


def direction(kind: str) -> str:
    return "debit" if kind in DEBITS else "credit"


@dataclass(frozen=True)
class Column:
    """A column of an export: its name, its meaning, the field it is read from and how that
    field's value is written (None: as it is)."""

    name: str
    meaning: str
    source: str
    convert: Callable[[Any], Any] | None = None


ROUND_COLUMNS = (
    Column("round_id", "the server's id of the round", "id"),
    Column("operator", "the operator's name", "operator"),
    Column("player", "the operator's id of the player (a pseudonym once erased)", "external_id"),
    Column("game", "the game's code", "game"),
    Column("model", "the model that played it: game/version:fingerprint", "record", model_of),
    Column("status", "complete, awaiting (a decision), pending (at a seamless wallet) or void", "status"),
    Column("currency", "ISO 4217 code of every amount in the row", "currency"),
    Column("jurisdiction", "the jurisdiction profile the round was played under", "jurisdiction"),
    Column("stake", "the total bet", "stake", money),
    Column("win", "the total win, any progressive jackpot included (0.00 until complete)", "win", money),
    Column("jackpot_win", "the progressive jackpot's part of the win", "jackpot_win", money),
    Column("balance_before", "the player's balance before the stake", "balance_before", money),
    Column("balance_after", "the player's balance after the round", "balance_after", money),
    Column("started_at", "when the round started (UTC)", "started_at", utc),
    Column("finished_at", "when it was paid or voided (UTC; empty while open)", "finished_at", utc),
    Column("void_reason", "why it was voided (empty unless void)", "void_reason"),
    Column("wallet_transaction", "the seamless wallet's transaction id of its debit", "wallet_tx"),
    Column("wallet_status", "where a seamless round stands with the wallet", "wallet_status"),
    Column("autoplay_id", "the autoplay plan that played it", "autoplay_id"),
)

TRANSACTION_COLUMNS = (
    Column("transaction_id", "the server's id of the ledger entry", "id"),
    Column("operator", "the operator's name", "operator"),
    Column("player", "the operator's id of the player (a pseudonym once erased)", "external_id"),
    Column("kind", "deposit, withdrawal, stake, win, refund, reversal, promo or promo_back", "kind"),
    Column("amount", "the amount, never negative: the kind gives its direction", "amount", money),
    Column("direction", "credit (to the player) or debit (from the player)", "kind", direction),
    Column("currency", "ISO 4217 code of the amount", "currency"),
    Column("round_id", "the round it belongs to (empty for deposits and withdrawals)", "round_id"),
    Column("reference", "the operator's reference of a deposit or withdrawal", "reference"),
    Column("created_at", "when it was booked (UTC)", "created_at", utc),
)


@dataclass(frozen=True)
class Filters:
    """Which rows: every field optional (None: any). Times are ms since the epoch, ``since``
    inclusive and ``until`` exclusive, of a round's start or a transaction's booking."""

    since: int | None = None
    until: int | None = None
    operator_id: int | None = None
    player: str | None = None  # the operator's id of the player
    game: str | None = None
    version: str | None = None  # of the game's model
    currency: str | None = None


class Export:
    """One kind of export: its table, its columns and how its rows are filtered. Rows are the
    database's tuples, read by position (a mapping per row would cost more than the export)."""

    def __init__(self, name: str, table: Table, columns: tuple[Column, ...], time_column: Any) -> None:
        self.name, self.table, self.columns, self.time_column = name, table, columns, time_column

    def query(self, filters: Filters) -> Select:
        table = self.table
        fields = [table.c[name] for name in dict.fromkeys(c.source for c in self.columns) if name in table.c]
        query = (select(*fields, players.c.external_id, operators.c.name.label("operator"),
                        *([players.c.currency] if table is ledger else []))
                 .join(players, players.c.id == table.c.player_id)
                 .outerjoin(operators, operators.c.id == players.c.operator_id))
        if table is rounds:
            query = query.where(rounds.c.fun.is_(False))  # play money is no one's books
        elif filters.game is not None or filters.version is not None:
            query = query.join(rounds, rounds.c.id == ledger.c.round_id).add_columns(rounds.c.record)
        if filters.game is not None:
            query = query.where(rounds.c.game == filters.game)
        if filters.since is not None:
            query = query.where(self.time_column >= filters.since)
        if filters.until is not None:
            query = query.where(self.time_column < filters.until)
        if filters.operator_id is not None:
            query = query.where(players.c.operator_id == filters.operator_id)
        if filters.player is not None:
            query = query.where(players.c.external_id == filters.player)
        if filters.currency is not None:
            query = query.where(players.c.currency == filters.currency)
        return query

    def rows(self, engine: Engine, filters: Filters, batch: int = BATCH) -> Iterator[Sequence[Any]]:
        """The rows (tuples in :meth:`query`'s order), oldest first, a batch at a time."""
        base = self.query(filters)
        names = [column.name for column in base.selected_columns]
        at_id, at_record = names.index("id"), names.index("record") if "record" in names else None
        after = 0
        while True:
            with engine.connect() as conn:
                found = conn.execute(base.where(self.table.c.id > after).order_by(self.table.c.id).limit(batch)).all()
            for row in found:
                if filters.version is None or version_of(model_of(row[at_record])) == filters.version:
                    yield row
            if len(found) < batch:
                return
            after = found[-1][at_id]

    def span(self, engine: Engine, filters: Filters) -> tuple[int, int]:
        """The lowest and highest id the export may read (for its progress)."""
        query = self.query(filters).with_only_columns(func.min(self.table.c.id), func.max(self.table.c.id))
        with engine.connect() as conn:
            low, high = conn.execute(query).one()
        return int(low or 0), int(high or 0)

    def header(self) -> list[str]:
        return [column.name for column in self.columns]

    def writer(self, filters: Filters = Filters()) -> Callable[[Sequence[Any]], list[Any]]:
        """What turns a row of :meth:`rows` into the export's values, column by column."""
        names = [column.name for column in self.query(filters).selected_columns]
        plan = [(names.index(column.source), column.convert) for column in self.columns]

        def values(row: Sequence[Any]) -> list[Any]:
            return [row[at] if convert is None or row[at] is None else convert(row[at]) for at, convert in plan]

        return values


ROUNDS = Export("rounds", rounds, ROUND_COLUMNS, rounds.c.started_at)
TRANSACTIONS = Export("transactions", ledger, TRANSACTION_COLUMNS, ledger.c.created_at)
EXPORTS = {export.name: export for export in (ROUNDS, TRANSACTIONS)}


def encode(export: Export, rows: Iterable[Sequence[Any]], form: Format, filters: Filters = Filters()
           ) -> Iterator[bytes]:
    """The export's bytes, a batch of rows at a time: CSV (a header line first; empty for none)
    or JSON lines (an object per row, null for none). ``filters``: those the rows were read with."""
    if form not in FORMATS:
        raise ValueError(f"format: expected one of {FORMATS}, got {form!r}")
    values = export.writer(filters)
    if form == "jsonl":
        names = export.header()
        chunk: list[bytes] = []
        for row in rows:
            chunk.append(orjson.dumps(dict(zip(names, values(row), strict=True))) + b"\n")
            if len(chunk) >= BATCH:
                yield b"".join(chunk)
                chunk = []
        yield b"".join(chunk)
        return
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(export.header())
    for count, row in enumerate(rows, 1):
        writer.writerow(values(row))
        if count % BATCH == 0:
            yield text.getvalue().encode()
            text.seek(0)
            text.truncate()
    yield text.getvalue().encode()
