"""The round store: what a round does to the books, behind one interface, one implementation per
database.

:class:`RoundStore` names each thing a round does to the books: hold the stake (a seamless
round's placeholder, which holds its debit's rollback), settle (the stake taken and the win paid,
as one transaction on the fast paths), record a decision (a waiting round's record), void, and
recall (a request's stored answer, a round as stored). Two classes implement it, each the only
home of its database's SQL for these: :class:`~slotforge.rgs.store.sqlite.SqliteStore` (statements
sent to the driver inside the process's batched commits) and
:class:`~slotforge.rgs.store.postgres.PostgresStore` (one call of a PL/pgSQL function per
transaction, in autocommit: the function's text is in ``rgs/sql``). The statements of the general
path (a round with a decision, a jackpot, carried state, autoplay), which are the same SQL on both
databases, are in :mod:`slotforge.rgs.store.general`, the base both stores share.

The services (:mod:`slotforge.rgs.rounds`) decide what a round is and in which order its steps
run; they call the store and hold no SQL of a round.
"""

from __future__ import annotations

from slotforge.db import Writer
from slotforge.rgs.store.interface import (
    FAULT_STEPS,
    NEVER,
    Placement,
    Refused,
    Result,
    RoundStore,
    StraightRound,
    WalletSettlement,
    latest_allowed,
    ledger_entries,
)

__all__ = ["FAULT_STEPS", "NEVER", "Placement", "Refused", "Result", "RoundStore", "StraightRound",
           "WalletSettlement", "latest_allowed", "ledger_entries", "store_for"]


def store_for(writer: Writer, fault_at: str | None = None) -> RoundStore:
    """The store of ``writer``'s database (``fault_at``: see :meth:`RoundStore.fault`)."""
    if writer.batches is not None:  # SQLite: its writes are batched into shared commits
        from slotforge.rgs.store.sqlite import SqliteStore
        return SqliteStore(writer, fault_at)
    from slotforge.rgs.store.postgres import PostgresStore
    return PostgresStore(writer, fault_at)
