"""The Player API of a player's own limits (``/v1/limits``): read them, set them, take a
time-out. What they mean and how the rounds are stopped: :mod:`slotforge.rgs.limits`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import Connection

from slotforge.rgs import limits
from slotforge.rgs.api import answers
from slotforge.rgs.api.models import LimitsRequest, TimeOutRequest
from slotforge.rgs.api.player import IdempotencyKey, Player, answer
from slotforge.rgs.errors import FeatureDisabled, invalid
from slotforge.rgs.money import parse_amount
from slotforge.rgs.rounds.once import request_hash
from slotforge.rgs.rounds.service import Auth, Server, server_of
from slotforge.rgs.settings import PlayerLimits
from slotforge.rgs.store.general import lock_player

router = APIRouter(prefix="/v1")


def offered(auth: Auth) -> PlayerLimits:
    """The jurisdiction's rules of players' own limits; 403 ``FEATURE_DISABLED`` where they are not offered."""
    if auth.fun:
        raise FeatureDisabled("limits: not when playing for fun")
    rules = auth.jurisdiction.limits
    if not rules.enabled:
        raise FeatureDisabled(f"limits: not offered in the jurisdiction {auth.jurisdiction_name}")
    return rules


def limits_answer(conn: Connection, auth: Auth, rules: PlayerLimits, now: int) -> dict[str, Any]:
    """The player's limits as they stand (:class:`~slotforge.rgs.api.answers.Limits`)."""
    shown = limits.view(limits.limits_of(conn, auth.player_id), limits.net_losses(conn, auth.player_id, now),
                        limits.time_out_until(conn, auth.player_id), auth.started_at, now)
    return {"currency": auth.currency, "cooling_off_hours": rules.cooling_off_hours,
            "time_out_hours": rules.time_out_hours, "max_session_minutes": rules.max_session_minutes, **shown}


@router.get("/limits", response_model=None, responses=answers.LIMITS)
def get_limits(auth: Player, request: Request) -> dict[str, Any]:
    """The player's own limits: each in force, a loosening pending and when it applies, where the
    loss of each period stands, a time-out running."""
    rules = offered(auth)
    server = server_of(request)
    with server.engine.connect() as conn:
        return limits_answer(conn, auth, rules, server.now())


@router.put("/limits", response_model=None, responses=answers.LIMITS)
def put_limits(body: LimitsRequest, auth: Player, request: Request) -> dict[str, Any]:
    """Set the player's own limits, all of them (a limit left out or null is none): a tighter limit
    holds at once, a looser one (or none) after the jurisdiction's cooling-off, shown as pending
    until then. Asking again for the limit in force cancels its pending change."""
    rules = offered(auth)
    wanted = wanted_limits(body, rules)
    server = server_of(request)
    with server.transaction() as conn:
        lock_player(conn, auth.player_id)  # a round of the player's sees the limits before or after, whole
        now = server.now()
        limits.set_limits(conn, auth.player_id, wanted, now, rules.cooling_off_hours * limits.HOUR_MS)
        return limits_answer(conn, auth, rules, now)


def wanted_limits(body: LimitsRequest, rules: PlayerLimits) -> dict[str, int | None]:
    """The limits asked for, by kind (minor units, minutes); 422 naming the field otherwise."""
    wanted: dict[str, int | None] = {}
    for period in limits.PERIODS:
        raw = getattr(body.loss, period)
        try:
            wanted[f"loss_{period}"] = None if raw is None else parse_amount(raw, f"loss.{period}")
        except ValueError as error:
            raise invalid(f"loss.{period}", str(error)) from error
    minutes = body.session_minutes
    if minutes is not None and minutes > rules.max_session_minutes:
        raise invalid("session_minutes", f"session_minutes: expected 1 to {rules.max_session_minutes} minutes, "
                                         f"got {minutes}")
    wanted[limits.SESSION] = minutes
    return wanted


@router.post("/limits/time-out", response_model=None, responses=answers.TAKE_TIME_OUT)
def take_time_out(body: TimeOutRequest, auth: Player, request: Request, key: IdempotencyKey = None) -> Any:
    """Block the player's own play for one of the jurisdiction's durations. It cannot be undone
    or shortened: a second time-out that would end sooner leaves the first's end as it is."""
    rules = offered(auth)
    if body.hours not in rules.time_out_hours:
        raise invalid("hours", f"hours: expected one of {rules.time_out_hours}, got {body.hours}")
    server: Server = server_of(request)

    def work(conn: Connection, _player: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        now = server.now()
        limits.take_time_out(conn, auth.player_id, body.hours, now)
        return 200, limits_answer(conn, auth, rules, now)

    return answer(*server.once.run(auth.player_id, key, request_hash(request.url.path, body.model_dump()), work))
