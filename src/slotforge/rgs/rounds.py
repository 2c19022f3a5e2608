"""A round of the internal wallet, straight through: the round function first, then one short
transaction of at most five statements and one commit.

Most rounds are the simplest kind: a player of the server's own wallet, no autoplay plan, no
jackpot pool, no state carried between rounds. For those, :func:`play_straight` does, in order:

1. runs the round function and encodes its record to JSON once (no lock is held yet: on SQLite
   nothing slow runs under the database's one write lock);
2. opens the write transaction: on PostgreSQL its first statement claims the idempotency key (an
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

When a conditional statement changes nothing (too little money, too soon, a round waiting for a
decision, the key answered already), the transaction is rolled back and :func:`refusal` finds
out why, outside it: these are the rare cases. Every other round (seamless wallets, autoplay,
jackpots, carried state, a failing round function) takes the general path in
:class:`~slotforge.rgs.service.Server`.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

import orjson
from sqlalchemy import BigInteger, Boolean, String, Text, and_, bindparam, cast, exists, select, update
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from slotforge.engine import round as runner
from slotforge.engine.bet import Bet, BetError
from slotforge.engine.game import Game, ScriptError
from slotforge.rgs.claims import in_progress
from slotforge.rgs.errors import ApiError, field_of, invalid
from slotforge.rgs.jackpots import has_pool
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.schema import idempotency, ledger, players, rounds
from slotforge.rgs.service import STORED_ANSWER, Auth, Server, carries_state, iso, stored_answer

log = logging.getLogger("slotforge.rgs")

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
                          rounds.c.status == "awaiting")
INSERT_ROUND = (rounds.insert()
                .from_select(list(ROUND_FIELDS), select(*(cast(bindparam(name), kind)
                                                          for name, kind in ROUND_FIELDS.items())).where(~AWAITING))
                .returning(rounds.c.id))

# 5. The ledger's entries of the round.
ENTRIES = ledger.insert()


def claim_key(dialect: str):
    """6. The key stored with its round, unless stored already (returns the key when stored now)."""
    insert = postgres_insert if dialect == "postgresql" else sqlite_insert
    return insert(idempotency).on_conflict_do_nothing().returning(idempotency.c.key)


CLAIM_KEY = {dialect: claim_key(dialect) for dialect in ("postgresql", "sqlite")}
OPEN_ROUND = select(rounds.c.id).where(and_(rounds.c.player_id == bindparam("p_player"),
                                            rounds.c.game == bindparam("p_game"), rounds.c.status == "awaiting"))
PLAYER = select(players.c.balance, players.c.last_round_at).where(players.c.id == bindparam("p_player"))


class Refused(Exception):
    """A conditional statement changed nothing: the transaction is rolled back, :func:`refusal` says why."""


def straight(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round takes the straight path (see the module's description)."""
    return (auth.wallet == "internal" and autoplay_id is None and not carries_state(game)
            and not (has_pool(game) and not auth.fun))


def play_straight(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None, key: str | None,
                  fingerprint: str) -> tuple[int, bytes] | None:
    """Play a round of the straight kind: ``(status, JSON answer)``; None when the round function
    failed (the caller plays it on the general path, which voids a malfunction and refunds it)."""
    server.check_key(key)
    with server.in_flight(auth.player_id, key):
        try:
            record = runner.play(game, bet.as_json(), script=script, operator=server.operator_settings(auth))
        except (ScriptError, BetError) as error:
            raise invalid(field_of(str(error)) or "script", str(error), "INVALID_BET") from error
        except Exception:
            log.exception("the round function failed (%s, player %s); played again on the general path",
                          game.code, auth.player_id)
            return None
        encoded = orjson.dumps(record)
        for _ in range(RETRIES):
            try:
                return 200, commit_round(server, auth, game, bet, record, encoded, key, fingerprint)
            except Refused:
                answer = refusal(server, auth, game, to_minor(bet.total_bet, "bet"), key, fingerprint)
                if answer is not None:
                    return answer[0], orjson.dumps(answer[1])
        raise in_progress()


def commit_round(server: Server, auth: Auth, game: Game, bet: Bet, record: dict[str, Any], encoded: bytes,
                 key: str, fingerprint: str) -> bytes:
    """The round's one transaction (steps 2 to 7 of the module's description); its answer."""
    now = server.now()
    stake = to_minor(bet.total_bet, "bet")
    awaiting = record["status"] == "awaiting"
    win = 0 if awaiting else to_minor(Decimal(record["total_win"]), "total_win")  # paid once decided
    least_ms = auth.jurisdiction.min_round_ms
    with server.claims.outside(auth.player_id, key), server.transaction() as conn:
        server.claims.inside(conn, auth.player_id, key)
        balance = conn.execute(SETTLE, {"p_player": auth.player_id, "p_stake": stake, "p_win": win, "p_now": now,
                                        "p_latest": now - least_ms if least_ms else NEVER}).scalar()
        if balance is None:
            raise Refused
        row = dict(player_id=auth.player_id, session_id=auth.session_id, game=game.code,
                   status="awaiting" if awaiting else "complete", fun=auth.fun, currency=auth.currency,
                   jurisdiction=auth.jurisdiction_name, stake=stake, win=win, jackpot_win=0,
                   balance_before=balance + stake - win, balance_after=balance, record=encoded.decode(),
                   started_at=now, finished_at=None if awaiting else now)
        row["id"] = conn.execute(INSERT_ROUND, row).scalar()
        if row["id"] is None:
            raise Refused
        conn.execute(ENTRIES, [dict(player_id=auth.player_id, kind=kind, amount=amount, round_id=row["id"],
                                    reference=None, created_at=now)
                               for kind, amount in (("stake", stake), ("win", win)) if amount])
        answer = answer_bytes(row, record, encoded)
        stored = conn.execute(CLAIM_KEY[conn.dialect.name], dict(
            player_id=auth.player_id, key=key, request_hash=fingerprint, status_code=200, created_at=now,
            round_id=row["id"], body=answer.decode() if awaiting else None)).scalar()  # an open round changes
        if stored is None:
            raise Refused
    return answer


def answer_bytes(row: dict[str, Any], record: dict[str, Any], encoded: bytes) -> bytes:
    """``{"round": RECORD and the server's fields, "balance"}`` around the record's bytes as
    stored: the same answer as :func:`~slotforge.rgs.service.round_answer` gives for the row."""
    if row["status"] == "complete" and record["total_win"] != to_text(row["win"]):  # not the shown form
        return orjson.dumps({"round": {**record, "total_win": to_text(row["win"]), **server_fields(row)},
                             "balance": to_text(row["balance_after"])})
    fields = orjson.dumps(server_fields(row))
    return (b'{"round":' + encoded[:-1] + b"," + fields[1:] + b',"balance":"'
            + to_text(row["balance_after"]).encode() + b'"}')


def server_fields(row: dict[str, Any]) -> dict[str, Any]:
    """What the server adds to the engine's record (see :func:`~slotforge.rgs.service.round_view`)."""
    return {"id": row["id"], "player": row["player_id"], "started_at": iso(row["started_at"]),
            "finished_at": iso(row["finished_at"]), "balance_before": to_text(row["balance_before"]),
            "balance_after": to_text(row["balance_after"]), "jackpot_win": to_text(row["jackpot_win"]),
            "currency": row["currency"]}


def refusal(server: Server, auth: Auth, game: Game, stake: int, key: str,
            fingerprint: str) -> tuple[int, dict[str, Any]] | None:
    """Why a round's transaction changed nothing, looked up after its rollback: the stored answer
    of a request answered before, or the refusal (raised); None if the cause is gone (try again)."""
    with server.engine.connect() as conn:
        stored = conn.execute(STORED_ANSWER, {"p_player": auth.player_id, "p_key": key}).mappings().first()
        if stored is not None:
            return stored_answer(conn, stored, fingerprint)
        waiting = conn.execute(OPEN_ROUND, {"p_player": auth.player_id, "p_game": game.code}).scalar()
        player = conn.execute(PLAYER, {"p_player": auth.player_id}).mappings().one()
    if waiting is not None:
        raise ApiError(409, "ROUND_IN_PROGRESS", f"round {waiting} of {game.code} waits for a decision; finish it "
                       "first", round=waiting)
    server.refuse_too_soon(dict(player), auth.jurisdiction, server.now())
    if player["balance"] < stake:
        raise ApiError(402, "INSUFFICIENT_FUNDS", f"balance {to_text(player['balance'])} is below the stake "
                       f"{to_text(stake)}", balance=to_text(player["balance"]))
    return None
