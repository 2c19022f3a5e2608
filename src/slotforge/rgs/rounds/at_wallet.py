"""A round of an operator's own wallet (seamless), on the event loop and straight through.

The money guarantees are those of :mod:`slotforge.rgs.wallets.seamless` (the debit's rollback
held before the debit is sent, cancelled in the round's transaction); this module takes the
waiting off threads and the common case off the general path. For a round of the plain kind
(:func:`~slotforge.rgs.rounds.straight.plain`), :func:`play_at_wallet`:

1. commits the round's placeholder (status ``pending``, its balances the player's) and its
   debit's held rollback: :func:`hold`, two statements, or on PostgreSQL three (the player's row
   locked first, so that the placeholder's conditions see what a request of the player's that
   held it committed), a write job of the process's writer (on SQLite in a shared commit);
2. sends the debit on the wallets' call loop (:class:`~slotforge.rgs.wallets.seamless.CallLoop`,
   the server's own event loop) and awaits it, holding no thread and no transaction;
3. runs the round function on the event loop (nothing slow runs in the round's transaction);
4. commits the round: :func:`commit`, six statements (seven on PostgreSQL, the player's row
   locked first, so that the wins owed are read as committed): the held rollback cancelled, the
   player's balance the wallet's answer and the wins on their way to it, the round finished,
   the ledger's stake and win, the credit owed to the wallet in the outbox, the key stored with
   a pointer to the round;
5. if that transaction fails, makes the rollback due at once (a process that dies instead leaves
   it held: the next process delivers it when it falls due);
6. sends the round's credit at once, on the event loop, as its answer goes out
   (:meth:`~slotforge.rgs.wallets.seamless.SeamlessWallet.credit_now`): the outbox holds it
   for longer than that attempt can take, so that the worker sends it only if the attempt failed
   or the process stopped.

Neither transaction takes the key's claim (:mod:`~slotforge.rgs.rounds.claims`): a twin of the
request, whatever process it reaches, finds the placeholder at its own first step and answers
409, and the round's transaction only touches what its own placeholder holds. Each step's
statements are conditional. When one changes nothing (a refusal: too soon, a round
waiting for a decision, the key answered already, the rollback no longer held) or the round is
not the common case (a debit refused or unanswered, an answer too late, a round waiting for a
decision, a round function that failed), the step is done by the general path instead
(:meth:`Server.hold_debit`, :meth:`Server.start_round` inside :meth:`Server.once_in`), which
says why or voids the round: the rare cases keep one implementation.

docs/server.md has the figures.
"""

from __future__ import annotations

import orjson
from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    String,
    bindparam,
    cast,
    delete,
    exists,
    literal_column,
    select,
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
    STORE_KEY,
    Refused,
    answer_bytes,
    claimed,
    latest_allowed,
    ledger_entries,
    plain,
    play,
)
from slotforge.rgs.schema import idempotency, outbox, players, rounds
from slotforge.rgs.wallets import seamless as wallets
from slotforge.rgs.wallets.seamless import DebitIntent

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
    ~exists().where(OTHER.c.player_id == players.c.id, OTHER.c.game == bindparam("game"),
                    OTHER.c.status == "awaiting"),
    ~exists().where(OTHER.c.player_id == players.c.id, OTHER.c.status == "pending",
                    OTHER.c.request_key == bindparam("request_key")),
    ~exists().where(idempotency.c.player_id == players.c.id, idempotency.c.key == bindparam("request_key")),
)).returning(rounds.c.id))
LOCK = select(players.c.id).where(players.c.id == bindparam("p_player")).with_for_update()

# 4. The held rollback cancelled; the balance shown to the player: the wallet's answer, the wins
# on their way to it (this round's too), if the round is not too soon; the round finished, if no
# round of the game waits for a decision.
CANCEL = (delete(outbox).where(outbox.c.target == wallets.TARGET, outbox.c.key == bindparam("p_key"),
                               outbox.c.delivered_at.is_(None)).returning(outbox.c.id))
OWED = wallets.PENDING_WINS.scalar_subquery()
SETTLE = (update(players)
          .where(players.c.id == bindparam("p_player"),
                 players.c.last_round_at.is_(None) | (players.c.last_round_at <= bindparam("p_latest")))
          .values(balance=bindparam("p_reported", type_=BigInteger) + OWED + bindparam("p_win", type_=BigInteger),
                  last_round_at=bindparam("p_now"))
          .returning(players.c.balance))
FINISH = (update(rounds)
          .where(rounds.c.id == bindparam("p_round"), rounds.c.status == "pending",
                 ~exists().where(OTHER.c.player_id == bindparam("p_player"), OTHER.c.game == bindparam("p_game"),
                                 OTHER.c.status == "awaiting"))
          .values(status="complete", win=bindparam("p_win"), balance_before=bindparam("p_before"),
                  balance_after=bindparam("p_after"), record=bindparam("p_record"), started_at=bindparam("p_now"),
                  finished_at=bindparam("p_now"), wallet_status="credit_pending")
          .returning(rounds.c.id))

CREDIT = mail.ENQUEUE.returning(outbox.c.id)  # its id: the round's request sends it (see step 6)

STATEMENTS = {dialect: {name: DriverStatement.of(statement, dialect) for name, statement in (
    ("place", PLACE), ("message", mail.ENQUEUE), ("credit", CREDIT), ("lock", LOCK), ("cancel", CANCEL),
    ("settle", SETTLE), ("finish", FINISH), ("entries", ENTRIES), ("key", STORE_KEY))}
    for dialect in ("sqlite", "postgresql")}


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
    try:
        return await server.transaction.run(lambda conn: hold(server, conn, auth, game, stake, key))
    except Refused:  # the general path says why (or finds the stored answer)
        return await claimed(server, auth, key, lambda conn: server.hold_debit(conn, auth, key, game.code, stake,
                                                                               None))


async def played(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None, key: str,
                 fingerprint: str, intent: DebitIntent | None, result: runner.RoundResult | None) -> tuple[int, bytes]:
    """Step 4: the round committed; its answer."""
    common = (intent is not None and intent.declined is None and result is not None and result.complete
              and server.seamless.in_time(intent))
    if common:
        try:
            answer, credit = await server.transaction.run(lambda conn: commit(server, conn, auth, game, key,
                                                                              fingerprint, intent, result))
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
    """Step 1's transaction: the placeholder and the held rollback (:class:`Refused` if a
    condition of the placeholder fails)."""
    transaction, statements = driver(server, conn)
    intent = server.seamless.intent(conn, auth.player_id, game.code, stake)
    if conn.dialect.name == "postgresql":
        transaction.send(statements["lock"], {"p_player": auth.player_id})
    round_ = transaction.first(statements["place"], dict(
        player_id=auth.player_id, session_id=auth.session_id, game=game.code, currency=auth.currency,
        jurisdiction=auth.jurisdiction_name, stake=stake, now=intent.held_at, wallet_tx=intent.transaction_id,
        request_key=key, latest=latest_allowed(auth, intent.held_at)))
    if round_ is None:
        raise Refused
    transaction.send(statements["message"], server.seamless.placed(intent, round_[0]))
    return intent


def commit(server: Server, conn: Connection, auth: Auth, game: Game, key: str, fingerprint: str,
           intent: DebitIntent, result: runner.RoundResult) -> tuple[bytes, tuple[int, dict]]:
    """Step 4's transaction for a debit taken and a round complete: its answer, and its credit's
    outbox id and row, for :meth:`~slotforge.rgs.wallets.seamless.SeamlessWallet.credit_now`
    (:class:`Refused` if a condition fails)."""
    transaction, statements = driver(server, conn)
    if conn.dialect.name == "postgresql":  # so that the wins owed are read as committed meanwhile
        transaction.send(statements["lock"], {"p_player": auth.player_id})
    if transaction.first(statements["cancel"], {"p_key": intent.transaction_id}) is None:
        raise Refused
    now, win = server.now(), to_minor(result.total_win, "total_win")
    settled = transaction.first(statements["settle"], {
        "p_player": auth.player_id, "p_reported": intent.balance, "p_win": win, "p_now": now,
        "p_latest": latest_allowed(auth, now)})
    if settled is None:
        raise Refused
    row = dict(id=intent.round_id, player_id=auth.player_id, game=game.code, status="complete",
               currency=auth.currency, stake=intent.stake, win=win, jackpot_win=0,
               balance_before=settled[0] - win + intent.stake, balance_after=settled[0],
               record=result.encoded.decode(), started_at=now, finished_at=now, wallet_tx=intent.transaction_id,
               wallet_status="credit_pending")
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


def driver(server: Server, conn: Connection) -> tuple[DriverTransaction, dict[str, DriverStatement]]:
    """The driver's transaction on ``conn`` and the statements of its database."""
    return DriverTransaction(conn, server.transaction.listeners), STATEMENTS[conn.dialect.name]
