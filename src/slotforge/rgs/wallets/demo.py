"""``slotforge wallet-demo``: a reference seamless wallet, a small real HTTP server with its own
SQLite database, for tests, demos and operators writing their own (docs/wallet.md).

It keeps players and balances, applies ``POST /debit``, ``/credit`` and ``/rollback`` once per
``transaction_id`` (a repeat is answered from the stored result), remembers a rollback of a debit
it never saw and then refuses that debit, and checks every request's ``X-Signature``. It can be
told to misbehave, at given probabilities drawn from a seeded generator, by command options or
``POST /admin/faults``:

- ``fail``: answer 500 without applying;
- ``timeout``: say nothing for ``hang_s`` seconds, then answer 503 without applying;
- ``late``: apply, then answer only after ``hang_s`` seconds (the caller has given up);
- ``twice``: apply, then lose the reply (answer 502), so the caller's retry, a duplicate delivery,
  is answered from the stored result.

``GET /admin/books`` shows its books; ``POST /admin/players`` deposits to (and creates) a player.
Each call is applied in a SQLite transaction (WAL), and answered only once it is committed: a
process killed at any moment keeps every answered call and no half of one. The calls that arrive
together (in one turn of its event loop) share one commit, each in a savepoint of its own, as a
busy wallet's database would have them: the commit is most of a call's cost.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from slotforge.amounts import AmountError, AmountText, parse_minor
from slotforge.rgs.money import to_text
from slotforge.rgs.wallets.seamless.client import SIGNATURE_HEADER, signed_correctly

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY, currency TEXT NOT NULL, balance INTEGER NOT NULL CHECK (balance >= 0));
CREATE TABLE IF NOT EXISTS transactions (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, player_id TEXT NOT NULL, round_id INTEGER, amount INTEGER NOT NULL,
    currency TEXT NOT NULL, game TEXT, status TEXT NOT NULL, code INTEGER NOT NULL, answer TEXT NOT NULL,
    created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rollbacks (
    transaction_id TEXT PRIMARY KEY, player_id TEXT NOT NULL, round_id INTEGER, refunded INTEGER NOT NULL,
    answer TEXT NOT NULL, created_at INTEGER NOT NULL);
"""
KINDS = ("debit", "credit", "rollback")
SIGNATURE_HEADER_BYTES = SIGNATURE_HEADER.lower().encode()


class Faults(BaseModel):
    """How often the wallet misbehaves (probabilities per call) and how long it hangs."""

    model_config = ConfigDict(extra="forbid")

    fail: float = Field(0.0, ge=0, le=1, description="answer 500, nothing applied")
    timeout: float = Field(0.0, ge=0, le=1, description="hang, then answer 503, nothing applied")
    late: float = Field(0.0, ge=0, le=1, description="apply, then answer after hang_s")
    twice: float = Field(0.0, ge=0, le=1, description="apply, then lose the reply (502): the retry is a duplicate")
    hang_s: float = Field(5.0, ge=0, le=300, description="how long a timeout or a late answer hangs")
    seed: int | None = Field(None, description="seed of the draws (for repeatable runs)")

    def draw(self, chance: random.Random) -> str | None:
        """Which misbehaviour, if any, this call gets."""
        roll = chance.random()
        for name in ("fail", "timeout", "late", "twice"):
            roll -= getattr(self, name)
            if roll < 0:
                return name
        return None


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.answer = status, {"error": code, "message": message, **extra}


def now_ms() -> int:
    return int(time.time() * 1000)


class Books:
    """The wallet's SQLite database; one transaction at a time."""

    def __init__(self, path: Path, new_player_balance: int | None = None) -> None:
        self.path = path
        self.new_player_balance = new_player_balance
        self._lock = threading.Lock()
        self._arrived: list[tuple[str, dict[str, Any], asyncio.Future]] = []  # calls for the next commit
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a killed process loses nothing committed
        self.db.executescript(SCHEMA)

    def transaction(self, work, *args: Any) -> Any:
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                result = work(*args)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")
            return result

    # -- players --------------------------------------------------------------------------------
    def deposit(self, player_id: str, currency: str, amount: int) -> int:
        """Create the player if new and add ``amount``; the new balance."""
        return self.transaction(self._deposit, player_id, currency, amount)

    def _deposit(self, player_id: str, currency: str, amount: int) -> int:
        player = self.db.execute("SELECT currency FROM players WHERE id = ?", (player_id,)).fetchone()
        if player is None:
            self.db.execute("INSERT INTO players VALUES (?, ?, 0)", (player_id, currency))
        elif player["currency"] != currency:
            raise Refusal(409, "CURRENCY_MISMATCH", f"player {player_id} plays in {player['currency']}")
        count = self.db.execute("SELECT count(*) FROM transactions").fetchone()[0]
        answer = {"balance": to_text(self._add(player_id, amount))}
        self.db.execute("INSERT INTO transactions VALUES (?, 'deposit', ?, NULL, ?, ?, NULL, 'applied', 200, ?, ?)",
                        (f"deposit-{count + 1}-{player_id}", player_id, amount, currency, json.dumps(answer), now_ms()))
        return self._balance(player_id)

    def _balance(self, player_id: str) -> int | None:
        row = self.db.execute("SELECT balance FROM players WHERE id = ?", (player_id,)).fetchone()
        return None if row is None else row["balance"]

    def _add(self, player_id: str, amount: int) -> int:
        self.db.execute("UPDATE players SET balance = balance + ? WHERE id = ?", (amount, player_id))
        return self._balance(player_id)

    def _player(self, body: dict[str, Any]) -> int:
        """The player's balance; a new player is created when the wallet opens accounts itself."""
        row = self.db.execute("SELECT currency, balance FROM players WHERE id = ?", (body["player_id"],)).fetchone()
        if row is None:
            if self.new_player_balance is None:
                raise Refusal(404, "UNKNOWN_PLAYER", f"player {body['player_id']} is not known here")
            self._deposit(body["player_id"], body["currency"], self.new_player_balance)
            return self.new_player_balance
        if row["currency"] != body["currency"]:
            raise Refusal(409, "CURRENCY_MISMATCH", f"player {body['player_id']} plays in {row['currency']}")
        return row["balance"]

    # -- calls ----------------------------------------------------------------------------------
    async def apply(self, kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Apply a call once (a repeat gets the stored answer); its answer once committed, with
        every call that arrived in the same turn of the event loop."""
        loop = asyncio.get_running_loop()
        answered = loop.create_future()
        self._arrived.append((kind, body, answered))
        if len(self._arrived) == 1:  # the first of the turn: the commit runs after the turn's calls
            loop.call_soon(self._commit_arrived)
        return await answered

    def _commit_arrived(self) -> None:
        calls, self._arrived = self._arrived, []
        try:
            outcomes = self.transaction(lambda: [self._in_savepoint(kind, body) for kind, body, _ in calls])
        except Exception as error:  # the commit itself failed: nothing of any call stays
            outcomes = [error] * len(calls)
        for (_, _, answered), outcome in zip(calls, outcomes, strict=True):
            if answered.cancelled():
                continue
            if isinstance(outcome, Exception):
                answered.set_exception(outcome)
            else:
                answered.set_result(outcome)

    def _in_savepoint(self, kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | Exception:
        """One call in the shared transaction: its answer, or its failure with nothing of it kept."""
        self.db.execute("SAVEPOINT call")
        try:
            return (self._rollback if kind == "rollback" else self._move)(kind, body)
        except Refusal as refusal:
            self.db.execute("ROLLBACK TO call")
            return refusal.status, refusal.answer
        except Exception as error:
            self.db.execute("ROLLBACK TO call")
            return error
        finally:
            self.db.execute("RELEASE call")

    def _move(self, kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        tx, amount = body["transaction_id"], body["amount"]
        done = self.db.execute("SELECT * FROM transactions WHERE id = ?", (tx,)).fetchone()
        if done is not None:
            if (done["kind"], done["player_id"], done["amount"], done["currency"]) != (
                    kind, body["player_id"], amount, body["currency"]):
                raise Refusal(409, "DUPLICATE_TRANSACTION", f"transaction {tx} was a {done['kind']} of "
                              f"{to_text(done['amount'])} {done['currency']} for {done['player_id']}")
            return done["code"], json.loads(done["answer"])
        if kind == "debit" and self.db.execute("SELECT 1 FROM rollbacks WHERE transaction_id = ?", (tx,)).fetchone():
            raise Refusal(409, "TRANSACTION_ROLLED_BACK", f"transaction {tx} was rolled back before it arrived")
        balance = self._player(body)
        if kind == "debit" and balance < amount:
            code, answer, status = 402, {"error": "INSUFFICIENT_FUNDS", "balance": to_text(balance)}, "refused"
        else:
            code, status = 200, "applied"
            answer = {"balance": to_text(self._add(body["player_id"], amount if kind == "credit" else -amount))}
        self.db.execute("INSERT INTO transactions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
            tx, kind, body["player_id"], body["round_id"], amount, body["currency"], body["game"], status, code,
            orjson.dumps(answer).decode(), now_ms()))
        return code, answer

    def _rollback(self, _kind: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        tx = body["transaction_id"]
        done = self.db.execute("SELECT answer FROM rollbacks WHERE transaction_id = ?", (tx,)).fetchone()
        if done is not None:
            return 200, json.loads(done["answer"])
        debit = self.db.execute("SELECT * FROM transactions WHERE id = ?", (tx,)).fetchone()
        if debit is not None and debit["kind"] != "debit":
            raise Refusal(409, "DUPLICATE_TRANSACTION", f"transaction {tx} is a {debit['kind']}; only a debit is "
                          "rolled back")
        refunded = 0
        if debit is not None and debit["status"] == "applied":
            refunded = debit["amount"]
            self._add(debit["player_id"], refunded)
            self.db.execute("UPDATE transactions SET status = 'rolled_back' WHERE id = ?", (tx,))
        player = debit["player_id"] if debit is not None else body["player_id"]
        balance = self._balance(player)
        answer = {"balance": to_text(balance or 0)}
        self.db.execute("INSERT INTO rollbacks VALUES (?, ?, ?, ?, ?, ?)", (
            tx, player, body["round_id"] if debit is None else debit["round_id"], refunded, json.dumps(answer),
            now_ms()))
        return 200, answer

    # -- reading --------------------------------------------------------------------------------
    def books(self) -> dict[str, Any]:
        """Players with their movements, every transaction and rollback, and whether each
        balance is its movements' sum."""
        with self._lock:
            players = [dict(r) for r in self.db.execute("SELECT * FROM players ORDER BY id")]
            transactions = [dict(r) for r in self.db.execute("SELECT * FROM transactions ORDER BY created_at, id")]
            rollbacks = [dict(r) for r in self.db.execute("SELECT * FROM rollbacks ORDER BY created_at")]
        return summarise(players, transactions, rollbacks)


def summarise(players: list[dict], transactions: list[dict], rollbacks: list[dict]) -> dict[str, Any]:
    sums: dict[str, dict[str, int]] = {p["id"]: {"deposits": 0, "debits": 0, "credits": 0, "rollbacks": 0}
                                       for p in players}
    for tx in transactions:
        if tx["status"] in ("applied", "rolled_back") and tx["player_id"] in sums:
            sums[tx["player_id"]][tx["kind"] + "s"] += tx["amount"]
    for rollback in rollbacks:
        if rollback["player_id"] in sums:
            sums[rollback["player_id"]]["rollbacks"] += rollback["refunded"]
    listed = []
    for player in players:
        moved = sums[player["id"]]
        expected = moved["deposits"] - moved["debits"] + moved["credits"] + moved["rollbacks"]
        listed.append({"player_id": player["id"], "currency": player["currency"], "balance": to_text(player["balance"]),
                       **{name: to_text(value) for name, value in moved.items()},
                       "balanced": expected == player["balance"]})
    shown = [{**tx, "amount": to_text(tx["amount"]), "answer": json.loads(tx["answer"])} for tx in transactions]
    return {"balanced": all(p["balanced"] for p in listed), "players": listed, "transactions": shown,
            "rollbacks": [{**r, "refunded": to_text(r["refunded"]), "answer": json.loads(r["answer"])}
                          for r in rollbacks]}


def books_of(path: Path) -> dict[str, Any]:
    """The books of a wallet-demo database file (read while it runs or not)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        players = [dict(r) for r in db.execute("SELECT * FROM players ORDER BY id")]
        transactions = [dict(r) for r in db.execute("SELECT * FROM transactions ORDER BY created_at, id")]
        rollbacks = [dict(r) for r in db.execute("SELECT * FROM rollbacks ORDER BY created_at")]
    finally:
        db.close()
    return summarise(players, transactions, rollbacks)


def checked(kind: str, raw: dict[str, Any]) -> dict[str, Any]:
    """A call's body validated, its amount as minor units; :class:`Refusal` naming the field."""
    if not isinstance(raw, dict):
        raise Refusal(422, "VALIDATION", "body: expected a JSON object", field="body")
    expected = {"transaction_id", "round_id", "player_id", "amount", "currency", "game"}
    # A free round's win: a credit with no debit before it, marked promotional with its campaign.
    promotional = {"promotional", "campaign"} if kind == "credit" and raw.get("promotional") is True else set()
    if set(raw) != expected | promotional:
        field = sorted((expected | promotional) ^ set(raw))[0]
        raise Refusal(422, "VALIDATION", f"{field}: missing or not expected", field=field)
    if promotional and (not isinstance(raw["campaign"], str) or not 0 < len(raw["campaign"]) <= 100):
        raise Refusal(422, "VALIDATION", "campaign: expected a string of 1 to 100 characters", field="campaign")
    for name in ("transaction_id", "player_id"):
        if not isinstance(raw[name], str) or not 0 < len(raw[name]) <= 100:
            raise Refusal(422, "VALIDATION", f"{name}: expected a string of 1 to 100 characters", field=name)
    if raw["round_id"] is not None and not isinstance(raw["round_id"], int):
        raise Refusal(422, "VALIDATION", "round_id: expected an integer or null", field="round_id")
    if not isinstance(raw["currency"], str) or len(raw["currency"]) != 3:
        raise Refusal(422, "VALIDATION", "currency: expected a 3-letter code", field="currency")
    try:
        amount = parse_minor(raw["amount"], "amount", positive=kind == "debit")
    except AmountError as error:
        raise Refusal(422, "VALIDATION", str(error), field="amount") from error
    return {**raw, "amount": amount}


class Deposit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player_id: str = Field(min_length=1, max_length=100)
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    amount: AmountText


class WalletApp(FastAPI):
    """The wallet's FastAPI application, whose signed calls (``POST /debit``, ``/credit``,
    ``/rollback``: every round's) are answered before FastAPI's routing and middleware, which
    cost several times the call itself; the routes of the same paths stay for the OpenAPI
    document. The call's transaction runs on the event loop: it is a local SQLite transaction
    of a fraction of a millisecond, less than a hop to a thread and back."""

    signed_calls: Callable[[str, bytes, str | None], Awaitable[tuple[int, dict[str, Any]]]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["path"].lstrip("/") if scope["type"] == "http" and scope["method"] == "POST" else None
        if kind not in KINDS or self.signed_calls is None:
            await super().__call__(scope, receive, send)
            return
        signature = next((value.decode("latin-1") for name, value in scope["headers"]
                          if name == SIGNATURE_HEADER_BYTES), None)
        status, answer = await self.signed_calls(kind, await Request(scope, receive).body(), signature)
        await Response(orjson.dumps(answer), status_code=status, media_type="application/json")(scope, receive, send)


def create_app(database: Path, secret: str, faults: Faults | None = None,
               new_player_balance: int | None = None) -> FastAPI:
    """The wallet for ``database`` and ``secret``."""
    books = Books(database, new_player_balance)
    state = {"faults": faults or Faults()}
    injected = {name: 0 for name in ("fail", "timeout", "late", "twice")}  # how many calls each struck
    chance = random.Random(state["faults"].seed)
    app = WalletApp(title="slotforge wallet-demo", docs_url="/docs")

    async def call(kind: str, raw: bytes, signature: str | None) -> tuple[int, dict[str, Any]]:
        if not signed_correctly(secret, raw, signature):
            return 401, {"error": "INVALID_SIGNATURE", "message": f"{SIGNATURE_HEADER}: missing or not "
                         "hex(HMAC-SHA256(secret, body))"}
        try:
            body = checked(kind, orjson.loads(raw))
        except ValueError:
            return 422, {"error": "VALIDATION", "message": "body: not JSON", "field": "body"}
        except Refusal as refusal:
            return refusal.status, refusal.answer
        faults: Faults = state["faults"]
        fault = faults.draw(chance)
        if fault is not None:
            injected[fault] += 1
        if fault == "fail":
            return 500, {"error": "INTERNAL", "message": "injected failure; nothing applied"}
        if fault == "timeout":
            await asyncio.sleep(faults.hang_s)
            return 503, {"error": "UNAVAILABLE", "message": "injected time-out; nothing applied"}
        status, answer = await books.apply(kind, body)
        if fault == "late":
            await asyncio.sleep(faults.hang_s)
        if fault == "twice":
            return 502, {"error": "REPLY_LOST", "message": "injected: applied, reply lost"}
        return status, answer

    def route(kind: str) -> None:
        async def endpoint(request: Request) -> JSONResponse:  # for the OpenAPI document; WalletApp answers first
            status, answer = await call(kind, await request.body(), request.headers.get(SIGNATURE_HEADER))
            return JSONResponse(answer, status_code=status)

        app.add_api_route(f"/{kind}", endpoint, methods=["POST"], summary=f"{kind} (signed)")

    for kind in KINDS:
        route(kind)
    app.signed_calls = call

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/admin/books")
    def read_books() -> dict[str, Any]:
        return books.books()

    @app.post("/admin/players")
    def deposit(body: Deposit) -> JSONResponse:
        try:
            balance = books.deposit(body.player_id, body.currency, parse_minor(body.amount))
        except Refusal as refusal:
            return JSONResponse(refusal.answer, status_code=refusal.status)
        return JSONResponse({"player_id": body.player_id, "balance": to_text(balance)})

    @app.get("/admin/faults")
    def read_faults() -> dict[str, Any]:
        """The faults set, and how many calls each has struck so far."""
        return {**state["faults"].model_dump(), "injected": injected}

    @app.post("/admin/faults")
    def set_faults(body: Faults) -> dict[str, Any]:
        state["faults"] = body
        if body.seed is not None:
            chance.seed(body.seed)
        return body.model_dump()

    return app
