"""Free rounds over HTTP: the operator's campaigns and grants (``/v1/operator/free-rounds``) and
the player's free rounds (``/v1/free-rounds``; a round request names one with ``free_round``).
The rules are :mod:`slotforge.rgs.free`'s."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Connection, select

from slotforge.engine.game import Game
from slotforge.rgs import free
from slotforge.rgs.api import access, answers
from slotforge.rgs.api.callers import CanGrantFreeRounds, CanReadCampaigns
from slotforge.rgs.api.models import (
    CampaignRequest,
    Code,
    GrantedPlayer,
    GrantRequest,
    Id,
    OfferAnswer,
    millis,
)
from slotforge.rgs.api.player import IdempotencyKey, Player
from slotforge.rgs.compliance import changes
from slotforge.rgs.errors import DomainError, GameNotAllowed, LimitExceeded, invalid
from slotforge.rgs.money import to_text
from slotforge.rgs.rounds.once import request_hash
from slotforge.rgs.rounds.service import Server, server_of
from slotforge.rgs.rounds.views import iso
from slotforge.rgs.schema import free_campaigns

operator = APIRouter(prefix="/v1/operator/free-rounds")
router = APIRouter(prefix="/v1")
PAGE = 100  # campaigns listed at most


# -- the operator's campaigns ---------------------------------------------------------------------
def campaign_view(server: Server, campaign: free.Campaign, now: int) -> dict[str, Any]:
    return {
        "reference": campaign.reference, "name": campaign.name, "games": campaign.games, "bets": campaign.bets,
        "stakes": {currency: {code: to_text(free.stake_of(server.games[code], campaign, currency))
                              for code in campaign.games if code in server.games} for currency in campaign.bets},
        "rounds": campaign.rounds, "valid_from": iso(campaign.valid_from), "valid_until": iso(campaign.valid_until),
        "player_cap": campaign.player_cap, "allow_gamble": campaign.allow_gamble,
        "jackpot_eligible": campaign.jackpot_eligible, "state": campaign.state(now),
        "created_at": iso(campaign.created_at), "cancelled_at": iso(campaign.cancelled_at),
    }


def shown(server: Server, conn: Connection, campaign: free.Campaign, now: int) -> dict[str, Any]:
    return {"campaign": campaign_view(server, campaign, now), "progress": free.progress(conn, campaign, server.games)}


def offered(server: Server, codes: list[str]) -> list[Game]:
    """The campaign's games, each offered here (403 ``GAME_NOT_ALLOWED`` naming ``games[i]``)."""
    found = []
    for index, code in enumerate(codes):
        if code not in server.games:
            raise GameNotAllowed(f"games[{index}]: {code!r} is not offered; expected one of {sorted(server.games)}",
                                 field=f"games[{index}]")
        found.append(server.games[code])
    return found


@operator.post("/campaigns", response_model=None, responses=answers.CREATE_CAMPAIGN)
def create_campaign(body: CampaignRequest, caller: CanGrantFreeRounds, request: Request) -> dict[str, Any]:
    """A campaign of free rounds: its bet per currency must be a bet option of each of its games.
    Idempotent on ``reference``: the same body again answers the campaign; another, 422."""
    server = server_of(request)
    valid_from, valid_until = millis(body.valid_from), millis(body.valid_until)
    free.check_window(valid_from, valid_until)
    bets = free.check_bets(offered(server, body.games), body.bets, server.settings.currencies)
    fields = dict(reference=body.reference, name=body.name, games=list(body.games), bets=bets, rounds=body.rounds,
                  valid_from=valid_from, valid_until=valid_until, player_cap=body.player_cap,
                  allow_gamble=body.allow_gamble, jackpot_eligible=body.jackpot_eligible)
    now = server.now()
    with server.transaction() as conn:
        campaign, new = free.create_campaign(conn, caller.operator_id, fields, request_hash(
            request.url.path, body.model_dump(mode="json")), now)
        if new:
            changes.append(conn, changes.Change(caller.actor, "campaign_created", f"campaign:{body.reference}",
                                                after=body.model_dump(mode="json")), now)
    return campaign_view(server, campaign, now)


@operator.get("/campaigns", response_model=None, responses=answers.CAMPAIGNS)
def list_campaigns(caller: CanReadCampaigns, request: Request) -> dict[str, Any]:
    """The operator's campaigns, newest first (the latest 100)."""
    server = server_of(request)
    now = server.now()
    with server.engine.connect() as conn:
        rows = conn.execute(select(free_campaigns).where(free_campaigns.c.operator_id == caller.operator_id)
                            .order_by(free_campaigns.c.id.desc()).limit(PAGE)).mappings().all()
    return {"campaigns": [campaign_view(server, free.Campaign.of(row), now) for row in rows]}


@operator.get("/campaigns/{reference}", response_model=None, responses=answers.CAMPAIGN)
def show_campaign(reference: Code, caller: CanReadCampaigns, request: Request) -> dict[str, Any]:
    """A campaign with its progress: players granted, rounds played, wins paid, and the cost so
    far beside the expected cost (rounds x bet x the game's RTP)."""
    server = server_of(request)
    with server.engine.connect() as conn:
        return shown(server, conn, free.campaign_of(conn, caller.operator_id, reference), server.now())


@operator.post("/campaigns/{reference}/grants", response_model=None, responses=answers.GRANT)
def grant(reference: Code, body: GrantRequest, caller: CanGrantFreeRounds, request: Request) -> dict[str, Any]:
    """The campaign's rounds granted to each player (created on first use, in the currency
    given). Idempotent: a player granted before keeps the grant as it stands (``new``: false).
    All or nothing: a refused player (a currency without a bet, the player cap) grants none."""
    server = server_of(request)
    now = server.now()
    with server.transaction() as conn:
        campaign = free.campaign_of(conn, caller.operator_id, reference, lock=True)
        if campaign.cancelled_at is not None or now >= campaign.valid_until:
            raise free.FreeRoundsUnavailable(f"campaign {reference} is {campaign.state(now)}: nothing more can be "
                                             "granted", field="reference")
        wallet = server.seamless.players.kind_of(conn, caller.operator_id)
        granted = [grant_one(conn, caller.operator_id, campaign, asked, index, wallet, now)
                   for index, asked in enumerate(body.players)]
        if campaign.player_cap is not None and free.granted_players(conn, campaign.id) > campaign.player_cap:
            raise LimitExceeded(f"players: campaign {reference} may be granted to at most {campaign.player_cap} "
                                "players", field="players")
    return {"campaign": reference, "grants": granted}


def grant_one(conn: Connection, operator_id: int, campaign: free.Campaign, asked: GrantedPlayer, index: int,
              wallet: str, now: int) -> dict[str, Any]:
    """One player's grant (422 naming ``players[i].currency`` for a currency without a bet)."""
    field = f"players[{index}].currency"
    if asked.currency not in campaign.bets:
        raise invalid(field, f"{field}: campaign {campaign.reference} has bets in {sorted(campaign.bets)}, "
                      f"not {asked.currency}")
    try:
        player_id = access.player_for(conn, operator_id, asked.player_id, asked.currency, now, wallet)
    except DomainError as error:
        raise invalid(field, f"{field}: {error.message.partition(': ')[2] or error.message}") from error
    row, new = free.grant(conn, campaign, player_id, now)
    return {"player_id": asked.player_id, "grant": row["id"], "rounds": row["rounds_granted"],
            "played": row["rounds_played"], "state": free.grant_state(row, campaign, now), "new": new}


@operator.post("/campaigns/{reference}/cancel", response_model=None, responses=answers.CANCEL_CAMPAIGN)
def cancel_campaign(reference: Code, caller: CanGrantFreeRounds, request: Request) -> dict[str, Any]:
    """Cancel a campaign: unplayed rounds lapse now; a round in play finishes. Cancelling again
    answers the same."""
    server = server_of(request)
    now = server.now()
    with server.transaction() as conn:
        campaign = free.campaign_of(conn, caller.operator_id, reference, lock=True)
        if campaign.cancelled_at is None:
            changes.append(conn, changes.Change(caller.actor, "campaign_cancelled", f"campaign:{reference}"), now)
        campaign = free.cancel_campaign(conn, campaign, now)
        return shown(server, conn, campaign, now)


# -- the player's free rounds ---------------------------------------------------------------------
@router.get("/free-rounds", response_model=None, responses=answers.FREE_ROUNDS)
def my_free_rounds(auth: Player, request: Request) -> dict[str, Any]:
    """The player's free rounds to play or to answer (as the session lists them)."""
    server = server_of(request)
    with server.engine.connect() as conn:
        return {"free_rounds": free.offered(conn, auth.player_id, auth.currency, auth.fun, server.now())}


@router.get("/free-rounds/{grant_id}", response_model=None, responses=answers.ONE_FREE_ROUNDS)
def one_free_rounds(grant_id: Id, auth: Player, request: Request) -> dict[str, Any]:
    """One grant of the player's, whatever its state (its end summary: rounds played and won)."""
    server = server_of(request)
    with server.engine.connect() as conn:
        row, campaign = free.player_grant(conn, grant_id, auth.player_id)
        return free.grant_view(conn, row, campaign, auth.currency, server.now())


@router.post("/free-rounds/{grant_id}", response_model=None, responses=answers.ANSWER_OFFER)
def answer_free_rounds(grant_id: Id, body: OfferAnswer, auth: Player, request: Request,
                       key: IdempotencyKey = None) -> JSONResponse:
    """The player's answer to free rounds offered: ``accept`` (play now), ``later`` (they stay
    offered) or ``decline`` (given up for good)."""
    server = server_of(request)

    def work(conn: Connection, _player: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        now = server.now()
        row, campaign = free.player_grant(conn, grant_id, auth.player_id)
        row = free.answer_offer(conn, row, campaign, body.choice, now)
        return 200, free.grant_view(conn, row, campaign, auth.currency, now)

    fingerprint = request_hash(request.url.path, body.model_dump(mode="json"))
    status, answer = server.once.run(auth.player_id, key, fingerprint, work)
    return JSONResponse(answer, status_code=status)
