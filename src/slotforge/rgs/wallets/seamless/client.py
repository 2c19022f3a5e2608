"""The operator's wallet over HTTP: the signed calls and their bodies, how an answer is read
(certain, or :class:`Unclear`), a debit's retries, and the event loop every call runs on.

A call is ``POST {base}/debit``, ``/credit`` or ``/rollback`` with ``{"transaction_id",
"round_id", "player_id", "amount", "currency", "game"}`` signed by ``X-Signature:
hex(HMAC-SHA256(secret, body))``; the wallet answers ``{"balance": "..."}`` or ``{"error":
CODE}`` (docs/wallet.md).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

import orjson

from slotforge.amounts import AmountError, parse_minor
from slotforge.rgs.money import to_text
from slotforge.rgs.settings import OperatorSettings, Settings
from slotforge.rgs.wallets.http1 import CallFailed, Http1Pool
from slotforge.rgs.wallets.seamless.players import PlayerInfo

Result = TypeVar("Result")

SIGNATURE_HEADER = "X-Signature"
# Answers that say the wallet did not apply a debit, and why.
REFUSALS = {"INSUFFICIENT_FUNDS", "UNKNOWN_PLAYER", "TRANSACTION_ROLLED_BACK", "CURRENCY_MISMATCH"}


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


def call_body(transaction_id: str, round_id: int | None, info: PlayerInfo, amount: int, game: str) -> dict[str, Any]:
    """The body of a call (a debit, a credit or a rollback) about ``info``'s round ``round_id``."""
    return {"transaction_id": transaction_id, "round_id": round_id, "player_id": info.external_id,
            "amount": to_text(amount), "currency": info.currency, "game": game}


class WalletCalls:
    """Every seamless operator's :class:`WalletClient`, and the :class:`CallLoop` their calls run on."""

    def __init__(self, settings: Settings) -> None:
        self.clients = {name: WalletClient(name, operator) for name, operator in settings.operators.items()
                        if operator.seamless}
        self.loop = CallLoop()

    def client(self, operator: str) -> WalletClient:
        if operator not in self.clients:
            raise Declined("WALLET_UNAVAILABLE", f"operator {operator!r} has no seamless wallet in the settings",
                           unclear=True)
        return self.clients[operator]

    async def stop(self) -> None:
        """The server stops serving: close the clients on its loop, which the calls leave."""
        await self.loop.release(self._close_clients())

    def close(self) -> None:
        """Close the clients used without a server serving (a tool, a test)."""
        self.loop.close(self._close_clients())

    async def _close_clients(self) -> None:
        for client in self.clients.values():
            await client.close()
