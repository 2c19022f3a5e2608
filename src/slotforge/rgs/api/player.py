"""The Player API (``Authorization: Bearer <session token>``) and fun sessions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from sqlalchemy import func, insert, select, update

from slotforge.engine import round as runner
from slotforge.engine.bet import Bet, BetError
from slotforge.engine.game import Game, ScriptError
from slotforge.rgs import free
from slotforge.rgs.api import access, answers
from slotforge.rgs.api.models import AutoplayRequest, DecisionRequest, FunSessionRequest, Id, RoundRequest
from slotforge.rgs.errors import FeatureDisabled, GameNotAllowed, InvalidBet, LimitExceeded, NotFound, field_of, invalid
from slotforge.rgs.fun import FunSessions
from slotforge.rgs.jackpots.embedded import POOL_CURRENCY, has_pool
from slotforge.rgs.money import to_minor, to_signed_text, to_text
from slotforge.rgs.presentation import stake_rule
from slotforge.rgs.rounds.ahead import resume_ahead
from slotforge.rgs.rounds.at_wallet import at_wallet, play_at_wallet
from slotforge.rgs.rounds.debits import staked
from slotforge.rgs.rounds.once import check_key, request_hash
from slotforge.rgs.rounds.service import Auth, Server, server_of
from slotforge.rgs.rounds.stale import complete_stale_rounds
from slotforge.rgs.rounds.straight import play_straight, straight
from slotforge.rgs.rounds.views import iso, round_view
from slotforge.rgs.schema import autoplays, carried_state, rounds
from slotforge.rgs.wallets.seamless.debits import DebitIntent

router = APIRouter(prefix="/v1")
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key", description="required on every POST")]


async def player(request: Request, authorization: Annotated[str | None, Header()] = None) -> Auth:
    """The request's session (see :func:`~slotforge.rgs.api.access.session_of`)."""
    return await access.session_of(server_of(request), authorization)


Player = Annotated[Auth, Depends(player)]


def answer(status: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, status_code=status)


def parse_bet(game: Game, raw: dict[str, Any]) -> Bet:
    try:
        return game.parse_bet(raw)
    except BetError as error:
        raise invalid(field_of(str(error)) or "bet", str(error), InvalidBet) from error


def check_stake(auth: Auth, bet: Bet) -> None:
    """Refuse what the jurisdiction or the currency does not allow, before anything is taken."""
    limit = auth.jurisdiction.max_stake
    if limit is not None and bet.total_bet > limit:
        raise LimitExceeded(f"bet: the total bet {bet.total_bet} is above the limit {limit}", field="bet")
    try:
        to_minor(bet.total_bet, "bet")
    except ValueError as error:
        raise invalid("bet", str(error), InvalidBet) from error


def check_pool(server: Server, auth: Auth, game: Game) -> None:
    """A real-money round of a jackpot game: the pool's currency rate known, the pool reachable."""
    if has_pool(game) and not auth.fun:
        server.pool_rate(auth.currency)  # 403 GAME_NOT_ALLOWED for a currency without a rate
        server.jackpots.check(game)  # 503 JACKPOT_UNAVAILABLE while the pool cannot be reached


@router.get("/health", response_model=None, responses=answers.HEALTH)
async def health(request: Request) -> dict[str, Any]:
    """The server serves; ``ready`` once every game offered is playable, and each game's state
    (``compiling`` on a first start, ``ready``: see ``slotforge serve``)."""
    warmup = server_of(request).warmup
    return {"status": "ok", "ready": warmup.all_ready(), "games": warmup.status()}


@router.post("/fun-sessions", response_model=None, responses=answers.FUN_SESSION)
def fun_session(body: FunSessionRequest, request: Request) -> dict[str, Any]:
    """A session with play money; fun rounds never touch real books or jackpot pools. Rationed
    per client address (429 ``RATE_LIMITED``); idle fun players are swept away."""
    server = server_of(request)
    if body.currency not in server.settings.currencies:
        raise invalid("currency", f"currency: expected one of {server.settings.currencies}, got {body.currency}")
    rations: FunSessions = request.app.state.fun_sessions
    rations.admit(request.client.host if request.client else "unknown")
    rations.sweep_if_due()
    now = server.now()
    with server.transaction() as conn:
        player_id = access.fun_player(conn, body.currency, to_minor(server.settings.fun_balance), now)
        token = access.open_session(conn, player_id, "default", None, now)
    return {"token": token, "expires_at": iso(now + access.session_timeout_ms(server, "default")),
            "balance": to_text(to_minor(server.settings.fun_balance))}


@router.get("/session", response_model=None, responses=answers.SESSION)
def session(auth: Player, request: Request) -> dict[str, Any]:
    """The player, balance, jurisdiction rules, the games and their bets, any open rounds, the
    state carried between rounds of the games that keep one (Moon of Fortune's stickies), and the
    free rounds the operator granted to play or to answer."""
    server = server_of(request)
    complete_stale_rounds(server, auth.player_id)
    now = server.now()
    with server.engine.connect() as conn:
        balance = server.wallet.balance(conn, auth.player_id)
        open_rounds = conn.execute(select(rounds).where(
            rounds.c.player_id == auth.player_id, rounds.c.status == "awaiting")).mappings().all()
        net = conn.execute(select(func.coalesce(func.sum(rounds.c.win - rounds.c.stake), 0)).where(
            rounds.c.session_id == auth.session_id, rounds.c.status == "complete")).scalar_one()
        carried = conn.execute(select(carried_state.c.game, carried_state.c.state).where(
            carried_state.c.player_id == auth.player_id)).all()
        free_rounds = free.offered(conn, auth.player_id, auth.currency, auth.fun, now)
    return {
        "player": auth.player_id,
        "currency": auth.currency,
        "mode": "fun" if auth.fun else "real",
        "balance": to_text(balance),  # seamless: the last balance the operator's wallet reported
        "wallet": auth.wallet,
        "jurisdiction": {"name": auth.jurisdiction_name, **json.loads(auth.jurisdiction.model_dump_json())},
        "games": [describe_game(server.game(code, auth)) for code in server.games],
        "open_rounds": [round_view(row) for row in open_rounds],
        "net_position": to_signed_text(int(net)),
        "elapsed_s": (now - auth.started_at) // 1000,
        "carried_state": {game: json.loads(state) for game, state in carried if game in server.games},
        "free_rounds": free_rounds,
    }


def describe_game(game: Game) -> dict[str, Any]:
    return {"code": game.code, "name": game.spec.name, "model": game.model_id, **game.published_rtp(),
            "bet": game.spec.bet, "decisions": {d.name: list(d.options) for d in game.decisions},
            "jackpot": has_pool(game), "stake_rule": stake_rule(game)}


@router.post("/rounds", response_model=None, responses=answers.PLAY_ROUND)
async def play_round(body: RoundRequest, auth: Player, request: Request, key: IdempotencyKey = None) -> Response:
    """Take the stake and play a round; a round that waits for a decision stays open."""
    return await answer_round(server_of(request), auth, body, request.url.path, key)


@dataclass(frozen=True)
class Asked:
    """A round request, checked: what nothing but the request and the settings decide."""

    game: Game
    bet: Bet
    script: runner.Script | None
    fingerprint: str


async def answer_round(server: Server, auth: Auth, body: RoundRequest, path: str, key: str | None) -> Response:
    """The round a player asked for: a straight one on the event loop (its transaction batched
    or in a thread), a plain one at an operator's wallet likewise, any other in its operator's
    lane (the straight path answers the committed round's bytes as they are; the others a JSON
    body)."""
    if body.free_round is not None:
        return await server.lanes.run(auth.operator_id, lambda: play_free(server, auth, body, path, key))
    asked = ask(server, auth, body, path)
    if straight(auth, asked.game, body.autoplay):
        played = await play_straight(server, auth, asked.game, asked.bet, asked.script, key, asked.fingerprint)
        if played is not None:
            return Response(played[1], status_code=played[0], media_type="application/json")
    if at_wallet(auth, asked.game, body.autoplay):
        status, played_at_wallet = await play_at_wallet(server, auth, asked.game, asked.bet, asked.script, key,
                                                        asked.fingerprint)
        return Response(played_at_wallet, status_code=status, media_type="application/json")
    return await server.lanes.run(auth.operator_id, lambda: play_general(server, auth, body, asked, key))


def ask(server: Server, auth: Auth, body: RoundRequest, path: str) -> Asked:
    """Check a round request against the game, the jurisdiction and the currency, without the
    database or the network (it runs on the event loop)."""
    game = server.playable(body.game, auth)
    if body.script is not None and not (auth.fun and server.settings.qa):
        raise FeatureDisabled("script: forced outcomes only in fun sessions of a --qa server", field="script")
    if body.autoplay is not None and not auth.jurisdiction.autoplay.allowed:
        raise FeatureDisabled("autoplay: not allowed in this jurisdiction", field="autoplay")
    bet = parse_bet(game, body.bet)
    check_stake(auth, bet)
    script = None
    if body.script is not None:
        try:
            script = runner.parse_script(game, {**body.script, "bet": bet.as_json()})  # the stake is the bet's
        except (ScriptError, BetError) as error:
            raise invalid(f"script.{field_of(str(error)) or ''}".rstrip("."), f"script.{error}") from error
    return Asked(game, bet, script, request_hash(path, body.model_dump(mode="json")))


def play_general(server: Server, auth: Auth, body: RoundRequest, asked: Asked, key: str | None) -> JSONResponse:
    """Any round on the general path (in the operator's lane: it may wait on the database, a
    seamless wallet or a jackpot service)."""
    check_pool(server, auth, asked.game)
    if body.autoplay is not None:
        check_plan(server, auth, body.autoplay, asked.game, asked.bet)

    def run(debit: DebitIntent | None) -> tuple[int, dict[str, Any]]:
        return server.once.run(auth.player_id, key, asked.fingerprint, lambda conn, row: server.start_round(
            conn, row, auth, asked.game, asked.bet, asked.script, body.autoplay, debit=debit))

    return answer(*staked(server, auth, key, asked.game.code, asked.bet.total_bet, body.autoplay, run))


def play_free(server: Server, auth: Auth, body: RoundRequest, path: str, key: str | None) -> JSONResponse:
    """A round request naming a free-round grant: the campaign's game and bet, no stake from the
    balance, on the general path (in the operator's lane), the grant's round spent in the round's
    transaction."""
    check_key(key)
    if body.autoplay is not None or body.script is not None:
        field = "autoplay" if body.autoplay is not None else "script"
        raise FeatureDisabled(f"{field}: not with free rounds", field=field)
    game = server.playable(body.game, auth)
    with server.engine.connect() as conn:
        row, campaign = free.player_grant(conn, body.free_round, auth.player_id)
    if game.code not in campaign.games:
        raise GameNotAllowed(f"game: free rounds {row['id']} are played on {campaign.games}, got {game.code}",
                             field="game")
    bet = free.parse_free_bet(game, auth.currency, campaign.bets[auth.currency])
    if body.bet and parse_bet(game, body.bet).as_json() != bet.as_json():
        raise invalid("bet", f"bet: free rounds {row['id']} play the campaign's bet {bet.as_json()}, got {body.bet}")
    check_stake(auth, bet)
    if campaign.jackpot_eligible:
        check_pool(server, auth, game)
    fingerprint = request_hash(path, body.model_dump(mode="json"))
    chosen = free.FreeRound(row["id"], campaign)
    status, answer = server.once.run(auth.player_id, key, fingerprint, lambda conn, player: server.start_round(
        conn, player, auth, game, bet, None, None, free=chosen))
    return JSONResponse(answer, status_code=status)


@router.post("/rounds/{round_id}/decisions", response_model=None, responses=answers.DECIDE)
async def decide(round_id: Id, body: DecisionRequest, auth: Player, request: Request,
                 key: IdempotencyKey = None) -> JSONResponse:
    """Resume the open round with the player's choice (in its operator's lane)."""
    server = server_of(request)
    fingerprint = request_hash(request.url.path, body.model_dump(mode="json"))

    def work() -> JSONResponse:
        check_key(key)  # no claim at a jackpot service for a request refused anyway
        ahead = resume_ahead(server, auth.player_id, round_id, body.choice)
        return answer(*server.once.run(auth.player_id, key, fingerprint,
                                       lambda conn, row: server.decide(conn, auth, round_id, body.choice, ahead)))

    return await server.lanes.run(auth.operator_id, work)


@router.get("/rounds", response_model=None, responses=answers.RECALL)
def recall(auth: Player, request: Request, limit: Annotated[int, Query(ge=1, le=100)] = 10,
           before: Annotated[Id | None, Query()] = None) -> dict[str, Any]:
    """The player's rounds, newest first, each with its full record."""
    if auth.fun:
        raise FeatureDisabled("history is not available when playing for fun")
    server = server_of(request)
    allowed = auth.jurisdiction.recall_rounds
    with server.engine.connect() as conn:
        # Recall reaches back over the jurisdiction's last N rounds, whatever the page. A seamless
        # round whose debit is still at the wallet is not played yet: it shows once it is (or is void).
        newest = (select(rounds.c.id).where(rounds.c.player_id == auth.player_id, rounds.c.status != "pending")
                  .order_by(rounds.c.id.desc()))
        window = [row.id for row in conn.execute(newest.limit(allowed))]
        query = select(rounds).where(rounds.c.player_id == auth.player_id, rounds.c.id.in_(window or [0]))
        if before is not None:
            query = query.where(rounds.c.id < before)
        rows = conn.execute(query.order_by(rounds.c.id.desc()).limit(limit)).mappings().all()
    return {"rounds": [round_view(row) for row in rows]}


@router.get("/rounds/{round_id}", response_model=None, responses=answers.ONE_ROUND)
def one_round(round_id: Id, auth: Player, request: Request) -> dict[str, Any]:
    """One round's record and whether replaying its inputs gives the same record."""
    server = server_of(request)
    with server.engine.connect() as conn:
        row = server.player_round(conn, auth.player_id, round_id)
    return {"round": round_view(row), "verified": verify(server, row)}


def verify(server: Server, row: dict[str, Any]) -> bool | None:
    """Replay a stored round: True on a match; None for a void round (nothing was played)."""
    record = json.loads(row["record"])
    if "inputs" not in record:
        return None
    game = server.games.that_played(row["game"], record)
    if game is None or record.get("model") != game.model_id:
        return False
    server.playable(game.code)  # 503 while its round function is still being compiled
    try:
        matches, _ = runner.replay(game, record)
    except (ScriptError, BetError):
        return False
    return matches


@router.post("/autoplay", response_model=None, responses=answers.START_AUTOPLAY)
def start_autoplay(body: AutoplayRequest, auth: Player, request: Request, key: IdempotencyKey = None) -> JSONResponse:
    """An autoplay plan for this session; rounds played with its id count against it."""
    server = server_of(request)
    rules = auth.jurisdiction.autoplay
    if not rules.allowed:
        raise FeatureDisabled("autoplay: not allowed in this jurisdiction", field="autoplay")
    if body.rounds > rules.max_rounds:
        raise LimitExceeded(f"rounds: at most {rules.max_rounds} in this jurisdiction", field="rounds")
    if rules.loss_limit_required and body.cash_decrease is None:
        raise invalid("cash_decrease", "cash_decrease: a loss limit is required in this jurisdiction")
    for name in ("single_win_at_least", "cash_increase", "cash_decrease"):
        value = getattr(body, name)
        if value is not None and Decimal(value) <= 0:
            raise invalid(name, f"{name}: expected an amount above zero, got {value}")
    game = server.game(body.game, auth)
    check_stake(auth, parse_bet(game, body.bet))
    check_pool(server, auth, game)
    plan = body.model_dump(mode="json")

    def work(conn, row):
        plan_id = conn.execute(insert(autoplays).values(
            session_id=auth.session_id, plan=json.dumps(plan), played=0, net=0, created_at=server.now(),
        ).returning(autoplays.c.id)).scalar_one()
        return 200, plan_view(plan_id, plan, 0, 0, None)

    return answer(*server.once.run(auth.player_id, key, request_hash(request.url.path, plan), work))


def plan_view(plan_id: int, plan: dict[str, Any], played: int, net: int, stopped: str | None) -> dict[str, Any]:
    return {"id": plan_id, **plan, "played": played, "net": to_signed_text(net),
            "stopped": stopped}


def own_plan(server: Server, auth: Auth, plan_id: int) -> dict[str, Any]:
    with server.engine.connect() as conn:
        row = conn.execute(select(autoplays).where(autoplays.c.id == plan_id)).mappings().first()
    if row is None or row["session_id"] != auth.session_id:
        raise NotFound(f"autoplay {plan_id} not found")
    return dict(row)


def check_plan(server: Server, auth: Auth, plan_id: int, game: Game, bet: Bet) -> None:
    """A round counted against an autoplay plan plays the plan's game at the plan's bet: its loss
    limit and win conditions were agreed for that stake, and a bigger one would step past them
    (422 naming ``game`` or ``bet``; 404 for a plan of another session)."""
    plan = json.loads(own_plan(server, auth, plan_id)["plan"])
    if plan["game"] != game.code:
        raise invalid("game", f"game: autoplay {plan_id} plays {plan['game']}, got {game.code}")
    planned = parse_bet(game, plan["bet"]).as_json()  # checked when the plan was made
    if planned != bet.as_json():
        raise invalid("bet", f"bet: autoplay {plan_id} plays the bet {planned}, got {bet.as_json()}")


@router.get("/autoplay/{plan_id}", response_model=None, responses=answers.AUTOPLAY)
def get_autoplay(plan_id: Id, auth: Player, request: Request) -> dict[str, Any]:
    row = own_plan(server_of(request), auth, plan_id)
    return plan_view(row["id"], json.loads(row["plan"]), row["played"], row["net"], row["stopped"])


@router.delete("/autoplay/{plan_id}", response_model=None, responses=answers.AUTOPLAY)
def stop_autoplay(plan_id: Id, auth: Player, request: Request) -> dict[str, Any]:
    """Stop a plan; the round in play finishes as it is."""
    server = server_of(request)
    row = own_plan(server, auth, plan_id)
    with server.transaction() as conn:
        conn.execute(update(autoplays).where(autoplays.c.id == plan_id, autoplays.c.stopped.is_(None))
                     .values(stopped="player"))
    return plan_view(row["id"], json.loads(row["plan"]), row["played"], row["net"], row["stopped"] or "player")


@router.get("/jackpots", response_model=None, responses=answers.JACKPOTS)
def jackpots(auth: Player, request: Request) -> dict[str, Any]:
    """The current values of the pools the player's games use."""
    server = server_of(request)
    with server.engine.connect() as conn:
        pools = [{"game": game.code, "currency": POOL_CURRENCY,
                  "current": str(server.jackpots.state(conn, game).display)}
                 for game in server.games.values() if has_pool(game)]
    return {"pools": pools}


@router.get("/jackpots/stream", response_class=StreamingResponse, responses=answers.JACKPOT_STREAM)
def jackpot_stream(request: Request, authorization: Annotated[str | None, Header()] = None,
                   token: Annotated[str | None, Query(description="the session token, for clients that cannot "
                                                      "set headers (EventSource)")] = None) -> StreamingResponse:
    """Server-sent events: ``values`` (the pools' current values) every second, ``win`` as each
    jackpot is won."""
    access.authenticate(server_of(request), authorization or (f"Bearer {token}" if token else None))
    return StreamingResponse(request.app.state.jackpot_hub.events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
