"""A round of an operator's own wallet (seamless), on the event loop and straight through.

The money guarantees are those of :mod:`slotforge.rgs.wallets.seamless.debits` (the debit's
rollback held by the round's placeholder before the debit is sent, taken in the round's
transaction); this module takes the waiting off threads and the common case off the general path. For a round
of the plain kind (:func:`~slotforge.rgs.rounds.straight.plain`), :func:`play_at_wallet`:

1. commits the round's placeholder (status ``pending``, its balances the player's), which holds
   its debit's rollback (``wallet_status`` ``debit_pending``), the store's
   :meth:`~slotforge.rgs.store.RoundStore.hold_debit`: on SQLite one statement in a shared
   commit of the process's batched writes; on PostgreSQL one call of the PL/pgSQL function
   ``slotforge_hold_debit`` in autocommit on a write thread (one round trip, where the same
   transaction as statements was four: ``BEGIN``, the player's row locked first, so that the
   placeholder's conditions see what a request of the player's that held it committed, the
   placeholder, ``COMMIT``);
2. sends the debit on the wallets' call loop (:class:`~slotforge.rgs.wallets.seamless.client.CallLoop`,
   the server's own event loop) and awaits it, holding no thread and no transaction;
3. runs the round function on the event loop (nothing slow runs in the round's transaction);
4. commits the round: the player's balance the wallet's answer and the wins on their way to it,
   the round finished in its placeholder if that still holds the rollback (which it takes), the
   ledger's stake and win, the credit owed to the wallet in the outbox, the key stored with a
   pointer to the round (:func:`commit`, the store's
   :meth:`~slotforge.rgs.store.RoundStore.settle_at_wallet`): on SQLite five statements; on
   PostgreSQL one call of ``slotforge_settle_at_wallet`` in autocommit (as
   statements it was eight round trips: ``BEGIN``, the player's row locked first, so that the
   wins owed are read as committed, the six statements, ``COMMIT``);
5. if that transaction fails, writes the rollback due at once (a process that dies instead leaves
   it held: the next process's outbox worker writes it when it falls due);
6. sends the round's credit at once, on the event loop, as its answer goes out
   (:meth:`~slotforge.rgs.wallets.seamless.credits.Credits.credit_now`): the outbox holds it
   for longer than that attempt can take, so that the worker sends it only if the attempt failed
   or the process stopped.

Neither transaction takes the key's claim (:mod:`~slotforge.rgs.rounds.claims`): a twin of the
request, whatever process it reaches, finds the placeholder at its own first step and answers
409, and the round's transaction only touches what its own placeholder holds. Each step's
statements are conditional. When one changes nothing or the rounds table refuses its round (a
refusal: too soon, the key answered already, the rollback no longer held, or a round of the
game waiting for a decision, which the table's trigger refuses; on PostgreSQL the function's
call returns NULL, or raises :data:`~slotforge.rgs.store.postgres.REFUSED` once it has changed
something or when the trigger refuses, so that nothing of it stays) or the round is not the
common case (a debit refused or unanswered, an answer too late, a round waiting for a decision,
a round function that failed), the step is done by the general path instead
(:func:`~slotforge.rgs.rounds.debits.hold_debit`, :meth:`Server.start_round` inside
:meth:`~slotforge.rgs.rounds.once.Once.inside`), which says why or voids the round: the rare
cases keep one implementation.

The functions (their statements in ``rgs/sql``) keep the conditions of SQLite's statements
(:mod:`slotforge.rgs.store.sqlite`) exactly: a test plays the same round through both and
compares what they wrote. docs/server.md has the figures.
"""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import Connection

from slotforge.db.driver import DriverTransaction
from slotforge.engine import round as runner
from slotforge.engine.bet import Bet
from slotforge.engine.game import Game
from slotforge.rgs.money import to_minor
from slotforge.rgs.rounds import debits
from slotforge.rgs.rounds.service import Auth, Server
from slotforge.rgs.rounds.straight import answer_bytes, plain, play
from slotforge.rgs.store import Placement, Refused, WalletSettlement, latest_allowed
from slotforge.rgs.wallets.seamless.credits import wallet_message
from slotforge.rgs.wallets.seamless.debits import DebitIntent
from slotforge.rgs.wallets.seamless.players import PlayerInfo


def at_wallet(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round takes this path: a seamless player's round of the plain kind."""
    return auth.wallet == "seamless" and plain(auth, game, autoplay_id)


async def play_at_wallet(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None,
                         key: str | None, fingerprint: str) -> tuple[int, bytes]:
    """Play a seamless round (steps 1 to 5 of the module's description): ``(status, JSON answer)``."""
    stake = to_minor(bet.total_bet, "bet")
    with server.once.running(auth.player_id, key) as key:
        intent = await placed(server, auth, game, stake, key)
        if intent is not None:
            server.seamless.debits.track(intent)
        committed = False
        try:
            result = None
            if intent is not None:
                await server.seamless.debits.send_from_loop(intent)
                if intent.declined is None:
                    result = play(server, auth, game, bet, script)  # None: a malfunction, played again below
            answer = await played(server, auth, game, bet, script, key, fingerprint, intent, result)
            committed = True
            return answer
        finally:
            if intent is not None and not server.seamless.debits.done(intent, committed):
                await server.transaction.run(lambda conn: server.seamless.debits.roll_back_now(conn, intent))


async def placed(server: Server, auth: Auth, game: Game, stake: int, key: str) -> DebitIntent | None:
    """Step 1: the debit held, its round placed; None when the key's answer is stored already."""
    info = await wallet_details(server, auth)
    try:
        return await server.store.write("hold_debit", lambda transaction: hold(server, transaction, auth, game, stake,
                                                                                key, info))
    except Refused:  # the general path says why (or finds the stored answer)
        return await server.once.claimed(auth.player_id, key, lambda conn: debits.hold_debit(
            server, conn, auth, key, game.code, stake, None))


def hold(server: Server, transaction: DriverTransaction, auth: Auth, game: Game, stake: int, key: str,
         info: PlayerInfo) -> DebitIntent:
    """Step 1's transaction: the store's :meth:`~slotforge.rgs.store.RoundStore.hold_debit`, the
    placeholder that holds the new debit's rollback (:class:`~slotforge.rgs.store.Refused`,
    nothing written, if a condition of the placeholder fails)."""
    intent = server.seamless.debits.intent_for(info, auth.player_id, game.code, stake)
    round_id = server.store.hold_debit(transaction, Placement(
        player=auth.player_id, session=auth.session_id, game=game.code, currency=auth.currency,
        jurisdiction=auth.jurisdiction_name, stake=stake, now=intent.held_at,
        latest=latest_allowed(auth.jurisdiction.min_round_ms, intent.held_at), wallet_tx=intent.transaction_id,
        request_key=key))
    server.seamless.debits.placed(intent, round_id)
    return intent


async def played(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None, key: str,
                 fingerprint: str, intent: DebitIntent | None, result: runner.RoundResult | None) -> tuple[int, bytes]:
    """Step 4: the round committed; its answer."""
    common = (intent is not None and intent.declined is None and result is not None and result.complete
              and server.seamless.debits.in_time(intent))
    if common:
        try:
            answer, credit = await server.store.write("settle_at_wallet", lambda transaction: commit(
                server, transaction, auth, game, key, fingerprint, intent, result))
            server.seamless.credits.credit_now(*credit)
            return 200, answer
        except Refused:
            pass

    def general(conn: Connection, player: dict) -> tuple[int, dict]:
        # No intent: a twin's answer was stored meanwhile, which the guard answers with.
        return server.start_round(conn, player, auth, game, bet, script, None, debit=intent, result=result)

    status, body = await server.once.claimed(auth.player_id, key, lambda conn: server.once.inside(
        conn, auth.player_id, key, fingerprint, general))
    return status, orjson.dumps(body)


async def wallet_details(server: Server, auth: Auth) -> PlayerInfo:
    """The player's details for the wallet's calls: kept once read, so read only for their first
    round in the process, on the operator's lane (off the event loop, and before the write
    thread's connection is taken)."""
    info = server.seamless.players.known(auth.player_id)
    if info is not None:
        return info

    def read() -> PlayerInfo:
        with server.engine.connect() as conn:
            return server.seamless.players.player(conn, auth.player_id)

    return await server.lanes.run(auth.operator_id, read)


def commit(server: Server, transaction: DriverTransaction, auth: Auth, game: Game, key: str, fingerprint: str,
           intent: DebitIntent, result: runner.RoundResult) -> tuple[bytes, tuple[int, dict]]:
    """Step 4, for a debit taken and a round complete: the store's
    :meth:`~slotforge.rgs.store.RoundStore.settle_at_wallet`; the round's answer, and its
    credit's outbox id and row, for :meth:`~slotforge.rgs.wallets.seamless.credits.Credits.credit_now`
    (:class:`~slotforge.rgs.store.Refused`, nothing written, if a condition fails)."""
    now, win = server.now(), to_minor(result.total_win, "total_win")
    credit = wallet_message("credit", intent.transaction_id, intent.round_id, intent.player, win, game.code, now,
                            hold_ms=server.seamless.credits.handoff_ms(intent.operator))
    balance, credit_id = server.store.settle_at_wallet(transaction, WalletSettlement(
        player=auth.player_id, round_id=intent.round_id, wallet_tx=intent.transaction_id,
        reported=intent.balance, stake=intent.stake, win=win, now=now,
        latest=latest_allowed(auth.jurisdiction.min_round_ms, now), record=result.encoded.decode(), credit=credit,
        key=key, request_hash=fingerprint))
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
