"""The operator's wallet, called over HTTP for every round (the seamless wallet).

An operator configured with ``wallet = "seamless"`` keeps its players' money itself; the server
calls ``POST {base}/debit``, ``/credit`` and ``/rollback`` with ``{"transaction_id", "round_id",
"player_id", "amount", "currency", "game"}`` signed by ``X-Signature: hex(HMAC-SHA256(secret,
body))``, and the wallet answers ``{"balance": "..."}`` or ``{"error": CODE}`` (docs/wallet.md).

How a round's money stays exact whatever fails:

- **The debit** is sent before the round's transaction, with no lock held, so that a slow
  wallet holds up no other round (on SQLite the round's transaction holds the database's one
  write lock). First the round's placeholder (status ``pending``, whose id the debit carries) is
  committed on its own (:meth:`SeamlessWallet.hold`): it is the debit's *held* rollback
  (``wallet_status`` ``debit_pending``), which falls due ``rollback_hold_s`` after the
  placeholder's start unless the round takes it first (:class:`HeldDebits`: the outbox's worker
  then writes the rollback as a message, due at once). The placeholder carries the request's
  Idempotency-Key, so that a twin of the request reaching another server process meanwhile
  finds it and sends no debit of its own (``Server.hold_debit``: 409 while this one's debit is
  out, the stored answer after). The debit is retried with the same transaction id
  (:meth:`WalletClient.debit`). Then the round's transaction keeps it (:meth:`SeamlessWallet.keep`
  takes the hold, on the condition that it is still held, so that taking it commits exactly
  when the round does) and plays the round in the placeholder; or, for a debit that timed out,
  failed or was refused, voids the round and writes the rollback due at once (402 or 503,
  nothing taken). If the round's transaction fails, or the process dies before it commits, the
  rollback is delivered (at once, or when the hold falls due in the next process) and its
  acknowledgement voids the placeholder.
- **The credit** (every completed round's, a zero win included, so the wallet can close the
  round) and **the rollback of a void round** are written to the outbox in the round's
  transaction and delivered by its worker until the wallet acknowledges; the round shows
  ``credit_pending`` or ``rollback_pending`` until then.
- The rollback's ``transaction_id`` is the debit's: a wallet that never saw the debit
  acknowledges it and remembers, so a late debit is refused.

The server's own ledger still records each round's stake, win and refund (the audit's rounds
check); a seamless player's ``balance`` column only keeps the last balance the wallet reported.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import threading
import uuid
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from sqlalchemy import Connection, Engine, bindparam, func, insert, literal_column, select, update

from slotforge.amounts import AmountError, parse_minor
from slotforge.db.engine import Writer
from slotforge.rgs import outbox as mail
from slotforge.rgs.money import to_text
from slotforge.rgs.outbox import Message, Outbox
from slotforge.rgs.schema import CREDIT_PENDING, is_pending, operators, players, rounds
from slotforge.rgs.settings import OperatorSettings, Settings
from slotforge.rgs.wallets.http1 import CallFailed, Http1Pool
from slotforge.rgs.wallets.internal import ENTRY

log = logging.getLogger("slotforge.rgs.wallets.seamless")

Result = TypeVar("Result")

TARGET = "wallet"
SIGNATURE_HEADER = "X-Signature"
# Answers that say the wallet did not apply a debit, and why.
REFUSALS = {"INSUFFICIENT_FUNDS", "UNKNOWN_PLAYER", "TRANSACTION_ROLLED_BACK", "CURRENCY_MISMATCH"}
# Where a round stands with the wallet once an acknowledgement arrives.
SETTLED = {"credit": "settled", "rollback": "rolled_back"}

SET_BALANCE = update(players).where(players.c.id == bindparam("p_player")).values(balance=bindparam("p_balance"))
ADD_BALANCE = (update(players).where(players.c.id == bindparam("p_player"))
               .values(balance=players.c.balance + bindparam("p_amount")).returning(players.c.balance))
ROUND_WALLET = update(rounds).where(rounds.c.id == bindparam("p_round")).values(
    wallet_tx=bindparam("p_tx"), wallet_status=bindparam("p_status"))
PENDING_WINS = select(func.coalesce(func.sum(rounds.c.win), 0)).where(
    rounds.c.player_id == bindparam("p_player"), CREDIT_PENDING)
INSERT_PLACEHOLDER = insert(rounds).returning(rounds.c.id)
ROUND_SETTLED = update(rounds).where(rounds.c.id == bindparam("p_round")).values(wallet_status=bindparam("p_status"))
ROUNDS_SETTLED = (update(rounds).where(rounds.c.id.in_(bindparam("p_rounds", expanding=True)))
                  .values(wallet_status=bindparam("p_status")))
ROUND_TX = select(rounds.c.wallet_tx, rounds.c.game).where(rounds.c.id == bindparam("p_round"))
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


def encode(body: dict[str, Any]) -> bytes:
    """A request body as sent (and signed): compact JSON, keys sorted."""
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def sign(secret: str, body: bytes) -> str:
    """The ``X-Signature`` of ``body``: hex(HMAC-SHA256(secret, body))."""
    return hmac.digest(secret.encode(), body, hashlib.sha256).hex()  # one call into C


def signed_correctly(secret: str, body: bytes, signature: str | None) -> bool:
    return signature is not None and hmac.compare_digest(sign(secret, body), signature)


class Unclear(Exception):
    """The wallet's answer says nothing certain (a time-out, a 5xx, a lost connection, garbage):
    the call may or may not have been applied."""


class Declined(Exception):
    """A debit that did not succeed: refused (``code`` from the wallet) or unanswered
    (``unclear``). Either way its rollback is delivered and the round is void."""

    def __init__(self, code: str, message: str, balance: int | None = None, unclear: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.balance = balance
        self.unclear = unclear


def balance_of(answer: dict[str, Any]) -> int | None:
    """The wallet's ``balance`` as minor units, None when absent or not strict amount text
    ("49.80": a JSON number is as unclear as garbage)."""
    try:
        return parse_minor(answer["balance"], "balance", positive=False)
    except (KeyError, AmountError):
        return None


class CallLoop:
    """The event loop every wallet call runs on.

    A call is mostly waiting, and waiting on an event loop costs a thread nothing (the calls'
    client, :class:`~slotforge.rgs.wallets.http1.Http1Pool`, is an asyncio protocol; httpx's
    synchronous client cost four times the CPU a call, its asynchronous one twenty). While the
    server serves, the loop is the server's own (:meth:`adopt`): a
    round awaits its debit where it runs, and the outbox's worker and the lanes' threads hand
    their calls over to it. One loop keeps one connection pool per wallet, and no thread of its
    own: every thread more in the process waits its turn for the interpreter at each wake-up, and
    one that wakes for every answer made each call wait for the others. Without a server (a
    tool, a test) the loop runs in a thread of its own, started with the first call.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()
        self._started: set[asyncio.Task] = set()

    def adopt(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run the calls on ``loop`` (the server's, as it starts serving) from now on."""
        with self._starting:
            if self._loop is None:
                self._loop = loop

    def submit(self, call: Coroutine[Any, Any, Result]) -> Future[Result]:
        """Start ``call`` on the loop; its future."""
        return asyncio.run_coroutine_threadsafe(call, self._running())

    def run(self, call: Coroutine[Any, Any, Result]) -> Result:
        """``call``'s result, from a thread that is not the loop's."""
        return self.submit(call).result()

    def start(self, call: Coroutine[Any, Any, Any]) -> None:
        """Start ``call`` on the loop without waiting for it (from the loop or from a thread): it
        outlives the request that started it, whose own loop may not (a test client's)."""
        loop = self._running()
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is loop:
            task = loop.create_task(call)
            self._started.add(task)  # a task nobody holds may be collected before it ends
            task.add_done_callback(self._started.discard)
        else:
            asyncio.run_coroutine_threadsafe(call, loop)

    async def wait(self, call: Coroutine[Any, Any, Result]) -> Result:
        """``call``'s result, from an event loop: at once on the calls' own."""
        if asyncio.get_running_loop() is self._loop:
            return await call
        return await asyncio.wrap_future(self.submit(call))

    def close(self, last: Coroutine[Any, Any, Any]) -> None:
        """Run ``last`` (closing the clients) on the loop of the calls' own thread, and end it
        (nothing to do on an adopted loop, or before the first call)."""
        if self._thread is None:
            last.close()
            return
        self.run(last)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop = self._thread = None

    async def release(self, last: Coroutine[Any, Any, Any]) -> None:
        """On the adopted loop as it stops: run ``last`` (closing the clients) and let it go."""
        await last
        self._loop = None

    def _running(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            with self._starting:
                if self._loop is None:
                    loop = asyncio.new_event_loop()
                    self._thread = threading.Thread(target=loop.run_forever, name="wallet-calls", daemon=True)
                    self._thread.start()
                    self._loop = loop
        return self._loop


class WalletClient:
    """One operator's wallet over HTTP: short time-outs, the same transaction id on every retry.
    Its coroutines run on the :class:`CallLoop`, where its connection pool lives."""

    def __init__(self, name: str, settings: OperatorSettings) -> None:
        self.name = name
        self.settings = settings
        self.url = settings.wallet_url
        self._secret = settings.wallet_secret.get_secret_value()
        self._http = Http1Pool(settings.wallet_url, limit=100, connect_timeout=min(settings.timeout_s, 1.0))

    async def call(self, kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One signed call; the status and the answer, or :class:`Unclear`."""
        raw = encode(body)
        try:
            status, content = await self._http.post(f"/{kind}", raw, {
                "Content-Type": "application/json", SIGNATURE_HEADER: sign(self._secret, raw)},
                self.settings.timeout_s)
        except CallFailed as error:
            raise Unclear(f"{kind} {body['transaction_id']}: {error}") from error
        return status, understood(kind, body["transaction_id"], status, content)

    async def debit(self, body: dict[str, Any]) -> int:
        """Take the stake; the wallet's new balance, or :class:`Declined`."""
        problem = "no attempt"
        for attempt in range(self.settings.debit_attempts):
            if attempt:
                await asyncio.sleep(0.05 * attempt)
            try:
                status, answer = await self.call("debit", body)
            except Unclear as error:
                problem = str(error)
                continue
            if status == 200:
                return balance_of(answer)
            return self._refused(answer)
        raise Declined("WALLET_UNAVAILABLE", f"the operator's wallet did not answer the debit: {problem}",
                       unclear=True)

    @staticmethod
    def _refused(answer: dict[str, Any]) -> int:
        code = answer["error"]
        if code not in REFUSALS:  # DUPLICATE_TRANSACTION or unknown to us: applied or not, we cannot tell
            raise Declined("WALLET_UNAVAILABLE", f"the wallet answered the debit with {code}", unclear=True)
        raise Declined(code, f"the wallet refused the debit: {code}", balance=balance_of(answer))

    async def deliver(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        """A credit or rollback for the outbox: the acknowledgement, or an exception to retry later."""
        status, answer = await self.call(kind, body)
        code = answer.get("error")
        # DUPLICATE_TRANSACTION: the wallet has it already. A rollback of a debit for a player the
        # wallet does not know has nothing to reverse.
        if status == 200 or code == "DUPLICATE_TRANSACTION" or (kind == "rollback" and code == "UNKNOWN_PLAYER"):
            return answer
        raise RuntimeError(f"{kind} {body['transaction_id']}: the wallet answered {status} {code}")

    async def close(self) -> None:
        await self._http.close()


def understood(kind: str, transaction_id: str, status: int, content: bytes) -> dict[str, Any]:
    """The wallet's answer to a call, or :class:`Unclear` when it says nothing certain: a 5xx,
    not JSON, a 200 without a strict ``balance``, a refusal without an ``error`` code."""
    if status >= 500:
        raise Unclear(f"{kind} {transaction_id}: the wallet answered {status}")
    try:
        parsed = orjson.loads(content)
    except ValueError as error:
        raise Unclear(f"{kind} {transaction_id}: the answer is not JSON") from error
    if not isinstance(parsed, dict) or (status == 200 and balance_of(parsed) is None) or (
            status != 200 and not isinstance(parsed.get("error"), str)):
        raise Unclear(f"{kind} {transaction_id}: unexpected answer {status} {parsed!r:.200}")
    return parsed


@dataclass(frozen=True)
class PlayerInfo:
    external_id: str
    currency: str
    operator: str


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
class SeamlessWallet:
    """The seamless wallets of every operator so configured; a :class:`~slotforge.rgs.wallets.internal.Wallet`
    for their players (each call inside the round's transaction)."""

    settings: Settings
    engine: Engine
    outbox: Outbox
    now: Callable[[], int]
    writer: Writer  # the process's write transactions, for what a round's own request records
    clients: dict[str, WalletClient] = field(default_factory=dict)
    calls: CallLoop = field(default_factory=CallLoop)
    _intents: dict[str, DebitIntent] = field(default_factory=dict)
    _players: dict[int, PlayerInfo] = field(default_factory=dict)
    _names: dict[int, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _acknowledged: list[mail.Outcome] = field(default_factory=list)
    _recording: asyncio.Task | None = None

    def __post_init__(self) -> None:
        self.clients = {name: WalletClient(name, operator) for name, operator in self.settings.operators.items()
                        if operator.seamless}
        if self.clients:
            self.outbox.register(TARGET, self.deliver, self.acknowledged, deliver_many=self.deliver_many,
                                 holds=HeldDebits(self))

    # -- who is seamless ------------------------------------------------------------------------
    def kind_of(self, conn: Connection, operator_id: int) -> str:
        """The wallet (internal or seamless) of a new player of this operator."""
        name = self._names.get(operator_id)
        if name is None:
            name = self._names[operator_id] = conn.execute(
                select(operators.c.name).where(operators.c.id == operator_id)).scalar_one()
        return self.settings.operator(name).wallet

    def player(self, conn: Connection, player_id: int) -> PlayerInfo:
        info = self._players.get(player_id)
        if info is None:
            row = conn.execute(select(players.c.external_id, players.c.currency, operators.c.name)
                               .join(operators, operators.c.id == players.c.operator_id)
                               .where(players.c.id == player_id)).one()
            info = self._players[player_id] = PlayerInfo(*row)
        return info

    def known(self, player_id: int) -> PlayerInfo | None:
        """The player's details if :meth:`player` has read them already (they are kept)."""
        return self._players.get(player_id)

    def client(self, operator: str) -> WalletClient:
        if operator not in self.clients:
            raise Declined("WALLET_UNAVAILABLE", f"operator {operator!r} has no seamless wallet in the settings",
                           unclear=True)
        return self.clients[operator]

    # -- the debit: held rollback, call, keep -------------------------------------------------
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
        return self.intent_for(self.player(conn, player_id), player_id, game, stake)

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
        intent.body = self.body(intent.transaction_id, round_id, intent.player, intent.stake, intent.game)

    def track(self, intent: DebitIntent) -> None:
        """Follow a held debit (its placeholder committed) until :meth:`settle`."""
        with self._lock:
            self._intents[intent.transaction_id] = intent

    def send(self, intent: DebitIntent) -> None:
        """Send the debit from a thread with no transaction open (a slow wallet holds up no other
        round); the outcome is kept in the intent."""
        self.calls.run(self._debit(intent))

    async def send_from_loop(self, intent: DebitIntent) -> None:
        """:meth:`send`, awaited on the server's event loop."""
        await self.calls.wait(self._debit(intent))

    async def _debit(self, intent: DebitIntent) -> None:
        intent.sent = True
        try:
            intent.balance = await self.client(intent.operator).debit(intent.body)
        except Declined as error:
            intent.declined = error

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
        conn.execute(mail.ENQUEUE, self.message("rollback", transaction_id, round_id, info, stake, game, now))
        self.outbox.wake()
        return True

    def message(self, kind: str, transaction_id: str, round_id: int, info: PlayerInfo, amount: int, game: str,
                now: int, hold_ms: int = 0, promotion: str | None = None) -> dict[str, Any]:
        """The outbox's row of a round's credit (its key the debit's transaction id and ``-win``)
        or of its debit's rollback (due now, or after ``hold_ms``). ``promotion``: a free round's
        credit, with no debit before it, marked ``"promotional": true`` with the campaign's reference."""
        key = f"{transaction_id}-win" if kind == "credit" else transaction_id
        body = self.body(key, round_id, info, amount, game)
        if promotion is not None:
            body.update(promotional=True, campaign=promotion)
        return mail.message_row(TARGET, kind, key, {"operator": info.operator, "body": body}, now=now,
                                round_id=round_id, hold_ms=hold_ms)

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
        self.calls.start(self._credit(message))

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

    @staticmethod
    def body(transaction_id: str, round_id: int | None, info: PlayerInfo, amount: int, game: str) -> dict[str, Any]:
        return {"transaction_id": transaction_id, "round_id": round_id, "player_id": info.external_id,
                "amount": to_text(amount), "currency": info.currency, "game": game}

    # -- the Wallet interface -------------------------------------------------------------------
    def balance(self, conn: Connection, player_id: int) -> int:
        """The balance the wallet reported for the last debit, with the wins credited since."""
        return conn.execute(select(players.c.balance).where(players.c.id == player_id)).scalar_one()

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

    def credit(self, conn: Connection, player_id: int, kind: str, amount: int, *, round_id: int | None = None,
               reference: str | None = None, now: int, promotion: str | None = None) -> int:
        """A round's win (``kind`` "win": a credit) or a void round's refund ("refund": the
        debit's rollback), owed to the wallet through the outbox; the expected balance.
        ``promotion``: a free round's campaign reference, which marks its credit promotional."""
        transaction_id, game = conn.execute(ROUND_TX, {"p_round": round_id}).one()
        info = self.player(conn, player_id)
        if kind == "win":
            status, wallet_kind = "credit_pending", "credit"
        else:
            status, wallet_kind = "rollback_pending", "rollback"
        conn.execute(mail.ENQUEUE, self.message(wallet_kind, transaction_id, round_id, info, amount, game, now,
                                                promotion=promotion))
        conn.execute(ROUND_WALLET, {"p_round": round_id, "p_tx": transaction_id, "p_status": status})
        if amount:
            conn.execute(ENTRY, dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id,
                                     reference=None, created_at=now))
        balance = conn.execute(ADD_BALANCE, {"p_player": player_id, "p_amount": amount}).scalar_one()
        self.outbox.wake()
        return balance

    # -- the outbox's receiver ------------------------------------------------------------------
    def deliver(self, message: Message) -> dict[str, Any]:
        return self.calls.run(self._deliver(message))

    def deliver_many(self, messages: list[Message]) -> dict[int, dict[str, Any] | Exception]:
        """The due messages of an outbox pass, sent all at once: each one's acknowledgement or
        why not (a busy server owes a credit a round, more than one call at a time can carry)."""
        return self.calls.run(self._deliver_all(messages))

    async def _deliver_all(self, messages: list[Message]) -> dict[int, dict[str, Any] | Exception]:
        answers = await asyncio.gather(*(self._deliver(message) for message in messages), return_exceptions=True)
        return {message.id: answer for message, answer in zip(messages, answers, strict=True)}

    async def _deliver(self, message: Message) -> dict[str, Any]:
        return await self.client(message.payload["operator"]).deliver(message.kind, message.payload["body"])

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

    async def stop(self) -> None:
        """The server stops serving: close the clients on its loop, which the calls leave."""
        await self.calls.release(self._close_clients())

    def close(self) -> None:
        """Close the clients used without a server serving (a tool, a test)."""
        self.calls.close(self._close_clients())

    async def _close_clients(self) -> None:
        for client in self.clients.values():
            await client.close()


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

    def __init__(self, wallet: SeamlessWallet) -> None:
        self.wallet = wallet
        self.shortest_ms = min(wallet.hold_ms(name) for name in wallet.clients)

    def fall_due(self) -> int:
        now = self.wallet.now()
        with self.wallet.engine.connect() as conn:  # read first: a write turn only when one fell due
            old = conn.execute(OLD_HOLDS, {"p_before": now - self.shortest_ms}).all()
        due = [row for row in old if row.started_at + self.wallet.hold_ms(row.name) <= now]
        if not due:
            return 0
        with self.wallet.writer() as conn:
            return sum(self.wallet.give_up(conn, row.id, row.wallet_tx, PlayerInfo(row.external_id, row.currency,
                                                                                   row.name), row.stake, row.game, now)
                       for row in due)

    def count(self, conn: Connection) -> int:
        return held(conn)


def void_entries(conn: Connection, player_id: int, round_id: int, amount: int, now: int) -> None:
    """A void round's stake and refund in the ledger, as for every void round (nothing moved)."""
    for kind in ("stake", "refund"):
        conn.execute(ENTRY, dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id,
                                 reference=None, created_at=now))
