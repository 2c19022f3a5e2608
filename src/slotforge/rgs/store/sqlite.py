"""The round store on SQLite: its fast paths' statements, sent straight to the driver
(:mod:`slotforge.db.driver`) inside the process's batched commits, where a statement is a call
inside the process and costs no round trip. Each statement is conditional: one that changes
nothing raises :class:`~slotforge.rgs.store.Refused`, and the savepoint of the round's job in the
shared commit is rolled back. So does a statement that the rounds table's triggers abort (a round
of the game awaits a decision: migration 0022 holds that rule, which no statement here states).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from sqlalchemy import BigInteger, Boolean, String, Text, bindparam, cast, exists, literal_column, select, text, update

from slotforge.db.driver import DriverStatement, DriverTransaction
from slotforge.rgs import outbox as mail
from slotforge.rgs.schema import idempotency, is_pending, ledger, outbox, players, rounds
from slotforge.rgs.store.general import KEEP_ANSWER
from slotforge.rgs.store.interface import (
    Placement,
    Refused,
    Result,
    RoundStore,
    StraightRound,
    WalletSettlement,
    ledger_entries,
)
from slotforge.rgs.wallets.seamless.debits import HELD, PENDING_WINS

OTHER = rounds.alias("other")
# The rules of a round, as conditions of these statements: a seamless request's key with a debit
# out, the least time between rounds. The rule of a round of the game awaiting a decision is the
# rounds table's (its triggers, migration 0022), which aborts a statement with this message.
NOT_TOO_SOON = players.c.last_round_at.is_(None) | (players.c.last_round_at <= bindparam("p_latest"))
AWAITING_REFUSAL = "round refused: a round of the game awaits a decision"

# -- the straight round ------------------------------------------------------------------------
# Take the stake and pay the win, if the balance covers the stake and the round is not too soon.
SETTLE = (update(players)
          .where(players.c.id == bindparam("p_player"), players.c.balance >= bindparam("p_stake"), NOT_TOO_SOON)
          .values(balance=players.c.balance - bindparam("p_stake") + bindparam("p_win"),
                  last_round_at=bindparam("p_now"))
          .returning(players.c.balance))
# The finished round (the rounds table refuses it if a round of the game waits for a decision).
ROUND_FIELDS = {
    "player_id": BigInteger, "session_id": BigInteger, "game": String, "status": String, "fun": Boolean,
    "currency": String, "jurisdiction": String, "stake": BigInteger, "win": BigInteger, "jackpot_win": BigInteger,
    "balance_before": BigInteger, "balance_after": BigInteger, "record": Text, "started_at": BigInteger,
    "finished_at": BigInteger,
}
INSERT_ROUND = (rounds.insert()
                .values({name: bindparam(name, type_=kind) for name, kind in ROUND_FIELDS.items()})
                .returning(rounds.c.id))
# The ledger's entries of a round (:func:`~slotforge.rgs.store.ledger_entries`).
ENTRIES = ledger.insert().values({name: bindparam(name) for name in ("player_id", "kind", "amount", "round_id",
                                                                     "created_at")})
# The key stored with its round, unless stored already (returns the round id when stored now).
# Plain SQL: SQLAlchemy cannot cache its SQLite ``on_conflict_do_nothing`` construct.
STORE_KEY = text("INSERT INTO idempotency (player_id, key, request_hash, status_code, body, round_id, created_at) "
                 "VALUES (:player_id, :key, :request_hash, :status_code, :body, :round_id, :created_at) "
                 "ON CONFLICT DO NOTHING RETURNING round_id")

# -- a round at a seamless wallet --------------------------------------------------------------
# The placeholder, unless the player played too lately, or the request's key is answered already
# or has a debit out (and the rounds table refuses it if a round of the game waits for a decision).
PLACED_FIELDS = ["player_id", "session_id", "game", "status", "fun", "currency", "jurisdiction", "stake", "win",
                 "jackpot_win", "balance_before", "balance_after", "record", "started_at", "wallet_tx",
                 "wallet_status", "request_key"]
PLACE = (rounds.insert().from_select(PLACED_FIELDS, select(
    players.c.id, cast(bindparam("p_session"), BigInteger), cast(bindparam("p_game"), String),
    literal_column("'pending'"), cast(literal_column("0"), Boolean), cast(bindparam("p_currency"), String),
    cast(bindparam("p_jurisdiction"), String), cast(bindparam("p_stake"), BigInteger), literal_column("0"),
    literal_column("0"), players.c.balance, players.c.balance, literal_column("'{}'"),
    cast(bindparam("p_now"), BigInteger), cast(bindparam("p_wallet_tx"), String), literal_column("'debit_pending'"),
    cast(bindparam("p_request_key"), String),
).where(
    players.c.id == bindparam("p_player"), NOT_TOO_SOON,
    ~exists().where(OTHER.c.player_id == players.c.id, is_pending(OTHER),
                    OTHER.c.request_key == bindparam("p_request_key")),
    ~exists().where(idempotency.c.player_id == players.c.id, idempotency.c.key == bindparam("p_request_key")),
)).returning(rounds.c.id))
# The balance shown to the player: the wallet's answer, the wins on their way to it (this
# round's too), if the round is not too soon.
OWED = PENDING_WINS.scalar_subquery()
SETTLE_AT_WALLET = (update(players)
                    .where(players.c.id == bindparam("p_player"), NOT_TOO_SOON)
                    .values(balance=bindparam("p_reported", type_=BigInteger) + OWED
                            + bindparam("p_win", type_=BigInteger), last_round_at=bindparam("p_now"))
                    .returning(players.c.balance))
# The round finished, if its placeholder still holds the debit's rollback (taken now); the rounds
# table refuses it if a round of the game waits for a decision.
FINISH = (update(rounds)
          .where(rounds.c.id == bindparam("p_round"), HELD)
          .values(status="complete", win=bindparam("p_win"), balance_before=bindparam("p_before"),
                  balance_after=bindparam("p_after"), record=bindparam("p_record"), started_at=bindparam("p_now"),
                  finished_at=bindparam("p_now"), wallet_status="credit_pending")
          .returning(rounds.c.id))
CREDIT = mail.ENQUEUE.returning(outbox.c.id)  # its id: the round's request sends it itself first

# Each statement as SQLite's driver takes it.
STATEMENTS = {name: DriverStatement.of(statement, "sqlite") for name, statement in (
    ("settle", SETTLE), ("round", INSERT_ROUND), ("entries", ENTRIES), ("key", STORE_KEY), ("answer", KEEP_ANSWER),
    ("place", PLACE), ("settle_at_wallet", SETTLE_AT_WALLET), ("finish", FINISH), ("credit", CREDIT))}


class SqliteStore(RoundStore):
    """The round store on SQLite (see the module's description)."""

    async def transaction(self, job: Callable[[DriverTransaction], Result]) -> Result:
        """In the next shared commit of the process's batched writes (no thread of its own)."""
        listeners = self.writer.listeners
        return await self.writer.run(lambda conn: job(DriverTransaction(conn, listeners)))

    def play_round(self, transaction: DriverTransaction, round_: StraightRound) -> None:
        """Four statements: settle the player, insert the round, its ledger entries, the key.
        The key's claim is SQLite's file lock, held by the caller."""
        settled = transaction.first(STATEMENTS["settle"], round_.settle)
        if settled is None:
            raise Refused
        round_.settled(settled[0])
        inserted = first_allowed(transaction, "round", round_.row)
        row = round_.row
        row["id"] = round_id = inserted[0]
        transaction.send_many(STATEMENTS["entries"], ledger_entries(row["player_id"], round_id, row["stake"],
                                                                    row["win"], row["started_at"]))
        if transaction.first(STATEMENTS["key"], {**round_.stored, "round_id": round_id}) is None:
            raise Refused

    def keep_answer(self, transaction: DriverTransaction, player: int, key: str, answer: bytes) -> None:
        transaction.send(STATEMENTS["answer"], {"p_player": player, "p_key": key, "p_body": answer.decode()})

    def hold_debit(self, transaction: DriverTransaction, placement: Placement) -> int:
        placed = first_allowed(transaction, "place", placement.parameters())
        if placed is None:
            raise Refused
        return placed[0]

    def settle_at_wallet(self, transaction: DriverTransaction, settlement: WalletSettlement) -> tuple[int, int]:
        """Five statements: the player's balance, the round finished (its rollback taken), its
        ledger entries, its credit in the outbox, the key."""
        s = settlement
        settled = transaction.first(STATEMENTS["settle_at_wallet"], {
            "p_player": s.player, "p_reported": s.reported, "p_win": s.win, "p_now": s.now, "p_latest": s.latest})
        if settled is None:
            raise Refused
        balance = settled[0]
        if first_allowed(transaction, "finish", {
                "p_round": s.round_id, "p_win": s.win, "p_before": balance - s.win + s.stake, "p_after": balance,
                "p_record": s.record, "p_now": s.now}) is None:
            raise Refused
        transaction.send_many(STATEMENTS["entries"], ledger_entries(s.player, s.round_id, s.stake, s.win, s.now))
        credit_id = transaction.first(STATEMENTS["credit"], s.credit)[0]
        if transaction.first(STATEMENTS["key"], dict(player_id=s.player, key=s.key, request_hash=s.request_hash,
                                                     status_code=s.status_code, body=None, round_id=s.round_id,
                                                     created_at=s.now)) is None:
            raise Refused
        return balance, credit_id


def first_allowed(transaction: DriverTransaction, statement: str, parameters: dict[str, Any]) -> tuple | None:
    """The first row of ``statement`` (a name of :data:`STATEMENTS`), which writes a round;
    :class:`Refused` when the rounds table's triggers abort it (a round of the game awaits a
    decision): SQLite has undone the statement, and the job's savepoint is rolled back, as for a
    statement that changed nothing."""
    try:
        return transaction.first(STATEMENTS[statement], parameters)
    except sqlite3.IntegrityError as error:
        if error.sqlite_errorname == "SQLITE_CONSTRAINT_TRIGGER" and str(error) == AWAITING_REFUSAL:
            raise Refused from error
        raise
