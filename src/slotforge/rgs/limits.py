"""Players' own limits: the limits a player sets on their own play, where the jurisdiction offers
them (:class:`~slotforge.rgs.settings.PlayerLimits`), and the refusal of a round they stop.

- **Loss limits**, one per rolling period (``day``: the last 24 hours, ``week``: 7 days,
  ``month``: 30 days), in minor units of the player's currency. A player's net loss over a period
  is counted from the rounds' books: the stakes minus the wins of the rounds completed, plus the
  stakes of the rounds still open (awaiting a decision, or pending at a seamless wallet), of the
  rounds started in the period; void rounds count nothing, a free round (the operator's stake) only
  its win. A round is refused when its stake
  would take the net loss past a limit: a player with limit L plays until net loss + stake > L.
- **A session time limit**, in minutes: a session's rounds start until that long after it opened.
- **A time-out**: no round starts until it ends; one of the durations the jurisdiction lists,
  never shortened (a second time-out can only end later).

Tightening a limit (setting one, or lowering it) holds at once. Loosening or removing one waits
out the jurisdiction's cooling-off: until then the old limit holds and the player's limits show the
change pending and when it applies. Asking again for the limit in force cancels a pending change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, bindparam, case, func, insert, literal_column, select, update

from slotforge.rgs.errors import LossLimitReached, SessionLimitReached, TimedOut
from slotforge.rgs.money import to_text
from slotforge.rgs.rounds.views import iso
from slotforge.rgs.schema import player_limits, player_time_outs, rounds
from slotforge.rgs.settings import Jurisdiction

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
# Each loss limit's rolling period.
PERIODS: dict[str, int] = {"day": DAY_MS, "week": 7 * DAY_MS, "month": 30 * DAY_MS}
SESSION = "session_minutes"
KINDS = (*(f"loss_{period}" for period in PERIODS), SESSION)


@dataclass(frozen=True)
class Limit:
    """One limit as stored: ``value`` in force (None: no limit) and a loosening that waits,
    ``pending_value`` (None: the limit removed) from ``pending_at`` (None: nothing waits)."""

    value: int | None = None
    pending_value: int | None = None
    pending_at: int | None = None

    def in_force(self, now: int) -> int | None:
        """The limit that holds at ``now``: the pending one once its time has come."""
        if self.pending_at is not None and now >= self.pending_at:
            return self.pending_value
        return self.value

    def pending(self, now: int) -> tuple[int | None, int] | None:
        """The change still waiting at ``now`` (its value, when it applies), or None."""
        if self.pending_at is not None and now < self.pending_at:
            return self.pending_value, self.pending_at
        return None

    def asked(self, wanted: int | None, now: int, cooling_off_ms: int) -> Limit:
        """This limit once the player asks for ``wanted`` at ``now``: at once if it is no looser
        than the one in force; otherwise pending until the cooling-off is over (a change asked for
        again keeps its first time, so asking twice does not put it off)."""
        held = self.in_force(now)
        if not looser(wanted, held) or cooling_off_ms == 0:
            return Limit(wanted)
        waiting = self.pending(now)
        if waiting is not None and waiting[0] == wanted:
            return Limit(held, wanted, waiting[1])
        return Limit(held, wanted, now + cooling_off_ms)


def looser(wanted: int | None, held: int | None) -> bool:
    """Whether ``wanted`` allows more than ``held`` (None is no limit: the loosest)."""
    if held is None:
        return False
    return wanted is None or wanted > held


def remaining(limit: int, net_loss: int) -> int:
    """What the player may still stake in a period before the limit stops them (never below 0)."""
    return max(limit - net_loss, 0)


def allows(limit: int | None, net_loss: int, stake: int) -> bool:
    """Whether a round of ``stake`` may start: its stake lost too stays within the limit."""
    return limit is None or net_loss + stake <= limit


# -- reading -------------------------------------------------------------------------------------
LIMITS = select(player_limits).where(player_limits.c.player_id == bindparam("p_player"))
TIME_OUT = select(func.max(player_time_outs.c.until)).where(player_time_outs.c.player_id == bindparam("p_player"))
# What a round takes from the player in a period: a complete round its stake less its win, an
# open one (awaiting a decision, pending at a seamless wallet) its stake, a void one nothing. A
# free round's stake is the operator's: the player staked nothing, and its win is theirs.
PAID = case((rounds.c.free_grant_id.is_(None), rounds.c.stake), else_=0)
TAKEN = case((rounds.c.status == literal_column("'complete'"), PAID - rounds.c.win),
             (rounds.c.status.in_([literal_column("'open'"), literal_column("'awaiting'"),
                                   literal_column("'pending'")]), PAID), else_=0)
NET_LOSSES = select(*(func.coalesce(func.sum(case((rounds.c.started_at > bindparam(f"p_since_{period}"), TAKEN),
                                                  else_=0)), 0) for period in PERIODS)).where(
    rounds.c.player_id == bindparam("p_player"), rounds.c.fun.is_(False),
    rounds.c.started_at > bindparam("p_since"))


def stored_limits(conn: Connection, player_id: int) -> dict[str, Limit]:
    """The player's limits as stored, by kind (only the kinds ever set)."""
    rows = conn.execute(LIMITS, {"p_player": player_id}).mappings()
    return {row["kind"]: Limit(row["value"], row["pending_value"], row["pending_at"]) for row in rows}


def limits_of(conn: Connection, player_id: int) -> dict[str, Limit]:
    """The player's limits by kind (a kind never set: no limit)."""
    stored = stored_limits(conn, player_id)
    return {kind: stored.get(kind, Limit()) for kind in KINDS}


def time_out_until(conn: Connection, player_id: int) -> int | None:
    """When the player's latest time-out ends (None: they never took one)."""
    return conn.execute(TIME_OUT, {"p_player": player_id}).scalar()


def net_losses(conn: Connection, player_id: int, now: int) -> dict[str, int]:
    """The player's net loss over each period up to ``now`` (negative: they are ahead)."""
    since = {f"p_since_{period}": now - length for period, length in PERIODS.items()}
    row = conn.execute(NET_LOSSES, {"p_player": player_id, "p_since": min(since.values()), **since}).one()
    return {period: int(loss) for period, loss in zip(PERIODS, row, strict=True)}


# -- the round's rule ----------------------------------------------------------------------------
def guarded(jurisdiction: Jurisdiction, fun: bool) -> bool:
    """Whether a session's rounds are checked against the player's own limits: real money, in a
    jurisdiction that offers them."""
    return jurisdiction.limits.enabled and not fun


def refuse_round(conn: Connection, player_id: int, session_started_at: int, stake: int, now: int) -> None:
    """Refuse a round the player's own limits stop (403): a time-out running
    (``TIMED_OUT``), the session past its time limit (``SESSION_LIMIT_REACHED``), a stake that
    would take the net loss of a period past its limit (``LOSS_LIMIT_REACHED``)."""
    until = time_out_until(conn, player_id)
    if until is not None and until > now:
        raise TimedOut(f"you took a time-out: no play until {iso_of(until)}", until=iso_of(until),
                       retry_after_s=-(-(until - now) // 1000))
    limits = limits_of(conn, player_id)
    minutes = limits[SESSION].in_force(now)
    if minutes is not None and now >= session_started_at + minutes * MINUTE_MS:
        raise SessionLimitReached(f"session_minutes: this session reached your session time limit of {minutes} "
                                  "minutes", field="session_minutes", minutes=minutes)
    loss_limits = {period: limits[f"loss_{period}"].in_force(now) for period in PERIODS}
    if all(limit is None for limit in loss_limits.values()):
        return
    losses = net_losses(conn, player_id, now)
    for period, limit in loss_limits.items():
        if not allows(limit, losses[period], stake):
            left = remaining(limit, losses[period])
            raise LossLimitReached(
                f"loss.{period}: the stake {to_text(stake)} would take your net loss of the last {period} past "
                f"your loss limit of {to_text(limit)}; {to_text(left)} remains", field=f"loss.{period}",
                period=period, limit=to_text(limit), remaining=to_text(left))


def iso_of(ms: int) -> str:
    """A time of the clock as ISO 8601 UTC (never None: ``ms`` is a time)."""
    return iso(ms) or ""


# -- changing ------------------------------------------------------------------------------------
def set_limits(conn: Connection, player_id: int, wanted: Mapping[str, int | None], now: int,
               cooling_off_ms: int) -> dict[str, Limit]:
    """Ask for each limit of ``wanted`` (by kind; None: no limit), in the caller's transaction
    (the player's row locked); the limits as they now stand."""
    stored = stored_limits(conn, player_id)
    current = {kind: stored.get(kind, Limit()) for kind in KINDS}
    for kind, value in wanted.items():
        changed = current[kind].asked(value, now, cooling_off_ms)
        if changed == current[kind]:
            continue
        values = dict(value=changed.value, pending_value=changed.pending_value, pending_at=changed.pending_at,
                      updated_at=now)
        if kind in stored:
            conn.execute(update(player_limits).where(and_(player_limits.c.player_id == player_id,
                                                          player_limits.c.kind == kind)).values(**values))
        else:
            conn.execute(insert(player_limits).values(player_id=player_id, kind=kind, **values))
        current[kind] = changed
    return current


def take_time_out(conn: Connection, player_id: int, hours: int, now: int) -> int:
    """A time-out of ``hours`` from ``now`` (the caller checked the jurisdiction allows it); when
    it ends: a running time-out that ends later is kept (a time-out is never shortened)."""
    until = max(now + hours * HOUR_MS, time_out_until(conn, player_id) or 0)
    conn.execute(insert(player_time_outs).values(player_id=player_id, hours=hours, started_at=now, until=until))
    return until


def view(limits: Mapping[str, Limit], losses: Mapping[str, int], until: int | None, session_started_at: int,
         now: int) -> dict[str, Any]:
    """The player's limits as the Player API shows them (amounts as text, times ISO 8601)."""
    def pending(limit: Limit, show: Any) -> dict[str, Any] | None:
        waiting = limit.pending(now)
        return None if waiting is None else {"limit": show(waiting[0]), "applies_at": iso_of(waiting[1])}

    def money(value: int | None) -> str | None:
        return None if value is None else to_text(value)

    loss = {}
    for period in PERIODS:
        limit = limits[f"loss_{period}"]
        held = limit.in_force(now)
        loss[period] = {"limit": money(held), "pending": pending(limit, money),
                        "net_loss": to_text(max(losses[period], 0)),
                        "remaining": None if held is None else to_text(remaining(held, losses[period]))}
    session = limits[SESSION]
    minutes = session.in_force(now)
    return {
        "loss": loss,
        "session_minutes": {"limit": minutes, "pending": pending(session, lambda value: value),
                            "ends_at": None if minutes is None else iso_of(session_started_at + minutes * MINUTE_MS)},
        "time_out": {"until": iso_of(until)} if until is not None and until > now else None,
    }
