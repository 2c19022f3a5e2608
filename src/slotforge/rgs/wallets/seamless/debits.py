"""A seamless round's stake, debited at the operator's wallet before the round's transaction,
with no lock held, so that a slow wallet holds up no other round (on SQLite the round's
transaction holds the database's one write lock).

How the debit stays exact whatever fails: first the round's placeholder (status ``pending``,
whose id the debit carries) is committed on its own (:meth:`Debits.hold`): it is the debit's
*held* rollback (``wallet_status`` ``debit_pending``), which falls due ``rollback_hold_s`` after
the placeholder's start unless the round takes it first (:class:`HeldDebits`: the outbox's
worker then writes the rollback as a message, due at once). The placeholder carries the
request's Idempotency-Key, so that a twin of the request reaching another server process
meanwhile finds it and sends no debit of its own (``Server.hold_debit``: 409 while this one's
debit is out, the stored answer after). The debit is retried with the same transaction id
(:meth:`~slotforge.rgs.wallets.seamless.client.WalletClient.debit`). Then the round's
transaction keeps it (:meth:`Debits.keep` takes the hold, on the condition that it is still
held, so that taking it commits exactly when the round does) and plays the round in the
placeholder; or, for a debit that timed out, failed or was refused, voids the round and writes
the rollback due at once (402 or 503, nothing taken). If the round's transaction fails, or the
process dies before it commits, the rollback is delivered (at once, or when the hold falls due
in the next process) and its acknowledgement voids the placeholder
(:mod:`~slotforge.rgs.wallets.seamless.credits`).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, insert, literal_column, select, update

from slotforge.db.engine import Writer
from slotforge.rgs import outbox as mail
from slotforge.rgs.outbox import Outbox
from slotforge.rgs.schema import CREDIT_PENDING, is_pending, operators, players, rounds
from slotforge.rgs.settings import Settings
from slotforge.rgs.wallets.internal import ENTRY
from slotforge.rgs.wallets.seamless.client import Declined, WalletCalls, call_body
from slotforge.rgs.wallets.seamless.credits import ROUND_WALLET, TARGET, void_entries, wallet_message
from slotforge.rgs.wallets.seamless.players import PlayerDirectory, PlayerInfo

SET_BALANCE = update(players).where(players.c.id == bindparam("p_player")).values(balance=bindparam("p_balance"))
PENDING_WINS = select(func.coalesce(func.sum(rounds.c.win), 0)).where(
    rounds.c.player_id == bindparam("p_player"), CREDIT_PENDING)
INSERT_PLACEHOLDER = insert(rounds).returning(rounds.c.id)
# A debit's rollback held by its placeholder round: the placeholder pending, its debit not yet
# taken by the round nor given up (written as the rollback's message).
HELD = is_pending(rounds) & (rounds.c.wallet_status == literal_column("'debit_pending'"))
TAKE_HOLD = (update(rounds).where(rounds.c.id == bindparam("p_round"), HELD)
             .values(wallet_status=None).returning(rounds.c.id))
GIVE_UP_HOLD = (update(rounds).where(rounds.c.id == bindparam("p_round"), HELD)
                .values(wallet_status="rollback_pending").returning(rounds.c.id))
HELD_COUNT = select(func.count()).select_from(rounds).where(HELD)
# The holds older than the shortest of the operators' (read through ``ix_rounds_status``).
OLD_HOLDS = (select(rounds.c.id, rounds.c.wallet_tx, rounds.c.stake, rounds.c.game, rounds.c.started_at,
                    players.c.external_id, players.c.currency, operators.c.name)
             .join(players, players.c.id == rounds.c.player_id).join(operators, operators.c.id == players.c.operator_id)
             .where(HELD, rounds.c.started_at <= bindparam("p_before")).order_by(rounds.c.id))


@dataclass
class DebitIntent:
    """A debit about to be sent: its transaction id and its held rollback."""

    transaction_id: str
    operator: str
    game: str
    held_at: int
    hold_ms: int
    round_id: int  # its placeholder round's
    stake: int
    body: dict[str, Any]
    sent: bool = False
    player_id: int = 0
    balance: int | None = None  # the wallet's answer to a debit that succeeded
    shown: int | None = None  # the balance shown to the player after it
    declined: Declined | None = None  # or why it did not
    taken: bool = False  # succeeded, and its rollback cancelled in the round's transaction
    player: PlayerInfo | None = None


@dataclass
class Debits:
    """The rounds' debits at the operators' wallets, from the held rollback to the round's
    transaction that keeps them or the rollback that undoes them."""

    settings: Settings
    engine: Engine
    outbox: Outbox
    calls: WalletCalls
    players: PlayerDirectory
    now: Callable[[], int]
    writer: Writer  # the process's write transactions (the outbox worker's holds that fall due)
    _intents: dict[str, DebitIntent] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- before the debit: its held rollback --------------------------------------------------
    def hold(self, conn: Connection, placeholder: dict[str, Any], game: str) -> DebitIntent:
        """In a transaction of its own (``conn``): the round's placeholder (status ``pending``: its
        id goes with the debit), which holds the rollback of its debit, due later unless the
        round's transaction takes it. :meth:`track` the intent once this is committed."""
        intent = self.intent(conn, placeholder["player_id"], game, placeholder["stake"])
        round_id = conn.execute(INSERT_PLACEHOLDER, {**placeholder, "wallet_tx": intent.transaction_id}).scalar_one()
        self.placed(intent, round_id)
        return intent

    def intent(self, conn: Connection, player_id: int, game: str, stake: int) -> DebitIntent:
        """A new debit of ``stake`` (its round not placed yet: see :meth:`placed`)."""
        return self.intent_for(self.players.player(conn, player_id), player_id, game, stake)

    def intent_for(self, info: PlayerInfo, player_id: int, game: str, stake: int) -> DebitIntent:
        """:meth:`intent`, the player's details known (a caller with no connection at hand)."""
        return DebitIntent(uuid.uuid4().hex, info.operator, game, self.now(), self.hold_ms(info.operator), 0, stake,
                           {}, player_id=player_id, player=info)

    def hold_ms(self, operator: str) -> int:
        """How long a debit's rollback is held by its placeholder (the operator's ``rollback_hold_s``)."""
        return self.settings.operator(operator).rollback_hold_s * 1000

    def placed(self, intent: DebitIntent, round_id: int) -> None:
        """The debit's round placed as ``round_id``: its id goes with the debit."""
        intent.round_id = round_id
        intent.body = call_body(intent.transaction_id, round_id, intent.player, intent.stake, intent.game)

    def track(self, intent: DebitIntent) -> None:
        """Follow a held debit (its placeholder committed) until :meth:`settle`."""
        with self._lock:
            self._intents[intent.transaction_id] = intent

    # -- the call --------------------------------------------------------------------------------
    def send(self, intent: DebitIntent) -> None:
        """Send the debit from a thread with no transaction open (a slow wallet holds up no other
        round); the outcome is kept in the intent."""
        self.calls.loop.run(self._debit(intent))

    async def send_from_loop(self, intent: DebitIntent) -> None:
        """:meth:`send`, awaited on the server's event loop."""
        await self.calls.loop.wait(self._debit(intent))

    async def _debit(self, intent: DebitIntent) -> None:
        intent.sent = True
        try:
            intent.balance = await self.calls.client(intent.operator).debit(intent.body)
        except Declined as error:
            intent.declined = error

    # -- in the round's transaction -------------------------------------------------------------
    def keep(self, conn: Connection, intent: DebitIntent) -> Declined | None:
        """In the round's transaction: take the held rollback of a debit that succeeded (so that
        taking it commits with the round); why not, if it cannot be kept."""
        if intent.declined is not None:
            return intent.declined
        # The rollback must still be held: past half its hold the worker may be about to give it
        # up, and a debit it reverses must not be paid as a round.
        if not self.in_time(intent) or conn.execute(TAKE_HOLD, {"p_round": intent.round_id}).first() is None:
            return Declined("WALLET_UNAVAILABLE", "the debit was answered too late; it is rolled back", unclear=True)
        intent.taken = True
        # The balance shown: the wallet's answer, and the wins on their way to it (a credit the
        # wallet has not applied yet is not in its answer; one applied meanwhile is counted twice
        # until the next debit's answer).
        owed = conn.execute(PENDING_WINS, {"p_player": intent.player_id}).scalar_one()
        intent.shown = intent.balance + owed
        return None

    def in_time(self, intent: DebitIntent) -> bool:
        """Whether a debit's held rollback can still be taken: before half its hold (past it,
        the worker may be about to give it up)."""
        return self.now() - intent.held_at <= intent.hold_ms // 2

    def debit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
              reference: str | None = None, now: int) -> int:
        """Record a stake the wallet took (``reference``: the debit's transaction id, kept by
        :meth:`keep`); the wallet's balance."""
        intent = self._intents[reference]
        conn.execute(SET_BALANCE, {"p_player": player_id, "p_balance": intent.shown})
        conn.execute(ENTRY, dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id,
                                 reference=None, created_at=now))
        conn.execute(ROUND_WALLET, {"p_round": round_id, "p_tx": reference, "p_status": None})
        return intent.shown

    def declined(self, conn: Connection, intent: DebitIntent, now: int) -> None:
        """A debit that did not succeed: its round's stake and refund in the ledger (nothing
        moved), its rollback due now."""
        void_entries(conn, intent.player_id, intent.round_id, intent.stake, now)
        # The round is rollback_pending now (or was made so when the worker gave the hold up).
        self.roll_back_now(conn, intent, now)

    # -- after the round's transaction -----------------------------------------------------------
    def settle(self, transaction: Callable[[], AbstractContextManager[Connection]], intent: DebitIntent,
               committed: bool) -> None:
        """After the round's transaction: a debit whose round did not commit with it taken is
        rolled back now (its placeholder is made void when the wallet acknowledges)."""
        if self.done(intent, committed):
            return
        with transaction() as conn:
            self.roll_back_now(conn, intent)

    def done(self, intent: DebitIntent, committed: bool) -> bool:
        """Stop following a debit; whether its round committed with it taken (else it is rolled back)."""
        with self._lock:
            self._intents.pop(intent.transaction_id, None)
        return committed and intent.taken

    def roll_back_now(self, conn: Connection, intent: DebitIntent, now: int | None = None) -> None:
        """A debit's held rollback given up: due at once (``now``, or the clock's)."""
        self.give_up(conn, intent.round_id, intent.transaction_id, intent.player, intent.stake, intent.game,
                     self.now() if now is None else now)

    def give_up(self, conn: Connection, round_id: int, transaction_id: str, info: PlayerInfo, stake: int, game: str,
                now: int) -> bool:
        """The rollback held by a placeholder round written as a message due at once, the round
        ``rollback_pending``; False (nothing written) if it is no longer held: taken by its
        round, or given up already."""
        if conn.execute(GIVE_UP_HOLD, {"p_round": round_id}).first() is None:
            return False
        conn.execute(mail.ENQUEUE, wallet_message("rollback", transaction_id, round_id, info, stake, game, now))
        self.outbox.wake()
        return True


def held(conn: Connection) -> int:
    """How many debits' rollbacks their placeholder rounds hold."""
    return conn.execute(HELD_COUNT).scalar_one()


def owed(conn: Connection) -> int:
    """The calls owed to the wallets: the messages not yet acknowledged and the rollbacks still
    held by their placeholder rounds."""
    return mail.pending(conn, TARGET) + held(conn)


class HeldDebits:
    """The debits' rollbacks held by their placeholder rounds (:data:`HELD`), for the outbox's
    worker: each falls due ``rollback_hold_s`` (its operator's) after its placeholder's start,
    and is then written as a message due at once."""

    def __init__(self, debits: Debits) -> None:
        self.debits = debits
        self.shortest_ms = min(debits.hold_ms(name) for name in debits.calls.clients)

    def fall_due(self) -> int:
        now = self.debits.now()
        with self.debits.engine.connect() as conn:  # read first: a write turn only when one fell due
            old = conn.execute(OLD_HOLDS, {"p_before": now - self.shortest_ms}).all()
        due = [row for row in old if row.started_at + self.debits.hold_ms(row.name) <= now]
        if not due:
            return 0
        with self.debits.writer() as conn:
            return sum(self.debits.give_up(conn, row.id, row.wallet_tx, PlayerInfo(row.external_id, row.currency,
                                                                                   row.name), row.stake, row.game, now)
                       for row in due)

    def count(self, conn: Connection) -> int:
        return held(conn)
