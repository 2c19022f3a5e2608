"""A round of the internal wallet, straight through: the round function first, then one short
transaction of at most five statements and one commit (on PostgreSQL, one call of a function).

Most rounds are the simplest kind: a player of the server's own wallet, no autoplay plan, no
jackpot pool, no state carried between rounds. For those, :func:`play_straight` does, in order:

1. runs the round function (a :class:`~slotforge.engine.round.RoundResult`) and encodes its
   record to JSON once (no lock is held yet: on SQLite
   nothing slow runs under the database's one write lock);
2. opens the write transaction: on PostgreSQL its first step claims the idempotency key (an
   advisory lock, so a twin in another process answers 409 at once; SQLite's claim is a file lock
   taken before the transaction);
3. one conditional update of the player: ``balance = balance - stake + win`` and the round's time,
   only if the balance covers the stake and the jurisdiction's least time between rounds has
   passed, returning the new balance;
4. one insert of the finished round, only if no round of the game waits for a decision (a new
   statement, so on PostgreSQL it sees whatever committed while it waited for the player's row);
5. the ledger's stake and win, in one statement;
6. the idempotency key stored with a pointer to the round (the answer is the round as committed,
   so it is not stored twice), unless the key is there already;
7. one commit, and the answer built around the record's JSON bytes as stored.

On SQLite steps 3 to 6 are four statements (calls inside the process): :func:`commit_round`. On
PostgreSQL, where each statement is a round trip, 2 to 7 are one call of a PL/pgSQL function,
``slotforge_play_round`` (its statements in ``rgs/sql/play_round.sql``), sent on a
connection in autocommit: the call is the whole transaction, one round trip with no ``BEGIN`` or
``COMMIT`` of its own, :func:`commit_round_postgres`. Both send their statements straight to the
database's driver (:mod:`slotforge.db.driver`), past SQLAlchemy's execution layer, which cost
about as much CPU as the statements. A round still waiting for a decision also stores its answer
as sent, as the round will change (on PostgreSQL a second statement, after the call: the answer
holds what only the call knew).

Where it runs: step 1 on the event loop (the round function is a fraction of a millisecond and
needs no thread); the transaction on SQLite in the process's batched writes (one thread takes
every round queued meanwhile into one shared commit, each in a savepoint of its own), on
PostgreSQL on one of a few threads kept for writes (psycopg's asynchronous connections were tried
on the event loop instead: they cost more server CPU a round than a thread's synchronous ones).

When a conditional statement changes nothing (too little money, too soon, a round waiting for a
decision, the key answered already), the transaction (its savepoint, on SQLite; on PostgreSQL
the function's call, which raises :data:`REFUSED` once the player's row is settled) is rolled
back and :func:`refusal` finds out why, outside it: these are the rare cases. Every other round
(seamless wallets, autoplay, jackpots, carried state, a failing round function) takes the
general path in
:class:`~slotforge.rgs.rounds.service.Server`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson
import psycopg
from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    Integer,
    String,
    Text,
    bindparam,
    cast,
    exists,
    select,
    text,
    update,
)

from slotforge.db.driver import DriverStatement, DriverTransaction
from slotforge.engine import round as runner
from slotforge.engine.bet import Bet, BetError
from slotforge.engine.game import Game, ScriptError
from slotforge.rgs.errors import InvalidBet, field_of, invalid
from slotforge.rgs.jackpots.embedded import has_pool
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.rounds.claims import claim_number, in_progress
from slotforge.rgs.rounds.service import (
    STORED_ANSWER,
    Auth,
    Server,
    carries_state,
    iso,
    refuse_short_balance,
    stored_answer,
    wallet_view,
)
from slotforge.rgs.schema import idempotency, is_awaiting, ledger, players, rounds

log = logging.getLogger("slotforge.rgs")
Result = TypeVar("Result")

NEVER = 2**62  # a "latest allowed last round" that every time meets: no least time between rounds
RETRIES = 3  # a refusal that is gone when looked into (a deposit meanwhile) is tried again


# -- the statements, built once ----------------------------------------------------------------
# 3. Take the stake and pay the win, if the balance covers the stake and the round is not too soon.
SETTLE = (update(players)
          .where(players.c.id == bindparam("p_player"), players.c.balance >= bindparam("p_stake"),
                 players.c.last_round_at.is_(None) | (players.c.last_round_at <= bindparam("p_latest")))
          .values(balance=players.c.balance - bindparam("p_stake") + bindparam("p_win"),
                  last_round_at=bindparam("p_now"))
          .returning(players.c.balance))

# 4. The finished round, unless a round of the game waits for a decision.
ROUND_FIELDS = {
    "player_id": BigInteger, "session_id": BigInteger, "game": String, "status": String, "fun": Boolean,
    "currency": String, "jurisdiction": String, "stake": BigInteger, "win": BigInteger, "jackpot_win": BigInteger,
    "balance_before": BigInteger, "balance_after": BigInteger, "record": Text, "started_at": BigInteger,
    "finished_at": BigInteger,
}
AWAITING = exists().where(rounds.c.player_id == bindparam("player_id"), rounds.c.game == bindparam("game"),
                          is_awaiting(rounds))
INSERT_ROUND = (rounds.insert()
                .from_select(list(ROUND_FIELDS), select(*(cast(bindparam(name), kind)
                                                          for name, kind in ROUND_FIELDS.items())).where(~AWAITING))
                .returning(rounds.c.id))

# 5. The ledger's entries of the round.
ENTRIES = ledger.insert().values({name: bindparam(name) for name in ("player_id", "kind", "amount", "round_id",
                                                                     "created_at")})


# 6. The key stored with its round, unless stored already (returns the round id when stored now).
# Plain SQL: SQLAlchemy cannot cache its SQLite ``on_conflict_do_nothing`` construct, and compiled
# it anew for every round.
STORE_KEY = text("INSERT INTO idempotency (player_id, key, request_hash, status_code, body, round_id, created_at) "
                 "VALUES (:player_id, :key, :request_hash, :status_code, :body, :round_id, :created_at) "
                 "ON CONFLICT DO NOTHING RETURNING round_id")
KEEP_ANSWER = update(idempotency).where(idempotency.c.player_id == bindparam("p_player"),
                                        idempotency.c.key == bindparam("p_key")).values(body=bindparam("p_body"))

# PostgreSQL: steps 2 to 6 are one call of ``slotforge_play_round``, a PL/pgSQL function (its
# statements in ``rgs/sql/play_round.sql``), sent in autocommit: the call is the round's whole
# transaction and its one round trip. It answers whether the claim was held, and the round's id
# and the balance (None: nothing was settled); a refusal after the settling raises REFUSED.
PLAY_ROUND = text("""
SELECT claim_held, new_round, new_balance FROM slotforge_play_round(
    p_claim => :p_claim, p_player => :p_player, p_stake => :p_stake, p_win => :p_win, p_now => :p_now,
    p_latest => :p_latest, p_session => :p_session, p_game => :p_game, p_status => :p_status, p_fun => :p_fun,
    p_currency => :p_currency, p_jurisdiction => :p_jurisdiction, p_record => :p_record,
    p_finished_at => :p_finished_at, p_key => :p_key, p_request_hash => :p_request_hash,
    p_status_code => :p_status_code)
""").bindparams(*(bindparam(name, type_=kind) for name, kind in (
    ("p_claim", BigInteger), ("p_player", BigInteger), ("p_stake", BigInteger), ("p_win", BigInteger),
    ("p_now", BigInteger), ("p_latest", BigInteger), ("p_session", BigInteger), ("p_game", Text),
    ("p_status", Text), ("p_fun", Boolean), ("p_currency", Text), ("p_jurisdiction", Text), ("p_record", Text),
    ("p_finished_at", BigInteger), ("p_key", Text), ("p_request_hash", Text), ("p_status_code", Integer))))
REFUSED = "SF001"  # the SQLSTATE of the functions' refusals (rgs/sql/*.sql raise it)
PLAYER = select(players.c.balance, players.c.last_round_at).where(players.c.id == bindparam("p_player"))


# Each statement as the database's driver takes it (see :mod:`slotforge.db.driver`).
ON_SQLITE = {name: DriverStatement.of(statement, "sqlite") for name, statement in (
    ("settle", SETTLE), ("round", INSERT_ROUND), ("entries", ENTRIES), ("key", STORE_KEY), ("answer", KEEP_ANSWER))}
ON_POSTGRES = {name: DriverStatement.of(statement, "postgresql") for name, statement in (
    ("play_round", PLAY_ROUND), ("answer", KEEP_ANSWER))}


class Refused(Exception):
    """A conditional statement changed nothing: the transaction is rolled back, :func:`refusal` says why."""


def straight(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round takes the straight path (see the module's description)."""
    return auth.wallet == "internal" and plain(auth, game, autoplay_id)


def plain(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round is of the simplest kind, whatever the wallet: no autoplay plan, no state
    carried between rounds (its round function can run before its transaction), no jackpot pool."""
    return autoplay_id is None and not carries_state(game) and not (has_pool(game) and not auth.fun)


async def play_straight(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None,
                        key: str | None, fingerprint: str) -> tuple[int, bytes] | None:
    """Play a round of the straight kind: ``(status, JSON answer)``; None when the round function
    failed (the caller plays it on the general path, which voids a malfunction and refunds it).
    Runs on the event loop; only the transaction leaves it (see :func:`write`)."""
    server.check_key(key)
    with server.in_flight(auth.player_id, key):
        result = play(server, auth, game, bet, script)
        if result is None:
            return None
        stake = to_minor(bet.total_bet, "bet")
        for _ in range(RETRIES):
            try:
                return 200, await write(server, auth, key, lambda: Settlement.of(
                    server, auth, game, stake, result, key, fingerprint))
            except Refused:
                answer = await server.lanes.run(auth.operator_id, lambda: refusal(
                    server, auth, game, stake, key, fingerprint))
                if answer is not None:
                    return answer[0], orjson.dumps(answer[1])
        raise in_progress()


def play(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None) -> runner.RoundResult | None:
    """Step 1: the round function's result, its record encoded once (None if it failed)."""
    try:
        return runner.play_round(game, bet, script=script, operator=server.operator_settings(auth, game))
    except (ScriptError, BetError) as error:
        raise invalid(field_of(str(error)) or "script", str(error), InvalidBet) from error
    except Exception:
        log.exception("the round function failed (%s, player %s); played again on the general path",
                      game.code, auth.player_id)
        return None


async def write(server: Server, auth: Auth, key: str, settlement: Callable[[], Settlement]) -> bytes:
    """Commit the round (``settlement`` gives its figures at the transaction's start), holding the
    key's claim: on SQLite in the next shared commit of the process's batched writes (no thread of
    its own); on PostgreSQL, which groups concurrent commits itself, as one call of the round's
    function in autocommit on one of the server's few write threads (see
    :meth:`~slotforge.db.engine.Writer.run_autocommit`)."""
    writer = server.transaction
    with server.claims.outside(auth.player_id, key):
        if writer.batches is not None:
            return await writer.run(lambda conn: commit_round(DriverTransaction(conn, writer.listeners),
                                                              settlement()))
        return await writer.run_autocommit(lambda driver: commit_round_postgres(
            DriverTransaction(driver, writer.listeners), settlement()))


async def claimed(server: Server, auth: Auth, key: str, job: Callable[[Connection], Result]) -> Result:
    """``job(conn)`` in a write transaction handed over by the event loop, holding the key's
    claim: on SQLite in the next shared commit of the process's batched writes (no thread of its
    own); on PostgreSQL as a transaction of its own on one of the server's few write threads
    (see :meth:`~slotforge.db.engine.Writer.run`)."""
    with server.claims.outside(auth.player_id, key):
        return await server.transaction.run(job)


@dataclass
class Settlement:
    """A round's figures for its transaction: what the player row is settled with, the round's
    row (its balances once settled) and the key's row."""

    result: runner.RoundResult
    settle: dict[str, Any]
    row: dict[str, Any]
    stored: dict[str, Any]
    claim: int

    @classmethod
    def of(cls, server: Server, auth: Auth, game: Game, stake: int, result: runner.RoundResult, key: str,
           fingerprint: str) -> Settlement:
        now = server.now()
        awaiting = not result.complete
        win = 0 if awaiting else to_minor(result.total_win, "total_win")  # paid once decided
        return cls(
            result=result,
            settle=dict(p_player=auth.player_id, p_stake=stake, p_win=win, p_now=now,
                        p_latest=latest_allowed(auth, now)),
            row=dict(player_id=auth.player_id, session_id=auth.session_id, game=game.code,
                     status="awaiting" if awaiting else "complete", fun=auth.fun, currency=auth.currency,
                     jurisdiction=auth.jurisdiction_name, stake=stake, win=win, jackpot_win=0,
                     balance_before=None, balance_after=None, record=result.encoded.decode(),
                     started_at=now, finished_at=None if awaiting else now),
            stored=dict(player_id=auth.player_id, key=key, request_hash=fingerprint, status_code=200,
                        created_at=now, body=None),  # the answer is the round as committed ...
            claim=claim_number(auth.player_id, key))

    @property
    def awaiting(self) -> bool:
        return self.row["status"] == "awaiting"

    def settled(self, balance: int) -> None:
        """The player's balance after the settling update: the round's balances."""
        self.row.update(balance_before=balance + self.row["stake"] - self.row["win"], balance_after=balance)

    def entries(self, round_id: int) -> list[dict[str, Any]]:
        return ledger_entries(self.row["player_id"], round_id, self.row["stake"], self.row["win"],
                              self.row["started_at"])

    def call(self) -> dict[str, Any]:
        """The arguments of ``slotforge_play_round`` (PostgreSQL), named as its parameters."""
        row, stored = self.row, self.stored
        return {**self.settle, "p_claim": self.claim, "p_session": row["session_id"], "p_game": row["game"],
                "p_status": row["status"], "p_fun": row["fun"], "p_currency": row["currency"],
                "p_jurisdiction": row["jurisdiction"], "p_record": row["record"], "p_finished_at": row["finished_at"],
                "p_key": stored["key"], "p_request_hash": stored["request_hash"],
                "p_status_code": stored["status_code"]}

    def answer(self) -> bytes:
        return answer_bytes(self.row, self.result)

    def kept_answer(self, answer: bytes) -> dict[str, Any]:
        """... unless the round is still open: it will change, its answer must not."""
        return {"p_player": self.row["player_id"], "p_key": self.stored["key"], "p_body": answer.decode()}


def commit_round(transaction: DriverTransaction, round_: Settlement) -> bytes:
    """The round's transaction on SQLite (steps 3 to 7 of the module's description); its answer."""
    statements = ON_SQLITE
    settled = transaction.first(statements["settle"], round_.settle)
    if settled is None:
        raise Refused
    round_.settled(settled[0])
    inserted = transaction.first(statements["round"], round_.row)
    if inserted is None:
        raise Refused
    round_id = round_.row["id"] = inserted[0]
    transaction.send_many(statements["entries"], round_.entries(round_id))
    if transaction.first(statements["key"], {**round_.stored, "round_id": round_id}) is None:
        raise Refused
    answer = round_.answer()
    if round_.awaiting:
        transaction.send(statements["answer"], round_.kept_answer(answer))
    return answer


def commit_round_postgres(transaction: DriverTransaction, round_: Settlement) -> bytes:
    """The round on PostgreSQL (steps 2 to 7): one call of ``slotforge_play_round`` on a
    connection in autocommit, which commits it; its answer."""
    statements = ON_POSTGRES
    try:
        held, round_id, balance = transaction.first(statements["play_round"], round_.call())
    except psycopg.Error as error:
        if error.sqlstate == REFUSED:  # the failed statement undid the settling
            raise Refused from error
        raise
    if not held:
        raise in_progress()
    if round_id is None:
        raise Refused
    round_.settled(balance)
    round_.row["id"] = round_id
    answer = round_.answer()
    if round_.awaiting:
        # A transaction of its own, after the round's: the answer holds the round's id and
        # balances, which only the call knew. Should it be lost (the process stopped between the
        # two), the key still points to the round, and a retry is answered with the round as it
        # stands then.
        transaction.send(statements["answer"], round_.kept_answer(answer))
    return answer


def latest_allowed(auth: Auth, now: int) -> int:
    """The latest time of the player's last round that lets a round start at ``now``: the
    jurisdiction's least time between rounds before it (:data:`NEVER`: none)."""
    least_ms = auth.jurisdiction.min_round_ms
    return now - least_ms if least_ms else NEVER


def ledger_entries(player_id: int, round_id: int, stake: int, win: int, now: int) -> list[dict[str, Any]]:
    """A round's rows of the ledger, for :data:`ENTRIES`: its stake and its win (a zero is no entry)."""
    return [dict(player_id=player_id, kind=kind, amount=amount, round_id=round_id, reference=None, created_at=now)
            for kind, amount in (("stake", stake), ("win", win)) if amount]


def answer_bytes(row: dict[str, Any], result: runner.RoundResult) -> bytes:
    """``{"round": RECORD and the server's fields, "balance"}`` around the record's bytes as
    stored: the same answer as :func:`~slotforge.rgs.rounds.service.round_answer` gives for the row."""
    if row["status"] == "complete" and result.record["total_win"] != to_text(row["win"]):  # not the shown form
        return orjson.dumps({"round": {**result.record, "total_win": to_text(row["win"]), **server_fields(row)},
                             "balance": to_text(row["balance_after"])})
    fields = orjson.dumps(server_fields(row))
    return (b'{"round":' + result.encoded[:-1] + b"," + fields[1:] + b',"balance":"'
            + to_text(row["balance_after"]).encode() + b'"}')


def server_fields(row: dict[str, Any]) -> dict[str, Any]:
    """What the server adds to the engine's record (see :func:`~slotforge.rgs.rounds.service.round_view`)."""
    return {"id": row["id"], "player": row["player_id"], "started_at": iso(row["started_at"]),
            "finished_at": iso(row["finished_at"]), "balance_before": to_text(row["balance_before"]),
            "balance_after": to_text(row["balance_after"]), "jackpot_win": to_text(row["jackpot_win"]),
            "currency": row["currency"], **({"wallet": wallet_view(row)} if row.get("wallet_tx") else {})}


def refusal(server: Server, auth: Auth, game: Game, stake: int, key: str,
            fingerprint: str) -> tuple[int, dict[str, Any]] | None:
    """Why a round's transaction changed nothing, looked up after its rollback: the stored answer
    of a request answered before, or the refusal (raised); None if the cause is gone (try again)."""
    with server.engine.connect() as conn:
        stored = conn.execute(STORED_ANSWER, {"p_player": auth.player_id, "p_key": key}).mappings().first()
        if stored is not None:
            return stored_answer(conn, stored, fingerprint)
        server.refuse_open_round(conn, auth.player_id, game.code)
        player = conn.execute(PLAYER, {"p_player": auth.player_id}).mappings().one()
    server.refuse_too_soon(dict(player), auth.jurisdiction, server.now())
    refuse_short_balance(player["balance"], stake)
    return None
