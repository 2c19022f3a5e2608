"""The Operator API (``X-Api-Key``, or a back-office user's session): sessions, money in and out,
players, rounds, voids, reports. Each route's caller type says which key scopes and user roles it
takes (:mod:`slotforge.rgs.backoffice.roles`)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from sqlalchemy import Float, Select, cast, func, select

from slotforge.maths.stats import summarise
from slotforge.rgs.api import access, answers
from slotforge.rgs.api.callers import (
    CanAdjust,
    CanPlay,
    CanReadGameReport,
    CanReadPlayers,
    CanVoid,
)
from slotforge.rgs.api.models import Code, Id, Moment, SessionRequest, TransactionRequest, VoidRequest, millis
from slotforge.rgs.compliance import changes
from slotforge.rgs.errors import FeatureDisabled, KeyReused, RequestInProgress, invalid, not_found
from slotforge.rgs.money import parse_amount, to_signed_text, to_text
from slotforge.rgs.rounds import void
from slotforge.rgs.rounds.service import server_of
from slotforge.rgs.rounds.stale import complete_stale_rounds
from slotforge.rgs.rounds.views import iso, round_answer, round_view
from slotforge.rgs.schema import ledger, players, rounds
from slotforge.rgs.store.general import lock_player

router = APIRouter(prefix="/v1/operator")


@router.post("/sessions", response_model=None, responses=answers.OPEN_SESSION)
def open_session(body: SessionRequest, caller: CanPlay, request: Request) -> dict[str, Any]:
    """A session token for a player (created on first use); it finishes stale open rounds first."""
    operator_id = caller.operator_id
    server = server_of(request)
    if server.settings.jurisdiction(body.jurisdiction) is None:
        raise invalid("jurisdiction", f"jurisdiction: expected one of {server.settings.jurisdiction_names()}, "
                      f"got {body.jurisdiction!r}")
    if body.currency not in server.settings.currencies:
        raise invalid("currency", f"currency: expected one of {server.settings.currencies}, got {body.currency}")
    now = server.now()
    with server.transaction() as conn:
        player_id = access.player_for(conn, operator_id, body.player_id, body.currency, now,
                                      server.seamless.players.kind_of(conn, operator_id))
        token = access.open_session(conn, player_id, body.jurisdiction, body.language, now)
    complete_stale_rounds(server, player_id)
    return {"token": token, "expires_at": iso(now + access.session_timeout_ms(server, body.jurisdiction)),
            "play_url": server.settings.play_url.format(token=token)}


@router.post("/players/{player_id}/transactions", response_model=None, responses=answers.TRANSACTION)
def transaction(player_id: Code, body: TransactionRequest, caller: CanAdjust, request: Request) -> dict[str, Any]:
    """A deposit or withdrawal, idempotent on ``reference``."""
    operator_id = caller.operator_id
    server = server_of(request)
    try:
        amount = parse_amount(body.amount)
    except ValueError as error:
        raise invalid("amount", str(error)) from error
    now = server.now()
    with server.transaction() as conn:
        player = access.external_player(conn, operator_id, player_id)
        if player["wallet"] == "seamless":
            raise FeatureDisabled(f"player {player_id}'s money is kept by the operator's seamless "
                                  "wallet; deposits and withdrawals happen there", field="kind")
        lock_player(conn, player["id"])
        done = conn.execute(select(ledger).where(ledger.c.player_id == player["id"],
                                                 ledger.c.reference == body.reference)).mappings().first()
        if done is not None:
            if (done["kind"], done["amount"]) != (body.kind, amount):
                raise KeyReused("reference: used before for another transaction", field="reference")
            balance = server.wallet.balance(conn, player["id"])
        elif body.kind == "deposit":
            balance = server.wallet.credit(conn, player["id"], "deposit", amount, reference=body.reference, now=now)
        else:
            balance = server.wallet.debit(conn, player["id"], "withdrawal", amount, reference=body.reference, now=now)
    return {"player_id": player_id, "balance": to_text(balance), "currency": player["currency"]}


@router.get("/players/{player_id}", response_model=None, responses=answers.OPERATOR_PLAYER)
def player(player_id: Code, caller: CanReadPlayers, request: Request) -> dict[str, Any]:
    """Balance, open rounds and net position (wins - stakes of all finished rounds)."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.engine.connect() as conn:
        row = access.external_player(conn, operator_id, player_id)
        open_rounds = conn.execute(select(rounds).where(rounds.c.player_id == row["id"],
                                                        rounds.c.status == "awaiting")).mappings().all()
        net = conn.execute(select(func.coalesce(func.sum(rounds.c.win - rounds.c.stake), 0)).where(
            rounds.c.player_id == row["id"], rounds.c.status == "complete")).scalar_one()
    return {"player_id": player_id, "currency": row["currency"], "balance": to_text(row["balance"]),
            "wallet": row["wallet"], "open_rounds": [round_view(r) for r in open_rounds],
            "net_position": to_signed_text(int(net))}


Since = Annotated[Moment | None, Query(alias="from", description="ISO 8601 time, inclusive (UTC without a zone)")]
Until = Annotated[Moment | None, Query(alias="to", description="ISO 8601 time, exclusive (UTC without a zone)")]


@router.get("/rounds", response_model=None, responses=answers.OPERATOR_ROUNDS)
def operator_rounds(caller: CanReadPlayers, request: Request, player: Code | None = None, game: Code | None = None,
                    since: Since = None, until: Until = None,
                    limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """Rounds of this operator's players for audit, newest first."""
    operator_id = caller.operator_id
    server = server_of(request)
    query = select(rounds).join(players, players.c.id == rounds.c.player_id).where(players.c.operator_id == operator_id)
    if player is not None:
        query = query.where(players.c.external_id == player)
    if game is not None:
        query = query.where(rounds.c.game == game)
    if since is not None:
        query = query.where(rounds.c.started_at >= millis(since))
    if until is not None:
        query = query.where(rounds.c.started_at < millis(until))
    with server.engine.connect() as conn:
        rows = conn.execute(query.order_by(rounds.c.id.desc()).limit(limit)).mappings().all()
    return {"rounds": [round_view(row) for row in rows]}


@router.post("/rounds/{round_id}/void", response_model=None, responses=answers.VOID_ROUND)
def void_round(round_id: Id, body: VoidRequest, caller: CanVoid, request: Request) -> dict[str, Any]:
    """Void a round (a malfunction): an open one's stake is refunded; a completed one's stake is
    refunded and its win reversed (:mod:`slotforge.rgs.rounds.void`). Voiding again answers the same."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.transaction() as conn:
        owner = conn.execute(select(rounds.c.player_id).join(players, players.c.id == rounds.c.player_id).where(
            rounds.c.id == round_id, players.c.operator_id == operator_id)).scalar()
        if owner is None:
            raise not_found(f"round {round_id}")
        lock_player(conn, owner)
        row = dict(conn.execute(select(rounds).where(rounds.c.id == round_id)).mappings().one())
        before = {"status": row["status"], "win": to_text(row["win"]), "balance_after": to_text(row["balance_after"])}
        if row["status"] == "complete":
            moved = void.void_completed(server, conn, row, body.reason, server.now())  # brings ``row`` up to date
            answer = {**round_answer(row), **moved}
        else:
            refuse_at_the_wallet(row)
            if row["status"] == "awaiting":
                server.void(conn, row, body.reason, server.now())
            answer = {**round_answer(row), "refunded": True}
        if before["status"] != "void":  # voiding again changes nothing
            changes.append(conn, changes.Change(caller.actor, "round_voided",
                                                f"round:{round_id}", before=before,
                                                after={"status": "void", "reason": body.reason,
                                                       "balance_after": answer["balance"]}), server.now())
    return answer


def refuse_at_the_wallet(row: dict[str, Any]) -> None:
    """A seamless round whose debit is still at the operator's wallet cannot be voided: nothing
    is taken yet that could be refunded, and the debit, once answered, plays the round (or, left
    unanswered, rolls it back and voids it). 409 ``REQUEST_IN_PROGRESS``: ask again once it is
    played or void."""
    if row["status"] == "pending":
        raise RequestInProgress(f"round {row['id']}: its stake is still being debited at the "
                                "operator's wallet, so nothing can be refunded yet; void it once it is played (or it "
                                "is void by itself if the debit fails)", field="round")


@router.get("/reports/games", response_model=None, responses=answers.GAME_REPORT)
def game_report(caller: CanReadGameReport, request: Request, since: Since = None,
                until: Until = None) -> dict[str, Any]:
    """Per game: rounds, stakes, wins, GGR and the actual RTP with its 99% interval beside the
    model's, of the rounds players paid for; the free rounds (their bets the operator's
    promotional money) apart."""
    operator_id = caller.operator_id
    server = server_of(request)
    ratio = cast(rounds.c.win, Float) / rounds.c.stake
    paid = select(rounds.c.game, func.count(), func.sum(rounds.c.stake), func.sum(rounds.c.win), func.sum(ratio),
                  func.sum(ratio * ratio)).where(rounds.c.free_grant_id.is_(None))
    free_rounds = select(rounds.c.game, func.count(), func.sum(rounds.c.stake), func.sum(rounds.c.win)).where(
        rounds.c.free_grant_id.is_not(None))
    with server.engine.connect() as conn:
        rows = conn.execute(in_period(paid, operator_id, since, until)).all()
        free_rows = conn.execute(in_period(free_rounds, operator_id, since, until)).all()
    report = []
    for game, count, stakes, wins, returns, squares in rows:
        # The interval is that of the mean return per round (each round's win over its stake).
        figures = summarise(int(count), float(returns), float(squares), 1)
        model = server.games.get(game)
        report.append({
            "game": game, "rounds": int(count), "stakes": to_text(int(stakes)), "wins": to_text(int(wins)),
            "ggr": to_signed_text(int(stakes) - int(wins)),
            "rtp": str((Decimal(int(wins)) / Decimal(int(stakes))).quantize(Decimal("0.000001"))),
            # Exact decimal strings, like rtp (a float here would read as a different kind of figure).
            "rtp_ci99": str(Decimal(repr(figures["ci99"])).quantize(Decimal("0.000001"))),
            "model_rtp": str(model.spec.rtp) if model else None,
        })
    return {"games": report, "free_rounds": [
        {"game": game, "rounds": int(count), "bets": to_text(int(bets)), "wins": to_text(int(wins)),
         "rtp": str((Decimal(int(wins)) / Decimal(int(bets))).quantize(Decimal("0.000001"))) if bets else None}
        for game, count, bets, wins in free_rows]}


def in_period(query: Select, operator_id: int, since: datetime | None, until: datetime | None) -> Select:
    """``query`` (of rounds, grouped by game) over the operator's complete real-money rounds
    finished in the period."""
    query = (query.join(players, players.c.id == rounds.c.player_id)
             .where(players.c.operator_id == operator_id, rounds.c.status == "complete", rounds.c.fun.is_(False))
             .group_by(rounds.c.game))
    if since is not None:
        query = query.where(rounds.c.finished_at >= millis(since))
    if until is not None:
        query = query.where(rounds.c.finished_at < millis(until))
    return query
