"""The back office's routes: the ``/operator`` page, its Operator API reports and look-ups
(``X-Api-Key``, one operator's players and rounds only), and ``/metrics`` for operations.

The queries are in :mod:`slotforge.rgs.backoffice`; each answer here is a declared model, so
``/openapi.json`` describes it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from functools import cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, available_timezones

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from slotforge.amounts import parse_minor
from slotforge.rgs import metrics
from slotforge.rgs.api import answers
from slotforge.rgs.api.answers import Money, SignedMoney
from slotforge.rgs.api.callers import CanLookUp, CanReadClaims, CanReadReports, CanSettle, CanSupport
from slotforge.rgs.api.models import Code, Id, millis
from slotforge.rgs.api.operator import Since, Until
from slotforge.rgs.api.player import verify
from slotforge.rgs.api.web import client_dist
from slotforge.rgs.backoffice import alerts, claims, lookups, reports
from slotforge.rgs.compliance import changes
from slotforge.rgs.errors import NotFound, invalid
from slotforge.rgs.rounds.service import server_of
from slotforge.rgs.rounds.views import round_view

router = APIRouter(prefix="/v1/operator", tags=["back office"])
pages = APIRouter()

Ratio = Annotated[str, Field(examples=["0.951234"], description="a ratio as exact decimal text (0.95 is 95%)")]
Time = Annotated[str | None, Field(examples=["2026-12-02T23:33:58.903Z"], description="an ISO 8601 UTC time")]


# -- answers ------------------------------------------------------------------------------------
class Answer(BaseModel):
    """A body the server builds itself: every field it has is listed (the tests validate real
    answers against these)."""

    model_config = ConfigDict(extra="forbid")


class DayLine(Answer):
    day: str = Field(description="the local day (the time zone asked for), YYYY-MM-DD")
    game: str
    currency: str
    rounds: int
    players: int = Field(description="distinct players who finished a round that day")
    stakes: Money
    wins: Money = Field(description="wins paid, jackpot wins included")
    ggr: SignedMoney = Field(description="stakes - wins (negative when the players won)")
    hit_rate: Ratio | None = Field(description="rounds that won anything / rounds")
    jackpot_contributions: Ratio = Field(description="to the progressive pools, exact (fractions of a cent)")
    jackpot_payouts: Money


class DailyReport(Answer):
    """Per game and local day, the operator's real-money rounds that finished."""

    time_zone: str = Field(description="the IANA time zone the days are in")
    first: str = Field(description="the first day, YYYY-MM-DD")
    last: str = Field(description="the last day, included")
    days: list[DayLine] = Field(description="one line per day, game and currency with rounds, by day")


class RtpLine(Answer):
    game: str
    version: str | None = Field(description="the RTP version its rounds played (their model's version)")
    model: str | None = Field(description="the model that played them: game/version:fingerprint")
    rounds: int = Field(description="real-money rounds finished in the period")
    stakes: Money
    wins: Money
    rtp: Ratio | None = Field(description="actual: wins / stakes of every real-money round finished in the period")
    theoretical_rtp: Ratio | None = Field(description="the version's RTP (its label)")
    std_per_round: str | None = Field(description="standard deviation of one round in total bets (the PAR sheet's)")
    effective_rounds: float = Field(description="(sum of stakes)^2 / sum of stakes^2: the rounds' count when "
                                                "every stake is the same")
    confidence: float = Field(description="of the band: 0.99")
    band_low: Ratio | None = Field(description="the interval the actual RTP should fall in after these rounds")
    band_high: Ratio | None = Field(description="the band's high end")
    outside_band: bool = Field(description="the actual RTP is outside the band: look at the game")


class RtpReport(Answer):
    """Live RTP against theory, per game and RTP version."""

    since: Time = Field(description="the period's start as asked (none: every round)")
    until: Time = Field(description="the period's end as asked (none: up to now)")
    games: list[RtpLine] = Field(description="one line per game with rounds in the period (rounds players paid for)")
    free_rounds: list[RtpLine] = Field(description="the same of the free rounds (their bets the operator's "
                                                   "campaigns'), apart from the paid ones")


class PlayerLine(Answer):
    player_id: str = Field(description="the operator's id of the player")
    currency: str = Field(description="the player's currency")
    balance: Money = Field(description="the balance (a seamless wallet's: the last one it told)")
    wallet: str = Field(description="internal or seamless")
    created_at: Time = Field(description="when the player was first seen")
    last_round_at: Time = Field(description="when the player last started a round")


class PlayerList(Answer):
    """The operator's players found, most recently active first."""

    players: list[PlayerLine] = Field(description="the players found")


class SessionLine(Answer):
    id: int
    jurisdiction: str
    language: str | None
    started_at: Time
    last_seen: Time


class OpenRound(Answer):
    id: int
    game: str
    status: str
    stake: Money
    started_at: Time


class PlanLine(Answer):
    """An autoplay plan and where it stands."""

    id: int = Field(description="the plan's id")
    game: str | None = Field(description="the game it plays")
    rounds: int | None = Field(description="the rounds it was asked for")
    played: int = Field(description="the rounds played so far")
    net: SignedMoney = Field(description="wins - stakes so far")
    stopped: str | None = Field(description="why it stopped (player, operator, a limit ...); none while it runs")
    created_at: Time = Field(description="when the player started it")


class LedgerLine(Answer):
    id: int
    kind: str
    amount: SignedMoney = Field(description="signed: what the entry did to the balance")
    round_id: int | None
    reference: str | None
    created_at: Time


class PlayerOverview(PlayerLine):
    """A player: balance, sessions, open rounds, autoplay plans and ledger."""

    sessions: list[SessionLine] = Field(description="the latest sessions, newest first")
    open_rounds: list[OpenRound] = Field(description="rounds awaiting a decision or pending at the wallet")
    autoplays: list[PlanLine] = Field(description="the latest autoplay plans, newest first")
    ledger: list[LedgerLine] = Field(description="the latest entries, newest first")


class RoundLine(Answer):
    id: int
    player_id: str
    game: str
    status: str
    currency: str
    stake: Money
    win: Money
    jackpot_win: Money
    started_at: Time
    finished_at: Time
    void_reason: str | None
    wallet_status: str | None


class RoundList(Answer):
    """Rounds found, newest first."""

    rounds: list[RoundLine] = Field(description="the rounds, without their records")


class RoundDetail(Answer):
    """One round: its line, its record, its replay check and its money."""

    summary: RoundLine = Field(description="the round as a line of a list")
    round: answers.Round = Field(description="the round as the player's recall shows it: the engine's record "
                                              "and the server's fields")
    verified: bool | None = Field(description="replaying the record's inputs gives the same record; none for a "
                                              "round voided before it played")
    ledger: list[LedgerLine] = Field(description="the money the round moved")
    voided_by: str | None = Field(None, description="who voided it, as the change log names them "
                                                    "(`operator:NAME/user:USER`, `operator:NAME/key:KEY`)")


class OutboxLine(Answer):
    id: int
    target: str
    kind: str
    key: str
    round_id: int | None
    created_at: Time
    due_at: Time
    attempts: int
    last_error: str | None


class Owed(Answer):
    """What is still owed for the operator's rounds."""

    backlog: dict[str, int] = Field(description="undelivered messages of this operator's rounds, by target")
    messages: list[OutboxLine] = Field(description="undelivered messages, oldest first")
    wallet_pending: list[RoundLine] = Field(description="rounds whose debit, credit or rollback the seamless "
                                                        "wallet has not answered yet")


class ClaimLine(Answer):
    """A jackpot claim the jackpot service holds for one of the operator's rounds."""

    key: str = Field(description="the claim's key at the service, SERVER:ROUND")
    round: int = Field(description="the round that won it")
    game: str = Field(description="the round's game")
    player: str = Field(description="the operator's id of the round's player")
    round_status: str = Field(description="the round's status")
    amount: str = Field(description="what the claim took from the pool, in EUR, exact as the service keeps it")
    held_since: Time = Field(description="when the service paid the claim")
    committed: bool = Field(description="whether the round committed the claim (its player was paid): settling "
                                        "confirms it; if not, its process died before the round's commit, and "
                                        "settling releases it once held for the lease")
    status: Literal["held", "confirmed", "released"] = Field("held", description="the claim's state at the service")


class Claims(Answer):
    """The claims held at the jackpot service for the operator's rounds (none with embedded pools)."""

    claims: list[ClaimLine] = Field(description="oldest first")


# -- reports ------------------------------------------------------------------------------------
@cache
def zone_names() -> frozenset[str]:
    return frozenset(available_timezones())


def time_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (only a listed name: a key is a path into the zone files)."""
    if name not in zone_names():
        raise invalid("tz", f"tz: expected an IANA time zone (Europe/Malta), got {name!r}")
    return ZoneInfo(name)


@router.get("/reports/daily", response_model=None,
             responses=answers.declare(DailyReport, *answers.OPERATOR))
def daily_report(caller: CanReadReports, request: Request,
                 first: Annotated[date | None, Query(alias="from", description="first local day (default: 30 days "
                                                                                "before the last)")] = None,
                 last: Annotated[date | None, Query(alias="to", description="last local day, included "
                                                                             "(default: today)")] = None,
                 tz: Annotated[str, Query(description="the operator's IANA time zone", max_length=64)] = "UTC",
                 ) -> dict[str, Any]:
    """Per game and local day: rounds, players, stakes, wins, GGR, hit rate, jackpot contributions
    and payouts of the operator's real-money rounds, per currency."""
    operator_id = caller.operator_id
    server = server_of(request)
    zone = time_zone(tz)
    for name, day in (("from", first), ("to", last)):
        if day is not None and not reports.FIRST_DAY <= day <= reports.LAST_DAY:
            raise invalid(name, f"{name}: expected a day from {reports.FIRST_DAY} to {reports.LAST_DAY}, got {day}")
    last = last or datetime.fromtimestamp(server.now() / 1000, zone).date()
    first = first or last - timedelta(days=29)
    if first > last:
        raise invalid("from", f"from: {first} is after to: {last}")
    if (last - first).days >= reports.MAX_DAYS:
        raise invalid("from", f"from: at most {reports.MAX_DAYS} days in one report, got {(last - first).days + 1}")
    reports.summarise_for_daily(server.engine.connect, server.transaction, first, last, zone, server.now())
    with server.engine.connect() as conn:
        days = reports.daily(conn, operator_id, first, last, zone)
    return {"time_zone": tz, "first": first.isoformat(), "last": last.isoformat(), "days": days}


def theory(request: Request) -> dict[str, tuple[Decimal, Decimal | None]]:
    """Each offered game's published RTP and standard deviation of one round (its PAR sheet's)."""
    return reports.theory(server_of(request).games)


def iso_of(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


@router.get("/reports/rtp", response_model=None,
             responses=answers.declare(RtpReport, *answers.OPERATOR))
def rtp_report(caller: CanReadReports, request: Request, since: Since = None, until: Until = None) -> dict[str, Any]:
    """Live RTP against theory: per game, the actual RTP of every real-money round finished in the
    period (the rounds players paid for; the free rounds apart, in ``free_rounds``) beside the
    published RTP and the 99% interval it should fall in after that many rounds (from the PAR
    sheet's standard deviation of one round), flagged when outside."""
    operator_id = caller.operator_id
    server = server_of(request)
    reports.summarise_for_rtp(server.engine.connect, server.transaction, millis(since), millis(until), server.now())
    with server.engine.connect() as conn:
        games = reports.live_rtp(conn, operator_id, millis(since), millis(until), theory(request))
        free = reports.live_rtp(conn, operator_id, millis(since), millis(until), theory(request), free=True)
    return {"since": iso_of(since), "until": iso_of(until), "games": games, "free_rounds": free}


class AlertLine(Answer):
    alert: str = Field(description="the alert's name, as in the shipped Prometheus rules: SlotforgeRtpOutOfBand, "
                                   "SlotforgeWalletFailing, SlotforgeOutboxBackingUp, SlotforgeJackpotUnreachable")
    subject: str = Field(description="what it is about: `game:CODE` or `target:NAME`")
    summary: str = Field(description="what is wrong, in words")


class Alerts(Answer):
    """The alerts firing now for the operator's rounds (the dashboard shows them)."""

    alerts: list[AlertLine] = Field(description="the alerts firing, none when all is well")


@router.get("/alerts", response_model=None, responses=answers.declare(Alerts, *answers.OPERATOR))
def current_alerts(caller: CanReadReports, request: Request) -> dict[str, Any]:
    """The alerts the shipped Prometheus rules raise, evaluated for this operator's rounds: a
    game's live RTP over the last day outside its band, the wallet or the jackpot service failing
    deliveries, messages owed too long."""
    server = server_of(request)
    with server.engine.connect() as conn:
        return {"alerts": alerts.current(conn, caller.operator_id, server.now(), theory(request))}


# -- players and rounds -------------------------------------------------------------------------
@router.get("/players", response_model=None,
             responses=answers.declare(PlayerList, *answers.OPERATOR))
def find_players(caller: CanLookUp, request: Request,
                 q: Annotated[str, Query(max_length=100, pattern=r"^[A-Za-z0-9_.:@-]*$",
                                         description="any part of a player's id (its characters), in any case")] = "",
                 limit: Annotated[int, Query(ge=1, le=200)] = 50) -> dict[str, Any]:
    """The operator's players whose id holds ``q``: those it starts first, then the most recently active."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.engine.connect() as conn:
        return {"players": lookups.find_players(conn, operator_id, q, limit)}


@router.get("/players/{player_id}/overview", response_model=None,
             responses=answers.declare(PlayerOverview, *answers.OPERATOR, answers.NOT_FOUND))
def player_overview(player_id: Code, caller: CanLookUp, request: Request) -> dict[str, Any]:
    """A player: balance, latest sessions, open rounds, autoplay plans and latest ledger entries."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.engine.connect() as conn:
        return lookups.overview(conn, operator_id, player_id)


def minor(name: str, raw: str | None) -> int | None:
    """A win bound in cents; zero allowed (every round wins at least nothing); empty: none."""
    if not raw:
        return None
    try:
        return parse_minor(raw, name, positive=False)
    except ValueError as error:
        raise invalid(name, str(error)) from error


# A search form sends its blank fields as ``?player=&game=``: blank is "any", as the field left out.
EMPTY_IS_ANY = BeforeValidator(lambda value: None if value == "" else value)


@router.get("/rounds/search", response_model=None,
             responses=answers.declare(RoundList, *answers.OPERATOR))
def search_rounds(caller: CanLookUp, request: Request,
                  player: Annotated[Code | None, EMPTY_IS_ANY] = None,
                  game: Annotated[Code | None, EMPTY_IS_ANY] = None,
                  status: Annotated[Literal["complete", "awaiting", "void", "pending"] | None, EMPTY_IS_ANY] = None,
                  since: Annotated[Since, EMPTY_IS_ANY] = None, until: Annotated[Until, EMPTY_IS_ANY] = None,
                  min_win: Annotated[str | None, Query(description="least win, decimal text (\"10.00\")")] = None,
                  max_win: Annotated[str | None, Query(description="largest win, decimal text")] = None,
                  before: Annotated[Id | None, Query(description="rounds older than this id (the next page)")] = None,
                  limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
    """The operator's rounds by player, game, status, start time and win, newest first (without records)."""
    operator_id = caller.operator_id
    wanted = lookups.RoundFilter(player=player, game=game, status=status, since=millis(since), until=millis(until),
                                 min_win=minor("min_win", min_win), max_win=minor("max_win", max_win), before=before)
    server = server_of(request)
    with server.engine.connect() as conn:
        return {"rounds": lookups.search_rounds(conn, operator_id, wanted, limit)}


@router.get("/rounds/{round_id}", response_model=None,
             responses=answers.declare(RoundDetail, *answers.OPERATOR, answers.NOT_FOUND))
def round_detail(round_id: Id, caller: CanLookUp, request: Request) -> dict[str, Any]:
    """One round: its line, its record as the player saw it, its replay check and its money."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.engine.connect() as conn:
        row, entries = lookups.one_round(conn, operator_id, round_id)
        voided_by = changes.voided_by(conn, round_id) if row["status"] == "void" else None
    return {"summary": lookups.round_line(row), "round": round_view(row), "verified": verify(server, row),
            "ledger": entries, "voided_by": voided_by}


@router.post("/autoplays/{plan_id}/stop", response_model=None,
             responses=answers.declare(PlanLine, *answers.OPERATOR, answers.NOT_FOUND))
def stop_autoplay(plan_id: Id, caller: CanSupport, request: Request) -> dict[str, Any]:
    """Stop a player's autoplay plan (``stopped: "operator"``); the round in play finishes as it is."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.transaction() as conn:
        stopped = lookups.stop_plan(conn, operator_id, plan_id, server.now())
        changes.append(conn, changes.Change(caller.actor, "autoplay_stopped",
                                            f"autoplay:{plan_id}", after={"stopped": stopped.get("stopped")}),
                       server.now())
        return stopped


@router.get("/outbox", response_model=None,
             responses=answers.declare(Owed, *answers.OPERATOR))
def owed(caller: CanLookUp, request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
    """What is still owed for the operator's rounds: outbox messages to the wallet and the jackpot
    service not yet acknowledged, and rounds waiting at a seamless wallet."""
    operator_id = caller.operator_id
    server = server_of(request)
    with server.engine.connect() as conn:
        return lookups.owed(conn, operator_id, limit)


@router.get("/jackpot-claims", response_model=None,
            responses=answers.declare(Claims, *answers.OPERATOR, answers.JACKPOT_UNAVAILABLE))
def jackpot_claims(caller: CanReadClaims, request: Request) -> dict[str, Any]:
    """The jackpot claims the jackpot service still holds for the operator's rounds (their
    confirm not yet delivered by the outbox)."""
    operator_id = caller.operator_id
    return {"claims": claims.held_claims(server_of(request), operator_id)}


@router.post("/jackpot-claims/{key}/settle", response_model=None,
             responses=answers.declare(ClaimLine, *answers.OPERATOR, answers.NOT_FOUND, answers.CLAIM_NOT_COMMITTED,
                                       answers.JACKPOT_UNAVAILABLE))
def settle_jackpot_claim(key: Annotated[str, Path(max_length=200, pattern=r"^[A-Za-z0-9_.@-]+:[0-9]+$")],
                         caller: CanSettle, request: Request) -> dict[str, Any]:
    """Settle a held claim of one of the operator's rounds now: a claim its round committed is
    confirmed at the service (as the outbox would on its next attempt); one its round never
    committed is released, its payout back into the pot, once held for the lease (409 before)."""
    operator_id = caller.operator_id
    server = server_of(request)
    settled = claims.settle_claim(server, operator_id, key)
    with server.transaction() as conn:  # the service's answer is final: its record follows it
        changes.append(conn, changes.Change(caller.actor, "jackpot_claim_settled",
                                            f"claim:{key}", after=settled), server.now())
    return settled


# -- the page and the metrics -------------------------------------------------------------------
@pages.get("/operator", include_in_schema=False)
def back_office_page() -> FileResponse:
    page = client_dist() / "operator.html"
    if not page.is_file():
        raise NotFound("the back office is not built: run npm ci && npm run build in web/")
    return FileResponse(page, headers={"Cache-Control": "no-cache"})


@pages.get("/metrics", include_in_schema=False)
def scrape(request: Request) -> Response:
    """The server's figures in Prometheus' text format."""
    return Response(metrics.exposition(request.app.state.metrics), media_type=metrics.CONTENT_TYPE)
