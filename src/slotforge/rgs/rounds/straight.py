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
4. one insert of the finished round, which the rounds table's trigger refuses while a round of
   the game waits for a decision (a statement after the update, whose trigger's look-up on
   PostgreSQL takes a snapshot of its own: it sees whatever committed while the update waited
   for the player's row);
5. the ledger's stake and win, in one statement;
6. the idempotency key stored with a pointer to the round (the answer is the round as committed,
   so it is not stored twice), unless the key is there already;
7. one commit, and the answer built around the record's JSON bytes as stored.

Steps 2 to 6 are the store's :meth:`~slotforge.rgs.store.RoundStore.play_round`: on SQLite four
statements (calls inside the process, :mod:`slotforge.rgs.store.sqlite`); on PostgreSQL, where
each statement is a round trip, one call of a PL/pgSQL function, ``slotforge_play_round`` (its
statements in ``rgs/sql/play_round.sql``), sent on a connection in autocommit: the call is the
whole transaction, one round trip with no ``BEGIN`` or ``COMMIT`` of its own
(:mod:`slotforge.rgs.store.postgres`). Both send their statements straight to the
database's driver (:mod:`slotforge.db.driver`), past SQLAlchemy's execution layer, which cost
about as much CPU as the statements. A round still waiting for a decision also stores its answer
as sent, as the round will change (on PostgreSQL a second statement, after the call: the answer
holds what only the call knew).

Where it runs: step 1 on the event loop (the round function is a fraction of a millisecond and
needs no thread); the transaction on SQLite in the process's batched writes (one thread takes
every round queued meanwhile into one shared commit, each in a savepoint of its own), on
PostgreSQL on one of a few threads kept for writes (psycopg's asynchronous connections were tried
on the event loop instead: they cost more server CPU a round than a thread's synchronous ones).

When a conditional statement changes nothing (too little money, too soon, the key answered
already) or the rounds table refuses the round (a round waiting for a decision), the transaction
(its savepoint, on SQLite; on PostgreSQL the function's call, which raises ``SF001`` once the
player's row is settled) is rolled back and :func:`refusal` finds out why, outside it: these
are the rare cases. Every other round (seamless wallets, autoplay, jackpots, carried state, a
failing round function) takes the general path in :class:`~slotforge.rgs.rounds.service.Server`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from slotforge.engine import round as runner
from slotforge.engine.bet import Bet, BetError
from slotforge.engine.game import Game, ScriptError
from slotforge.rgs import limits
from slotforge.rgs.errors import InvalidBet, field_of, invalid
from slotforge.rgs.jackpots.embedded import has_pool
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.rounds import rules
from slotforge.rgs.rounds.claims import claim_number, in_progress
from slotforge.rgs.rounds.service import Auth, Server, carries_state
from slotforge.rgs.rounds.views import iso, wallet_view
from slotforge.rgs.store import Refused, StraightRound, latest_allowed

log = logging.getLogger("slotforge.rgs")
Result = TypeVar("Result")

RETRIES = 3  # a refusal that is gone when looked into (a deposit meanwhile) is tried again


def straight(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round takes the straight path (see the module's description)."""
    return auth.wallet == "internal" and plain(auth, game, autoplay_id)


def plain(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round is of the simplest kind, whatever the wallet: no autoplay plan, no state
    carried between rounds (its round function can run before its transaction), no jackpot pool,
    no player's own limits to check (those are checked on the general path only)."""
    return (autoplay_id is None and not carries_state(game) and not (has_pool(game) and not auth.fun)
            and not limits.guarded(auth.jurisdiction, auth.fun))


async def play_straight(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None,
                        key: str | None, fingerprint: str) -> tuple[int, bytes] | None:
    """Play a round of the straight kind: ``(status, JSON answer)``; None when the round function
    failed (the caller plays it on the general path, which voids a malfunction and refunds it).
    Runs on the event loop; only the transaction leaves it (see :func:`write`)."""
    with server.once.running(auth.player_id, key) as key:
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
    """Commit the round (``settlement`` gives its figures at the transaction's start) in the
    store's transaction of the fast path, holding the key's claim (SQLite's file lock here;
    PostgreSQL's advisory lock is taken by the round's call); its answer."""
    store = server.store

    def commit(transaction) -> bytes:
        round_ = settlement()
        store.play_round(transaction, round_)
        answer = round_.answer()
        if round_.awaiting:  # it will change, its answer must not
            store.keep_answer(transaction, auth.player_id, key, answer)
        return answer

    with server.once.claim(auth.player_id, key):
        return await store.write("play_round", commit)


@dataclass
class Settlement(StraightRound):
    """A straight round's figures (:class:`~slotforge.rgs.store.StraightRound`) and its result,
    whose record the answer is built around."""

    result: runner.RoundResult | None = None

    @classmethod
    def of(cls, server: Server, auth: Auth, game: Game, stake: int, result: runner.RoundResult, key: str,
           fingerprint: str) -> Settlement:
        now = server.now()
        awaiting = not result.complete
        win = 0 if awaiting else to_minor(result.total_win, "total_win")  # paid once decided
        return cls(
            result=result,
            settle=dict(p_player=auth.player_id, p_stake=stake, p_win=win, p_now=now,
                        p_latest=latest_allowed(auth.jurisdiction.min_round_ms, now)),
            row=dict(player_id=auth.player_id, session_id=auth.session_id, game=game.code,
                     status="awaiting" if awaiting else "complete", fun=auth.fun, currency=auth.currency,
                     jurisdiction=auth.jurisdiction_name, stake=stake, win=win, jackpot_win=0,
                     balance_before=None, balance_after=None, record=result.encoded.decode(),
                     started_at=now, finished_at=None if awaiting else now),
            stored=dict(player_id=auth.player_id, key=key, request_hash=fingerprint, status_code=200,
                        created_at=now, body=None),  # the answer is the round as committed
            claim=claim_number(auth.player_id, key))

    def answer(self) -> bytes:
        return answer_bytes(self.row, self.result)


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
    """What the server adds to the engine's record (see :func:`~slotforge.rgs.rounds.views.round_view`)."""
    return {"id": row["id"], "player": row["player_id"], "started_at": iso(row["started_at"]),
            "finished_at": iso(row["finished_at"]), "balance_before": to_text(row["balance_before"]),
            "balance_after": to_text(row["balance_after"]), "jackpot_win": to_text(row["jackpot_win"]),
            "currency": row["currency"], **({"wallet": wallet_view(row)} if row.get("wallet_tx") else {})}


def refusal(server: Server, auth: Auth, game: Game, stake: int, key: str,
            fingerprint: str) -> tuple[int, dict[str, Any]] | None:
    """Why a round's transaction changed nothing, looked up after its rollback: the stored answer
    of a request answered before, or the refusal (raised); None if the cause is gone (try again)."""
    with server.engine.connect() as conn:
        answered = server.once.recall(conn, auth.player_id, key, fingerprint)
        if answered is not None:
            return answered
        rules.refuse_open_round(server.store, conn, auth.player_id, game.code)
        player = server.store.player_clock(conn, auth.player_id)
    rules.refuse_too_soon(player, auth.jurisdiction, server.now())
    rules.refuse_short_balance(player["balance"], stake)
    return None
