"""The round store on PostgreSQL: each fast-path transaction is one call of a PL/pgSQL function
(its text in ``rgs/sql/NAME.sql``, installed by the migrations), sent on a connection in
autocommit on one of the server's few write threads: the call is the whole transaction and its
one round trip, with no ``BEGIN`` or ``COMMIT`` of its own. Where the same transaction as
statements was four to eight round trips, this is what keeps the round near half of pgbench's
TPC-B on the same cores.

A function answers NULL when it changed nothing, and raises :data:`REFUSED` when a condition
fails after it changed something (the failed call undoes it), or when the rounds table's trigger
refuses the round it writes (a round of the game awaits a decision: ``rgs/sql/none_awaiting.sql``,
the one statement of that rule on PostgreSQL): all are :class:`~slotforge.rgs.store.Refused` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from sqlalchemy import BigInteger, Boolean, Integer, Text, TextClause, bindparam, text

from slotforge.db.driver import DriverStatement, DriverTransaction
from slotforge.rgs.rounds.claims import in_progress
from slotforge.rgs.store.general import KEEP_ANSWER
from slotforge.rgs.store.interface import Placement, Refused, Result, RoundStore, StraightRound, WalletSettlement

REFUSED = "SF001"  # the SQLSTATE of the functions' and the rounds trigger's refusals (rgs/sql/*.sql raise it)

TYPES = {"bigint": BigInteger, "text": Text, "boolean": Boolean, "integer": Integer}


def call(function: str, returns: str, **parameters: str) -> TextClause:
    """``SELECT returns FROM slotforge_FUNCTION(p_name => :p_name, ...)``, each parameter bound
    with its SQL type (``parameters``: name -> ``bigint``, ``text``, ...)."""
    arguments = ", ".join(f"{name} => :{name}" for name in parameters)
    return text(f"SELECT {returns} FROM slotforge_{function}({arguments})").bindparams(
        *(bindparam(name, type_=TYPES[kind]) for name, kind in parameters.items()))


# ``slotforge_play_round`` (play_round.sql): the straight round, its key's claim first.
PLAY_ROUND = call(
    "play_round", "claim_held, new_round, new_balance",
    p_claim="bigint", p_player="bigint", p_stake="bigint", p_win="bigint", p_now="bigint", p_latest="bigint",
    p_session="bigint", p_game="text", p_status="text", p_fun="boolean", p_currency="text", p_jurisdiction="text",
    p_record="text", p_finished_at="bigint", p_key="text", p_request_hash="text", p_status_code="integer")
# ``slotforge_hold_debit`` (hold_debit.sql): a seamless round's placeholder.
HOLD_DEBIT = call(
    "hold_debit", "new_round",
    p_player="bigint", p_session="bigint", p_game="text", p_currency="text", p_jurisdiction="text",
    p_stake="bigint", p_now="bigint", p_latest="bigint", p_wallet_tx="text", p_request_key="text")
# ``slotforge_settle_at_wallet`` (settle_at_wallet.sql): a seamless round's settling.
SETTLE_AT_WALLET = call(
    "settle_at_wallet", "new_balance, credit_id",
    p_player="bigint", p_round="bigint", p_wallet_tx="text", p_reported="bigint",
    p_stake="bigint", p_win="bigint", p_now="bigint", p_latest="bigint", p_record="text", p_credit_key="text",
    p_credit_payload="text", p_credit_due_at="bigint", p_key="text", p_request_hash="text",
    p_status_code="integer")

# Each statement as psycopg takes it.
STATEMENTS = {name: DriverStatement.of(statement, "postgresql") for name, statement in (
    ("play_round", PLAY_ROUND), ("hold_debit", HOLD_DEBIT), ("settle_at_wallet", SETTLE_AT_WALLET),
    ("answer", KEEP_ANSWER))}


class PostgresStore(RoundStore):
    """The round store on PostgreSQL (see the module's description)."""

    async def transaction(self, job: Callable[[DriverTransaction], Result]) -> Result:
        """On a write thread, its driver connection in autocommit: each statement a transaction."""
        listeners = self.writer.listeners
        return await self.writer.run_autocommit(lambda driver: job(DriverTransaction(driver, listeners)))

    def play_round(self, transaction: DriverTransaction, round_: StraightRound) -> None:
        """One call of ``slotforge_play_round``, which takes the key's claim (an advisory lock)."""
        row, stored = round_.row, round_.stored
        held, round_id, balance = calling(transaction, "play_round", {
            **round_.settle, "p_claim": round_.claim, "p_session": row["session_id"], "p_game": row["game"],
            "p_status": row["status"], "p_fun": row["fun"], "p_currency": row["currency"],
            "p_jurisdiction": row["jurisdiction"], "p_record": row["record"], "p_finished_at": row["finished_at"],
            "p_key": stored["key"], "p_request_hash": stored["request_hash"],
            "p_status_code": stored["status_code"]})
        if not held:
            raise in_progress()
        if round_id is None:
            raise Refused
        round_.settled(balance)
        row["id"] = round_id

    def keep_answer(self, transaction: DriverTransaction, player: int, key: str, answer: bytes) -> None:
        """A transaction of its own, after the round's: the answer holds the round's id and
        balances, which only the call knew. Should it be lost (the process stopped between the
        two), the key still points to the round, and a retry is answered with the round as it
        stands then."""
        transaction.send(STATEMENTS["answer"], {"p_player": player, "p_key": key, "p_body": answer.decode()})

    def hold_debit(self, transaction: DriverTransaction, placement: Placement) -> int:
        """One call of ``slotforge_hold_debit``."""
        (round_id,) = calling(transaction, "hold_debit", placement.parameters())
        if round_id is None:
            raise Refused
        return round_id

    def settle_at_wallet(self, transaction: DriverTransaction, settlement: WalletSettlement) -> tuple[int, int]:
        """One call of ``slotforge_settle_at_wallet``."""
        s = settlement
        balance, credit_id = calling(transaction, "settle_at_wallet", {
            "p_player": s.player, "p_round": s.round_id, "p_wallet_tx": s.wallet_tx,
            "p_reported": s.reported, "p_stake": s.stake, "p_win": s.win, "p_now": s.now, "p_latest": s.latest,
            "p_record": s.record, "p_credit_key": s.credit["key"], "p_credit_payload": s.credit["payload"],
            "p_credit_due_at": s.credit["due_at"], "p_key": s.key, "p_request_hash": s.request_hash,
            "p_status_code": s.status_code})
        if balance is None:
            raise Refused
        return balance, credit_id


def calling(transaction: DriverTransaction, function: str, arguments: dict[str, Any]) -> tuple:
    """The row a function's call answers; :class:`Refused` when it raised :data:`REFUSED`."""
    try:
        return transaction.first(STATEMENTS[function], arguments)
    except psycopg.Error as error:
        if error.sqlstate == REFUSED:  # the failed call undid what it had done
            raise Refused from error
        raise
