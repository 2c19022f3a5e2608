"""A round of an operator's own wallet (seamless), on the event loop and straight through.

The money guarantees are those of :mod:`slotforge.rgs.wallets.seamless` (the debit's rollback
held by the round's placeholder before the debit is sent, taken in the round's transaction);
this module takes the waiting off threads and the common case off the general path. For a round
of the plain kind (:func:`~slotforge.rgs.rounds.straight.plain`), :func:`play_at_wallet`:

1. commits the round's placeholder (status ``pending``, its balances the player's), which holds
   its debit's rollback (``wallet_status`` ``debit_pending``): on SQLite :func:`hold`, one
   statement in a shared commit of the process's batched writes; on PostgreSQL
   :func:`hold_postgres`, one call of the PL/pgSQL function ``slotforge_hold_debit`` in
   autocommit on a write thread (one round trip, where the same transaction as statements was
   four: ``BEGIN``, the player's row locked first, so that the placeholder's conditions see what
   a request of the player's that held it committed, the placeholder, ``COMMIT``);
2. sends the debit on the wallets' call loop (:class:`~slotforge.rgs.wallets.seamless.CallLoop`,
   the server's own event loop) and awaits it, holding no thread and no transaction;
3. runs the round function on the event loop (nothing slow runs in the round's transaction);
4. commits the round: the player's balance the wallet's answer and the wins on their way to it,
   the round finished in its placeholder if that still holds the rollback (which it takes), the
   ledger's stake and win, the credit owed to the wallet in the outbox, the key stored with a
   pointer to the round. On SQLite :func:`commit`, five statements; on PostgreSQL
   :func:`commit_postgres`, one call of ``slotforge_settle_at_wallet`` in autocommit (as
   statements it was eight round trips: ``BEGIN``, the player's row locked first, so that the
   wins owed are read as committed, the six statements, ``COMMIT``);
5. if that transaction fails, writes the rollback due at once (a process that dies instead leaves
   it held: the next process's outbox worker writes it when it falls due);
6. sends the round's credit at once, on the event loop, as its answer goes out
   (:meth:`~slotforge.rgs.wallets.seamless.SeamlessWallet.credit_now`): the outbox holds it
   for longer than that attempt can take, so that the worker sends it only if the attempt failed
   or the process stopped.

Neither transaction takes the key's claim (:mod:`~slotforge.rgs.rounds.claims`): a twin of the
request, whatever process it reaches, finds the placeholder at its own first step and answers
409, and the round's transaction only touches what its own placeholder holds. Each step's
statements are conditional. When one changes nothing (a refusal: too soon, a round waiting
for a decision, the key answered already, the rollback no longer held; on PostgreSQL the
function's call returns NULL, or raises :data:`~slotforge.rgs.rounds.straight.REFUSED` once it
has changed something, so that nothing of it stays) or the round is not the common case (a
debit refused or unanswered, an answer too late, a round waiting for a decision, a round
function that failed), the step is done by the general path instead
(:meth:`Server.hold_debit`, :meth:`Server.start_round` inside :meth:`Server.once_in`), which
says why or voids the round: the rare cases keep one implementation.

The functions (their statements in ``rgs/sql``) keep the statements' conditions exactly; the
statements below are SQLite's, and the reference the functions follow. docs/server.md has the
figures.
"""

from __future__ import annotations

from typing import Any

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
    literal_column,
    select,
    text,
    update,
)

from slotforge.db.driver import DriverStatement, DriverTransaction
from slotforge.engine import round as runner
from slotforge.engine.bet import Bet
from slotforge.engine.game import Game
from slotforge.rgs import outbox as mail
from slotforge.rgs.money import to_minor
from slotforge.rgs.rounds.service import Auth, Server
from slotforge.rgs.rounds.straight import (
    ENTRIES,
    REFUSED,
    STORE_KEY,
    Refused,
    answer_bytes,
    claimed,
    latest_allowed,
    ledger_entries,
    plain,
    play,
)
from slotforge.rgs.schema import idempotency, is_awaiting, is_pending, outbox, players, rounds
from slotforge.rgs.wallets import seamless as wallets
from slotforge.rgs.wallets.seamless import DebitIntent, PlayerInfo

# -- the statements, built once ----------------------------------------------------------------
OTHER = rounds.alias("other")
# 1. The placeholder, unless the player played too lately, a round of the game waits for a
# decision, or the request's key is answered already or has a debit out.
PLACED_FIELDS = ["player_id", "session_id", "game", "status", "fun", "currency", "jurisdiction", "stake", "win",
                 "jackpot_win", "balance_before", "balance_after", "record", "started_at", "wallet_tx",
                 "wallet_status", "request_key"]
PLACE = (rounds.insert().from_select(PLACED_FIELDS, select(
    players.c.id, cast(bindparam("session_id"), BigInteger), cast(bindparam("game"), String),
    literal_column("'pending'"), cast(literal_column("0"), Boolean), cast(bindparam("currency"), String),
    cast(bindparam("jurisdiction"), String), cast(bindparam("stake"), BigInteger), literal_column("0"),
    literal_column("0"), players.c.balance, players.c.balance, literal_column("'{}'"),
    cast(bindparam("now"), BigInteger), cast(bindparam("wallet_tx"), String), literal_column("'debit_pending'"),
    cast(bindparam("request_key"), String),
).where(
    players.c.id == bindparam("player_id"),
    players.c.last_round_at.is_(None) | (players.c.last_round_at <= bindparam("latest")),
    ~exists().where(OTHER.c.player_id == players.c.id, OTHER.c.game == bindparam("game"), is_awaiting(OTHER)),
    ~exists().where(OTHER.c.player_id == players.c.id, is_pending(OTHER),
                    OTHER.c.request_key == bindparam("request_key")),
    ~exists().where(idempotency.c.player_id == players.c.id, idempotency.c.key == bindparam("request_key")),
)).returning(rounds.c.id))

# 4. The balance shown to the player: the wallet's answer, the wins on their way to it (this
# round's too), if the round is not too soon; the round finished, if its placeholder still holds
# the debit's rollback (taken now) and no round of the game waits for a decision.
OWED = wallets.PENDING_WINS.scalar_subquery()
SETTLE = (update(players)
          .where(players.c.id == bindparam("p_player"),
                 players.c.last_round_at.is_(None) | (players.c.last_round_at <= bindparam("p_latest")))
          .values(balance=bindparam("p_reported", type_=BigInteger) + OWED + bindparam("p_win", type_=BigInteger),
                  last_round_at=bindparam("p_now"))
          .returning(players.c.balance))
FINISH = (update(rounds)
          .where(rounds.c.id == bindparam("p_round"), wallets.HELD,
                 ~exists().where(OTHER.c.player_id == bindparam("p_player"), OTHER.c.game == bindparam("p_game"),
                                 is_awaiting(OTHER)))
          .values(status="complete", win=bindparam("p_win"), balance_before=bindparam("p_before"),
                  balance_after=bindparam("p_after"), record=bindparam("p_record"), started_at=bindparam("p_now"),
                  finished_at=bindparam("p_now"), wallet_status="credit_pending")
          .returning(rounds.c.id))

# SQLite's statements, as its driver takes them (see :mod:`slotforge.db.driver`).
CREDIT = mail.ENQUEUE.returning(outbox.c.id)  # its id: the round's request sends it (see step 6)
ON_SQLITE = {name: DriverStatement.of(statement, "sqlite") for name, statement in (
    ("place", PLACE), ("credit", CREDIT), ("settle", SETTLE), ("finish", FINISH), ("entries", ENTRIES),
    ("key", STORE_KEY))}

# PostgreSQL: each transaction is one call of a PL/pgSQL function (its statements in
# ``rgs/sql/hold_debit.sql`` and ``settle_at_wallet.sql``, each locking the player's row first),
# sent in autocommit: the call is the whole transaction and its one round trip.
# ``slotforge_hold_debit`` answers the placeholder's id (None: refused, nothing written);
# ``slotforge_settle_at_wallet`` the player's balance (None: the placeholder no longer holds the
# rollback, nothing written) and its credit's outbox id, and raises REFUSED for a refusal after a
# change.
HOLD = text("""
SELECT new_round FROM slotforge_hold_debit(
    p_player => :p_player, p_session => :p_session, p_game => :p_game, p_currency => :p_currency,
    p_jurisdiction => :p_jurisdiction, p_stake => :p_stake, p_now => :p_now, p_latest => :p_latest,
    p_wallet_tx => :p_wallet_tx, p_request_key => :p_request_key)
""").bindparams(*(bindparam(name, type_=kind) for name, kind in (
    ("p_player", BigInteger), ("p_session", BigInteger), ("p_game", Text), ("p_currency", Text),
    ("p_jurisdiction", Text), ("p_stake", BigInteger), ("p_now", BigInteger), ("p_latest", BigInteger),
    ("p_wallet_tx", Text), ("p_request_key", Text))))
SETTLE_AT_WALLET = text("""
SELECT new_balance, credit_id FROM slotforge_settle_at_wallet(
    p_player => :p_player, p_round => :p_round, p_game => :p_game, p_wallet_tx => :p_wallet_tx,
    p_reported => :p_reported, p_stake => :p_stake, p_win => :p_win, p_now => :p_now, p_latest => :p_latest,
    p_record => :p_record, p_credit_key => :p_credit_key, p_credit_payload => :p_credit_payload,
    p_credit_due_at => :p_credit_due_at, p_key => :p_key, p_request_hash => :p_request_hash,
    p_status_code => :p_status_code)
""").bindparams(*(bindparam(name, type_=kind) for name, kind in (
    ("p_player", BigInteger), ("p_round", BigInteger), ("p_game", Text), ("p_wallet_tx", Text),
    ("p_reported", BigInteger), ("p_stake", BigInteger), ("p_win", BigInteger), ("p_now", BigInteger),
    ("p_latest", BigInteger), ("p_record", Text), ("p_credit_key", Text), ("p_credit_payload", Text),
    ("p_credit_due_at", BigInteger), ("p_key", Text), ("p_request_hash", Text), ("p_status_code", Integer))))
ON_POSTGRES = {name: DriverStatement.of(statement, "postgresql") for name, statement in (
    ("hold", HOLD), ("settle", SETTLE_AT_WALLET))}


def at_wallet(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round takes this path: a seamless player's round of the plain kind."""
    return auth.wallet == "seamless" and plain(auth, game, autoplay_id)


async def play_at_wallet(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None,
                         key: str | None, fingerprint: str) -> tuple[int, bytes]:
    """Play a seamless round (steps 1 to 5 of the module's description): ``(status, JSON answer)``."""
    server.check_key(key)
    stake = to_minor(bet.total_bet, "bet")
    with server.in_flight(auth.player_id, key):
        intent = await placed(server, auth, game, stake, key)
        if intent is not None:
            server.seamless.track(intent)
        committed = False
        try:
            result = None
            if intent is not None:
                await server.seamless.send_from_loop(intent)
                if intent.declined is None:
                    result = play(server, auth, game, bet, script)  # None: a malfunction, played again below
            answer = await played(server, auth, game, bet, script, key, fingerprint, intent, result)
            committed = True
            return answer
        finally:
            if intent is not None and not server.seamless.done(intent, committed):
                await server.transaction.run(lambda conn: server.seamless.roll_back_now(conn, intent))


async def placed(server: Server, auth: Auth, game: Game, stake: int, key: str) -> DebitIntent | None:
    """Step 1: the debit held, its round placed; None when the key's answer is stored already."""
    writer = server.transaction
    try:
        if writer.batches is not None:
            return await writer.run(lambda conn: hold(server, conn, auth, game, stake, key))
        info = await wallet_details(server, auth)
        return await writer.run_autocommit(lambda driver: hold_postgres(
            server, DriverTransaction(driver, writer.listeners), auth, game, stake, key, info))
    except Refused:  # the general path says why (or finds the stored answer)
        return await claimed(server, auth, key, lambda conn: server.hold_debit(conn, auth, key, game.code, stake,
                                                                               None))


async def played(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None, key: str,
                 fingerprint: str, intent: DebitIntent | None, result: runner.RoundResult | None) -> tuple[int, bytes]:
    """Step 4: the round committed; its answer."""
    common = (intent is not None and intent.declined is None and result is not None and result.complete
              and server.seamless.in_time(intent))
    if common:
        writer = server.transaction
        try:
            if writer.batches is not None:
                answer, credit = await writer.run(lambda conn: commit(server, conn, auth, game, key, fingerprint,
                                                                      intent, result))
            else:
                answer, credit = await writer.run_autocommit(lambda driver: commit_postgres(
                    server, DriverTransaction(driver, writer.listeners), auth, game, key, fingerprint, intent, result))
            server.seamless.credit_now(*credit)
            return 200, answer
        except Refused:
            pass

    def general(conn: Connection, player: dict) -> tuple[int, dict]:
        # No intent: a twin's answer was stored meanwhile, which once_in answers with.
        return server.start_round(conn, player, auth, game, bet, script, None, debit=intent, result=result)

    status, body = await claimed(server, auth, key, lambda conn: server.once_in(conn, auth, key, fingerprint,
                                                                                general))
    return status, orjson.dumps(body)


def hold(server: Server, conn: Connection, auth: Auth, game: Game, stake: int, key: str) -> DebitIntent:
    """Step 1's transaction on SQLite: the placeholder, which holds the debit's rollback
    (:class:`Refused` if a condition of the placeholder fails)."""
    transaction, statements = DriverTransaction(conn, server.transaction.listeners), ON_SQLITE
    intent = server.seamless.intent(conn, auth.player_id, game.code, stake)
    round_ = transaction.first(statements["place"], dict(
        player_id=auth.player_id, session_id=auth.session_id, game=game.code, currency=auth.currency,
        jurisdiction=auth.jurisdiction_name, stake=stake, now=intent.held_at, wallet_tx=intent.transaction_id,
        request_key=key, latest=latest_allowed(auth, intent.held_at)))
    if round_ is None:
        raise Refused
    server.seamless.placed(intent, round_[0])
    return intent


def hold_postgres(server: Server, transaction: DriverTransaction, auth: Auth, game: Game, stake: int, key: str,
                  info: PlayerInfo) -> DebitIntent:
    """Step 1 on PostgreSQL: one call of ``slotforge_hold_debit`` on a connection in autocommit,
    which commits it (:class:`Refused`, nothing written, if a condition of the placeholder fails)."""
    intent = server.seamless.intent_for(info, auth.player_id, game.code, stake)
    (round_id,) = transaction.first(ON_POSTGRES["hold"], {
        "p_player": auth.player_id, "p_session": auth.session_id, "p_game": game.code, "p_currency": auth.currency,
        "p_jurisdiction": auth.jurisdiction_name, "p_stake": stake, "p_now": intent.held_at,
        "p_latest": latest_allowed(auth, intent.held_at), "p_wallet_tx": intent.transaction_id,
        "p_request_key": key})
    if round_id is None:
        raise Refused
    server.seamless.placed(intent, round_id)
    return intent


async def wallet_details(server: Server, auth: Auth) -> PlayerInfo:
    """The player's details for the wallet's calls: kept once read, so read only for their first
    round in the process, on the operator's lane (off the event loop, and before the write
    thread's connection is taken)."""
    info = server.seamless.known(auth.player_id)
    if info is not None:
        return info

    def read() -> PlayerInfo:
        with server.engine.connect() as conn:
            return server.seamless.player(conn, auth.player_id)

    return await server.lanes.run(auth.operator_id, read)


def commit(server: Server, conn: Connection, auth: Auth, game: Game, key: str, fingerprint: str,
           intent: DebitIntent, result: runner.RoundResult) -> tuple[bytes, tuple[int, dict]]:
    """Step 4's transaction on SQLite, for a debit taken and a round complete: its answer, and
    its credit's outbox id and row, for :meth:`~slotforge.rgs.wallets.seamless.SeamlessWallet.credit_now`
    (:class:`Refused` if a condition fails)."""
    transaction, statements = DriverTransaction(conn, server.transaction.listeners), ON_SQLITE
    now, win = server.now(), to_minor(result.total_win, "total_win")
    settled = transaction.first(statements["settle"], {
        "p_player": auth.player_id, "p_reported": intent.balance, "p_win": win, "p_now": now,
        "p_latest": latest_allowed(auth, now)})
    if settled is None:
        raise Refused
    row = finished(auth, game, intent, result, win, now, settled[0])
    if transaction.first(statements["finish"], {
            "p_round": row["id"], "p_player": auth.player_id, "p_game": game.code, "p_win": win,
            "p_before": row["balance_before"], "p_after": row["balance_after"], "p_record": row["record"],
            "p_now": now}) is None:
        raise Refused
    transaction.send_many(statements["entries"], ledger_entries(auth.player_id, row["id"], intent.stake, win, now))
    credit = server.seamless.message("credit", intent.transaction_id, row["id"], intent.player, win, game.code, now,
                                     hold_ms=server.seamless.handoff_ms(intent.operator))
    credit_id = transaction.first(statements["credit"], credit)[0]
    if transaction.first(statements["key"], dict(player_id=auth.player_id, key=key, request_hash=fingerprint,
                                                 status_code=200, body=None, round_id=row["id"],
                                                 created_at=now)) is None:
        raise Refused
    intent.taken = True
    return answer_bytes(row, result), (credit_id, credit)


def commit_postgres(server: Server, transaction: DriverTransaction, auth: Auth, game: Game, key: str,
                    fingerprint: str, intent: DebitIntent, result: runner.RoundResult
                    ) -> tuple[bytes, tuple[int, dict]]:
    """Step 4 on PostgreSQL: one call of ``slotforge_settle_at_wallet`` on a connection in
    autocommit, which commits it; its answer and its credit, as :func:`commit` gives them
    (:class:`Refused`, nothing written, if a condition fails)."""
    now, win = server.now(), to_minor(result.total_win, "total_win")
    credit = server.seamless.message("credit", intent.transaction_id, intent.round_id, intent.player, win,
                                     game.code, now, hold_ms=server.seamless.handoff_ms(intent.operator))
    try:
        balance, credit_id = transaction.first(ON_POSTGRES["settle"], {
            "p_player": auth.player_id, "p_round": intent.round_id, "p_game": game.code,
            "p_wallet_tx": intent.transaction_id, "p_reported": intent.balance, "p_stake": intent.stake,
            "p_win": win, "p_now": now, "p_latest": latest_allowed(auth, now), "p_record": result.encoded.decode(),
            "p_credit_key": credit["key"], "p_credit_payload": credit["payload"], "p_credit_due_at": credit["due_at"],
            "p_key": key, "p_request_hash": fingerprint, "p_status_code": 200})
    except psycopg.Error as error:
        if error.sqlstate == REFUSED:  # the failed call undid what it had done
            raise Refused from error
        raise
    if balance is None:
        raise Refused
    intent.taken = True
    return answer_bytes(finished(auth, game, intent, result, win, now, balance), result), (credit_id, credit)


def finished(auth: Auth, game: Game, intent: DebitIntent, result: runner.RoundResult, win: int, now: int,
             balance: int) -> dict[str, Any]:
    """The round's row as step 4 finishes it, ``balance`` the player's once settled."""
    return dict(id=intent.round_id, player_id=auth.player_id, game=game.code, status="complete",
                currency=auth.currency, stake=intent.stake, win=win, jackpot_win=0,
                balance_before=balance - win + intent.stake, balance_after=balance,
                record=result.encoded.decode(), started_at=now, finished_at=now, wallet_tx=intent.transaction_id,
                wallet_status="credit_pending")
