"""The round service: a round's stake, play, win, ledger entries and jackpot share in one transaction.

Every state-changing request of a player runs through the twin guard
(:class:`~slotforge.rgs.rounds.once.Once`): its idempotency key is claimed (a twin running in
any process answers 409), the player's row is locked (SQLite: the database's write lock, taken
at ``BEGIN IMMEDIATE``), the idempotency key is looked up, the work is done and its answer
stored with the key, all in one transaction. A crash before the commit leaves nothing; after
it, the retry gets the stored answer. What the round does to the books is the store's
(:mod:`slotforge.rgs.store`).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import orjson
from sqlalchemy import Connection, Engine

from slotforge.db import Writer
from slotforge.engine import round as runner
from slotforge.engine.bet import Bet, BetError
from slotforge.engine.game import Game, Operator, ScriptError
from slotforge.games.warmup import Warmup
from slotforge.jackpot import Claim
from slotforge.rgs import free as free_rounds
from slotforge.rgs.errors import (
    GameNotAllowed,
    GameWarmingUp,
    InvalidBet,
    InvalidChoice,
    field_of,
    invalid,
    not_found,
)
from slotforge.rgs.jackpots.embedded import POOL_CURRENCY, EmbeddedJackpots, Jackpots, has_pool
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.offer import Offer
from slotforge.rgs.outbox import Outbox
from slotforge.rgs.rounds import gamble_cap, rules
from slotforge.rgs.rounds.claims import in_progress
from slotforge.rgs.rounds.declined import declined
from slotforge.rgs.rounds.lanes import Lanes
from slotforge.rgs.rounds.once import Once
from slotforge.rgs.rounds.resumed import Resumed, play_on
from slotforge.rgs.rounds.views import round_answer
from slotforge.rgs.settings import Jurisdiction, Settings
from slotforge.rgs.store import store_for
from slotforge.rgs.wallets.internal import InternalWallet, Wallet
from slotforge.rgs.wallets.seamless import SeamlessWallet
from slotforge.rgs.wallets.seamless.debits import DebitIntent

log = logging.getLogger("slotforge.rgs")

WARMING_RETRY_S = 5  # what a request for a game still compiling is told to wait


@dataclass(frozen=True)
class Auth:
    """An authenticated player session."""

    session_id: int
    player_id: int
    fun: bool
    currency: str
    jurisdiction_name: str
    jurisdiction: Jurisdiction
    started_at: int
    wallet: str = "internal"  # where the player's money is: internal, or seamless (the operator's)
    operator_id: int | None = None  # whose player (None: a fun player); the lane its rounds run in


class Server:
    """Everything a request needs: settings, database, games, wallet, jackpots and the clock."""

    def __init__(self, settings: Settings, engine: Engine, games: Mapping[str, Game], *,
                 wallet: Wallet | None = None, jackpots: Jackpots | None = None,
                 clock: Callable[[], float] = time.time, warmup: Warmup | None = None) -> None:
        self.settings = settings
        self.engine = engine
        # Every game offered, playable or still warming up, and the RTP version each player plays.
        self.games = games if isinstance(games, Offer) else Offer.of(games, settings)
        # Which games' round functions are loaded (all of them, unless they are compiled in the background).
        self.warmup = warmup or Warmup(list(games), loaded=games)
        self.wallet: Wallet = wallet or InternalWallet()
        self.jackpots: Jackpots = jackpots or EmbeddedJackpots()
        self.clock = clock
        # Write transactions (group commit on SQLite): ``with server.transaction() as conn``.
        self.transaction = Writer(engine)
        # What a round does to the books, on this database (the only place of a round's SQL).
        self.store = store_for(self.transaction, settings.fault_at)
        # The one guard of every request that takes an Idempotency-Key (twins answer once).
        self.once = Once(engine, self.transaction, self.store, self.now)
        # What the rounds owe other systems (a seamless wallet, a jackpot service), delivered
        # by a worker thread; the wallet and jackpots that need it register their receivers.
        self.outbox = Outbox(engine, self.transaction, clock)
        # The operators' own wallets, called over HTTP (their receiver registered with the outbox).
        self.seamless = SeamlessWallet(settings, engine, self.outbox, self.now, self.transaction)
        # Each operator's rounds in a lane of their own (see :mod:`slotforge.rgs.rounds.lanes`).
        self.lanes = Lanes(settings.rounds_in_flight)
        # Sessions read lately: token hash -> (session, when read); see :func:`slotforge.rgs.api.access.cached`.
        self.sessions: dict[str, tuple[Auth, int]] = {}

    def now(self) -> int:
        return int(self.clock() * 1000)

    def game(self, code: str, auth: Auth | None = None) -> Game:
        """Game ``code`` as offered: in the RTP version that ``auth``'s session plays (by its
        jurisdiction and currency), else as offered by default."""
        if code not in self.games:
            raise GameNotAllowed(f"game: {code!r} is not offered; expected one of "
                                 f"{sorted(self.games)}", field="game")
        if auth is None:
            return self.games[code]
        return self.games.for_player(code, auth.jurisdiction_name, auth.currency)

    def playable(self, code: str, auth: Auth | None = None) -> Game:
        """A game offered whose round function is ready; 503 ``GAME_WARMING_UP`` while it is still
        being compiled (with ``Retry-After``), never a request that hangs on the compiler."""
        game = self.game(code, auth)
        if not self.warmup.ready(code):
            state = self.warmup.status()[code]
            ready, offered = self.warmup.counts()
            raise GameWarmingUp(f"game: {code} is {state['state']} (its round function is "
                                f"compiled on the server's first start; {ready} of {offered} games ready); try again "
                                "shortly", field="game", retry_after_s=WARMING_RETRY_S,
                                warmup=state)
        return game

    def played(self, row: Mapping[str, Any]) -> Game:
        """The version of its game that played the round ``row`` (named by its record)."""
        game = self.games.that_played(row["game"], json.loads(row["record"]))
        if game is None:
            raise GameNotAllowed(f"game: {row['game']!r} is not offered here", field="game")
        return game

    def pool_rate(self, currency: str) -> Decimal:
        """EUR per unit of ``currency`` for the jackpot pools (the operator's table)."""
        rate = self.settings.jackpot_rate(currency)
        if rate is None:
            raise GameNotAllowed(f"game: jackpot pools are kept in {POOL_CURRENCY} and the "
                                 f"operator's rate table has no rate for {currency}", field="game")
        return rate

    def operator_settings(self, auth: Auth, game: Game, gamble: bool = True) -> Operator:
        """What the operator sets for a round of ``game``: the gamble limit (lowered to a cap the
        game's rules set in a currency of their own, converted) and whether it is fun play.
        ``gamble`` False: no gamble offered (a free round whose campaign does not allow it)."""
        limit = self.settings.gamble_limit if auth.jurisdiction.gamble and gamble else Decimal(0)
        limit = gamble_cap.gamble_limit(game, limit, auth.currency, self.settings.jackpot_rate, auth.fun)
        return Operator(gamble_limit=limit, fun_play=auth.fun)

    # -- the wallet -----------------------------------------------------------------------------
    def wallet_of(self, row: dict[str, Any]) -> Wallet:
        """The wallet that holds a round's money: the operator's once its debit was taken there."""
        return self.seamless if row.get("wallet_tx") else self.wallet

    def take_stake(self, conn: Connection, row: dict[str, Any], debit: DebitIntent | None, now: int,
                   free: free_rounds.FreeRound | None = None) -> None:
        """Debit the round's stake (a seamless debit was taken already: it is recorded); a free
        round's is the operator's promotional money, booked without moving the balance."""
        if free is not None:
            free_rounds.book_stake(conn, row, now)
            return
        wallet = self.wallet if debit is None else self.seamless
        reference = None if debit is None else debit.transaction_id
        row["balance_after"] = wallet.debit(conn, row["player_id"], "stake", row["stake"], round_id=row["id"],
                                            reference=reference, now=now)
        row["wallet_tx"] = reference

    # -- rounds ---------------------------------------------------------------------------------
    def start_round(self, conn: Connection, player: dict[str, Any], auth: Auth, game: Game, bet: Bet,
                    script: runner.Script | None, autoplay_id: int | None, debit: DebitIntent | None = None,
                    result: runner.RoundResult | None = None,
                    free: free_rounds.FreeRound | None = None) -> tuple[int, dict[str, Any]]:
        """Take the stake and play a new round (it stays open if it waits for a decision).
        ``debit``: a seamless wallet's debit, sent already (:func:`~slotforge.rgs.rounds.debits.staked`);
        ``result``: the round function's, when it was played before the transaction (a game that
        carries no state); ``free``: a free round's grant, whose round is spent in this transaction."""
        if debit is None and free is None and auth.wallet == "seamless":  # the twin of a request that ran meanwhile
            raise in_progress()
        now = self.now()
        rules.refuse_open_round(self.store, conn, auth.player_id, game.code)
        rules.refuse_too_soon(player, auth.jurisdiction, now)
        stake = to_minor(bet.total_bet, "bet")
        if free is not None:  # no round left, or the campaign over: nothing of the round is written
            free_rounds.take_round(conn, free.grant_id, auth.player_id, now)
            # A free round stakes nothing of the player's; a time-out or the session's time limit stops it too.
            rules.refuse_past_own_limits(conn, auth.jurisdiction, auth.fun, auth.player_id, auth.started_at, 0, now)
        elif debit is None:  # a seamless wallet answers for itself; its round's limits were checked before its debit
            rules.refuse_short_balance(player["balance"], stake)
            rules.refuse_past_own_limits(conn, auth.jurisdiction, auth.fun, auth.player_id, auth.started_at, stake,
                                         now)
        if autoplay_id is not None:
            rules.refuse_stopped_autoplay(self.store, conn, auth.session_id, autoplay_id)
        state = self.carried_state(conn, auth.player_id, game) if carries_state(game) else {}
        row = dict(player_id=auth.player_id, session_id=auth.session_id, game=game.code, fun=auth.fun,
                   currency=auth.currency, jurisdiction=auth.jurisdiction_name, stake=stake, win=0, jackpot_win=0,
                   balance_before=player["balance"], balance_after=player["balance"] - stake,
                   autoplay_id=autoplay_id, started_at=now, finished_at=None, void_reason=None)
        if free is not None:
            row.update(free_grant_id=free.grant_id, free_campaign=free.campaign.reference,
                       balance_after=player["balance"])
            if auth.wallet == "seamless":  # its win is owed to the wallet as a promotional credit
                row["wallet_tx"] = free_rounds.wallet_transaction()
        if debit is not None:  # the round's placeholder, sent with the debit
            row.update(id=debit.round_id, wallet_tx=debit.transaction_id)
            refused = self.seamless.debits.keep(conn, debit)
            if refused is not None:
                return declined(self.seamless.debits, self.store, conn, row, debit, refused, now)
            row.update(balance_before=debit.shown + stake, balance_after=debit.shown)  # as the wallet's answer implies
        self.store.touch_player(conn, auth.player_id, now)
        try:
            if result is None:
                gamble = free is None or free.gamble_allowed()
                result = runner.play_round(game, bet, script=script,
                                           operator=self.operator_settings(auth, game, gamble), state=state)
        except (ScriptError, BetError) as error:
            raise invalid(field_of(str(error)) or "script", str(error), InvalidBet) from error
        except Exception:
            log.exception("malfunction: %s round of player %s", game.code, auth.player_id)
            self.insert_round(conn, row, orjson.dumps({"game": game.code, "bet": bet.as_json(), "status": "void"}))
            self.take_stake(conn, row, debit, now, free)
            return self.void(conn, row, "malfunction: the round function failed", now)
        self.insert_round(conn, row, result.encoded, awaiting=not result.complete)
        self.take_stake(conn, row, debit, now, free)
        if has_pool(game) and not auth.fun and (free is None or free.jackpot_open()):
            self.jackpots.contribute(conn, game, row["id"], bet.total_bet, now, rate=self.pool_rate(auth.currency),
                                     currency=auth.currency)
        if result.complete:
            self.finish(conn, game, row, result, now, state)
        return 200, round_answer(row)

    def decide(self, conn: Connection, auth: Auth, round_id: int, choice: str,
               ahead: Resumed | None = None) -> tuple[int, dict[str, Any]]:
        """Resume an open round with the player's choice. ``ahead``: the round resumed before this
        transaction (:func:`~slotforge.rgs.rounds.ahead.resume_ahead`), used if the round is still as it was then."""
        row = self.player_round(conn, auth.player_id, round_id)
        if row["status"] != "awaiting":
            raise invalid("choice", f"choice: round {round_id} is {row['status']} and waits for no choice",
                          InvalidChoice)
        self.playable(row["game"])
        game = self.played(row)
        if ahead is not None:
            return self.continue_round(conn, game, row, *ahead.on(row))
        waiting = runner.RoundResult.of(json.loads(row["record"]))
        gamble_cap.refuse_gamble_start(game, waiting.decision, choice, auth.currency, self.settings.jackpot_rate,
                                       auth.fun)
        try:
            result = play_on(game, waiting, choice)
        except ScriptError as error:
            raise invalid("choice", f"choice: {error}", InvalidChoice) from error
        except Exception:
            log.exception("malfunction: resuming round %s", round_id)
            return self.void(conn, row, "malfunction: the round function failed", self.now())
        return self.continue_round(conn, game, row, result)

    def continue_round(self, conn: Connection, game: Game, row: dict[str, Any], result: runner.RoundResult,
                       claim: Claim | None = None) -> tuple[int, dict[str, Any]]:
        """Store a resumed round's record; pay it if it is complete now (``claim``: its jackpot's
        claim made outside the transaction, see :func:`~slotforge.rgs.rounds.ahead.resume_ahead`)."""
        if result.complete:
            self.finish(conn, game, row, result, self.now(), claim=claim)
        else:
            row["record"] = result.encoded.decode()
            self.store.record_decision(conn, row["id"], row["record"])
        return 200, round_answer(row)

    def finish(self, conn: Connection, game: Game, row: dict[str, Any], result: runner.RoundResult, now: int,
               state_before: dict[str, Any] | None = None, claim: Claim | None = None) -> None:
        """Pay a completed round (the progressive jackpot inside its win), keep its carried state.
        ``row`` is the round's row as it stands; it is brought up to date. ``state_before``, when
        known, spares writing carried state that did not change. ``claim``: the jackpot's claim
        made outside the transaction (:func:`~slotforge.rgs.rounds.ahead.resume_ahead`)."""
        jackpot = 0
        campaign = free_rounds.campaign_of_grant(conn, row["free_grant_id"]) if free_rounds.is_free(row) else None
        promotion = {"promotion": row["free_campaign"]} if campaign is not None and row.get("wallet_tx") else {}
        # Play money never claims a real pool, nor a free round of a campaign that keeps it closed.
        if result.progressive_won and not row["fun"] and (campaign is None or campaign.jackpot_eligible):
            won = self.jackpots.claim(conn, game, row["id"], now, rate=self.pool_rate(row["currency"]),
                                      currency=row["currency"], made=claim)
            jackpot = to_minor(won.payout, "jackpot")  # in the player's currency, at the claim's rate
        win = to_minor(result.total_win, "total_win") + jackpot
        balance = self.wallet_of(row).credit(conn, row["player_id"], "win", win, round_id=row["id"], now=now,
                                             **promotion)
        row.update(status="complete", win=win, jackpot_win=jackpot, balance_after=balance, finished_at=now,
                   record=result.encoded.decode())
        if row.get("wallet_tx"):
            row["wallet_status"] = "credit_pending"
        self.store.finish_round(conn, row)
        if carries_state(game) and result.state != state_before:
            self.keep_state(conn, row["player_id"], game.code, result.state)
        if row["autoplay_id"] is not None:
            self.count_autoplay(conn, row["autoplay_id"], row["stake"], win, result.feature_played)

    def void(self, conn: Connection, row: dict[str, Any], reason: str, now: int) -> tuple[int, dict[str, Any]]:
        """Malfunction: refund the stake, mark the round void (in the caller's transaction). A free
        round's stake goes back to the operator and its round to the grant; nothing is owed to a
        seamless wallet, which never saw a debit."""
        if free_rounds.is_free(row):
            free_rounds.book_void(conn, row, now)
            balance = self.wallet_of(row).balance(conn, row["player_id"])  # other games may have moved it since
        else:
            balance = self.wallet_of(row).credit(conn, row["player_id"], "refund", row["stake"], round_id=row["id"],
                                                 now=now)
        row.update(status="void", void_reason=reason, balance_after=balance, finished_at=now)
        if row.get("wallet_tx") and not free_rounds.is_free(row):
            row["wallet_status"] = "rollback_pending"
        self.store.void_round(conn, row["id"], status="void", void_reason=reason, balance_after=balance,
                              finished_at=now)
        return 500, {"error": "MALFUNCTION", "message": "the round failed; it is void and the stake is refunded",
                     "refunded": True, "round": row["id"], "balance": to_text(balance)}

    def insert_round(self, conn: Connection, row: dict[str, Any], record: bytes, awaiting: bool = False) -> None:
        """Insert the round ``row`` describes with its ``record`` (JSON); ``row`` gains its id,
        status and record. A seamless round's placeholder (``row`` has its id) becomes the round."""
        row.update(status="awaiting" if awaiting else "open", record=record.decode())
        self.store.insert_round(conn, row)

    # -- carried state and autoplay -------------------------------------------------------------
    def carried_state(self, conn: Connection, player_id: int, game: Game) -> dict[str, Any]:
        return self.store.carried_state(conn, player_id, game.code)

    def keep_state(self, conn: Connection, player_id: int, game: str, state: dict[str, Any]) -> None:
        self.store.keep_state(conn, player_id, game, state)

    def count_autoplay(self, conn: Connection, autoplay_id: int, stake: int, win: int, feature_played: bool) -> None:
        """Count a finished round against its autoplay plan and stop the plan on its conditions."""
        plan = self.store.autoplay(conn, autoplay_id)
        played, net = plan["played"] + 1, plan["net"] + win - stake
        reason = rules.autoplay_stop(json.loads(plan["plan"]), played, net, win, feature_played)
        self.store.count_autoplay(conn, autoplay_id, played, net, plan["stopped"] or reason)

    # -- reading --------------------------------------------------------------------------------
    def player_round(self, conn: Connection, player_id: int, round_id: int) -> dict[str, Any]:
        row = self.store.round_of(conn, round_id, player_id)
        if row is None:
            raise not_found(f"round {round_id}")
        return row

def carries_state(game: Game) -> bool:
    """Whether the game carries state between a player's rounds (as its capabilities declare)."""
    return game.capabilities.carries_state


def server_of(request: Any) -> Server:
    """The server a request's app serves."""
    return request.app.state.server
