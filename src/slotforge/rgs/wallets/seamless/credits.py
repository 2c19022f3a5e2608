"""What a seamless round owes its operator's wallet after the debit, delivered through the
outbox: every completed round's credit (a zero win included, so the wallet can close the round)
and the rollback of a debit whose round is void, each written in a round's transaction (or by
the outbox's worker, for a held rollback that fell due) and sent until the wallet acknowledges;
the round shows ``credit_pending`` or ``rollback_pending`` until then.

A round's own request sends its credit at once (:meth:`Credits.credit_now`), the outbox holding
it for longer than that attempt can take. The rollback's ``transaction_id`` is the debit's: a
wallet that never saw the debit acknowledges it and remembers, so a late debit is refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection, bindparam, select, update

from slotforge.db.engine import Writer
from slotforge.rgs import outbox as mail
from slotforge.rgs.outbox import Message, Outbox
from slotforge.rgs.schema import players, rounds
from slotforge.rgs.settings import Settings
from slotforge.rgs.wallets.internal import ENTRY
from slotforge.rgs.wallets.seamless.client import WalletCalls, call_body
from slotforge.rgs.wallets.seamless.players import PlayerDirectory, PlayerInfo

log = logging.getLogger("slotforge.rgs.wallets.seamless")

TARGET = "wallet"
# Where a round stands with the wallet once an acknowledgement arrives.
SETTLED = {"credit": "settled", "rollback": "rolled_back"}

ADD_BALANCE = (update(players).where(players.c.id == bindparam("p_player"))
               .values(balance=players.c.balance + bindparam("p_amount")).returning(players.c.balance))
ROUND_WALLET = update(rounds).where(rounds.c.id == bindparam("p_round")).values(
    wallet_tx=bindparam("p_tx"), wallet_status=bindparam("p_status"))
ROUND_SETTLED = update(rounds).where(rounds.c.id == bindparam("p_round")).values(wallet_status=bindparam("p_status"))
ROUNDS_SETTLED = (update(rounds).where(rounds.c.id.in_(bindparam("p_rounds", expanding=True)))
                  .values(wallet_status=bindparam("p_status")))
ROUND_TX = select(rounds.c.wallet_tx, rounds.c.game).where(rounds.c.id == bindparam("p_round"))


def wallet_message(kind: str, transaction_id: str, round_id: int, info: PlayerInfo, amount: int, game: str,
                   now: int, hold_ms: int = 0, promotion: str | None = None) -> dict[str, Any]:
    """The outbox's row of a round's credit (its key the debit's transaction id and ``-win``)
    or of its debit's rollback (due now, or after ``hold_ms``). ``promotion``: a free round's
    credit, with no debit before it, marked ``"promotional": true`` with the campaign's reference."""
    key = f"{transaction_id}-win" if kind == "credit" else transaction_id
    body = call_body(key, round_id, info, amount, game)
    if promotion is not None:
        body.update(promotional=True, campaign=promotion)
    return mail.message_row(TARGET, kind, key, {"operator": info.operator, "body": body}, now=now,
                            round_id=round_id, hold_ms=hold_ms)


def void_entries(conn: Connection, player_id: int, round_id: int, amount: int, now: int) -> None:
    """A void round's stake and refund in the ledger, as for every void round (nothing moved)."""
    for kind in ("stake", "refund"):
        conn.execute(ENTRY, dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id,
                                 reference=None, created_at=now))


@dataclass
class Credits:
    """The credits and rollbacks owed to the wallets: written in the caller's transaction,
    delivered by the outbox's worker (its receiver of the ``wallet`` target) or at once by the
    round's own request, and settled when acknowledged."""

    settings: Settings
    outbox: Outbox
    calls: WalletCalls
    players: PlayerDirectory
    now: Callable[[], int]
    writer: Writer  # the process's write transactions, for what a round's own request records
    _acknowledged: list[mail.Outcome] = field(default_factory=list)
    _recording: asyncio.Task | None = None

    def credit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
               reference: str | None = None, now: int, promotion: str | None = None) -> int:
        """A round's win (``kind`` "win": a credit) or a void round's refund ("refund": the
        debit's rollback), owed to the wallet through the outbox; the expected balance.
        ``promotion``: a free round's campaign reference, which marks its credit promotional."""
        transaction_id, game = conn.execute(ROUND_TX, {"p_round": round_id}).one()
        info = self.players.player(conn, player_id)
        if kind == "win":
            status, wallet_kind = "credit_pending", "credit"
        else:
            status, wallet_kind = "rollback_pending", "rollback"
        conn.execute(mail.ENQUEUE, wallet_message(wallet_kind, transaction_id, round_id, info, amount, game, now,
                                                  promotion=promotion))
        conn.execute(ROUND_WALLET, {"p_round": round_id, "p_tx": transaction_id, "p_status": status})
        if amount:
            conn.execute(ENTRY, dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id,
                                     reference=None, created_at=now))
        balance = conn.execute(ADD_BALANCE, {"p_player": player_id, "p_amount": amount}).scalar_one()
        self.outbox.wake()
        return balance

    # -- a round's credit, sent by its own request ---------------------------------------------
    def handoff_ms(self, operator: str) -> int:
        """How long a credit sent by its round's request waits in the outbox before the worker
        may send it too: longer than that one attempt can take, so that the worker only sends
        what the attempt left (the process stopped, or the answer never came)."""
        return int(self.settings.operator(operator).timeout_s * 1000) + 1000

    def credit_now(self, message_id: int, row: dict[str, Any]) -> None:
        """Send a round's credit (its outbox row committed as ``message_id``, held for
        :meth:`handoff_ms`) at once, on the event loop, instead of at the worker's next pass: the
        wallet hears of the win without a wait, and the worker neither looks for it nor sends it.
        The outcome is recorded as the worker records its own, in one transaction with every
        other outcome that arrived meanwhile; a failure puts the credit on the worker's back-off.
        Both run on the call loop."""
        message = Message(message_id, row["target"], row["kind"], row["key"], orjson.loads(row["payload"]),
                          row["round_id"], 0)
        self.calls.loop.start(self._credit(message))

    async def _credit(self, message: Message) -> None:
        try:
            outcome: mail.Outcome = (message, await self._deliver(message), None)
        except Exception as error:  # recorded as the worker's failures are: retried on its back-off
            outcome = (message, None, error)
        self._acknowledged.append(outcome)
        if self._recording is None:
            self._recording = asyncio.get_running_loop().create_task(self._record_credits())

    async def _record_credits(self) -> None:
        """Record the credits' outcomes, all that arrived while the last ones were recorded at
        once (a busy server acknowledges hundreds a second)."""
        try:
            while self._acknowledged:
                outcomes, self._acknowledged = self._acknowledged, []
                try:
                    await self.writer.run(lambda conn, outcomes=outcomes: self.outbox.record(conn, outcomes))
                except Exception:  # still owed in the outbox: the worker sends them when they fall due
                    log.exception("recording %d credits' outcomes failed; the outbox's worker will send them",
                                  len(outcomes))
        finally:
            self._recording = None

    # -- the outbox's receiver ------------------------------------------------------------------
    def deliver(self, message: Message) -> dict[str, Any]:
        return self.calls.loop.run(self._deliver(message))

    def deliver_many(self, messages: list[Message]) -> dict[int, dict[str, Any] | Exception]:
        """The due messages of an outbox pass, sent all at once: each one's acknowledgement or
        why not (a busy server owes a credit a round, more than one call at a time can carry)."""
        return self.calls.loop.run(self._deliver_all(messages))

    async def _deliver_all(self, messages: list[Message]) -> dict[int, dict[str, Any] | Exception]:
        answers = await asyncio.gather(*(self._deliver(message) for message in messages), return_exceptions=True)
        return {message.id: answer for message, answer in zip(messages, answers, strict=True)}

    async def _deliver(self, message: Message) -> dict[str, Any]:
        return await self.calls.client(message.payload["operator"]).deliver(message.kind, message.payload["body"])

    def acknowledged(self, conn: Connection, marked: list[tuple[Message, dict[str, Any]]]) -> None:
        """The rounds of the credits and rollbacks just acknowledged: settled (every credit's in one
        statement), or rolled back (a round that never got past its debit is void now)."""
        credited = [message.round_id for message, _ in marked if message.kind == "credit" and message.round_id]
        if credited:
            conn.execute(ROUNDS_SETTLED, {"p_rounds": credited, "p_status": SETTLED["credit"]})
        for message, _ in marked:
            if message.kind == "rollback" and message.round_id is not None:
                self._rolled_back(conn, message.round_id)

    def _rolled_back(self, conn: Connection, round_id: int) -> None:
        pending = conn.execute(select(rounds.c.player_id, rounds.c.stake).where(
            rounds.c.id == round_id, rounds.c.status == "pending")).first()
        if pending is not None:
            now = self.now()
            void_entries(conn, pending.player_id, round_id, pending.stake, now)
            conn.execute(update(rounds).where(rounds.c.id == round_id).values(
                status="void", finished_at=now, void_reason="the round did not complete after its debit "
                "(the server stopped or refused the request); the debit is rolled back"))
        conn.execute(ROUND_SETTLED, {"p_round": round_id, "p_status": SETTLED["rollback"]})
