"""The rules of a round that the services check in Python, each written once here; the fast paths'
SQL states the same rules as conditions of their statements (:mod:`slotforge.rgs.store`), or the
rounds table holds them (a round awaiting a decision), and when one of those refuses a round,
these say why (docs/server.md, "Where a round's rules and statements live", has the table)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection

from slotforge.rgs import limits
from slotforge.rgs.errors import AutoplayStopped, InsufficientFunds, RoundInProgress, TooSoon, not_found
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.settings import Jurisdiction
from slotforge.rgs.store import RoundStore


def refuse_open_round(store: RoundStore, conn: Connection, player_id: int, game: str) -> None:
    """A player has no second round of a game while one awaits a decision (409 ``ROUND_IN_PROGRESS``).
    The rounds table's triggers hold the rule for every write of a round; the general path asks
    first, before a debit is sent or the round function runs, and a refused fast path asks why."""
    open_round = store.open_round(conn, player_id, game)
    if open_round is not None:
        raise RoundInProgress(f"round {open_round} of {game} waits for a decision; finish it "
                              "first", round=open_round)

def refuse_too_soon(player: Mapping[str, Any], jurisdiction: Jurisdiction, now: int) -> None:
    """The jurisdiction's least time between a player's rounds (429 ``MIN_ROUND_DURATION``)."""
    last = player["last_round_at"]
    if jurisdiction.min_round_ms and last is not None and now - last < jurisdiction.min_round_ms:
        wait_ms = jurisdiction.min_round_ms - (now - last)
        raise TooSoon(f"rounds must be at least {jurisdiction.min_round_ms} ms apart",
                      retry_after_s=-(-wait_ms // 1000))

def refuse_stopped_autoplay(store: RoundStore, conn: Connection, session_id: int, autoplay_id: int) -> None:
    """A round of an autoplay plan: the session's plan, not stopped (409 ``AUTOPLAY_STOPPED``)."""
    plan = store.autoplay(conn, autoplay_id)
    if plan is None or plan["session_id"] != session_id:
        raise not_found(f"autoplay {autoplay_id}")
    if plan["stopped"]:
        raise AutoplayStopped(f"autoplay {autoplay_id} stopped: {plan['stopped']}", reason=plan["stopped"])


def refuse_past_own_limits(conn: Connection, jurisdiction: Jurisdiction, fun: bool, player_id: int,
                           session_started_at: int, stake: int, now: int) -> None:
    """The player's own limits, where the jurisdiction offers them (403 ``TIMED_OUT``,
    ``SESSION_LIMIT_REACHED``, ``LOSS_LIMIT_REACHED``; :func:`slotforge.rgs.limits.refuse_round`).
    Only the general path checks them: a session they guard never takes a fast path
    (:func:`~slotforge.rgs.rounds.straight.plain`), so the rule has no SQL twin to keep in step."""
    if limits.guarded(jurisdiction, fun):
        limits.refuse_round(conn, player_id, session_started_at, stake, now)


def refuse_short_balance(balance: int, stake: int) -> None:
    """402 ``INSUFFICIENT_FUNDS`` when ``balance`` does not cover ``stake`` (minor units)."""
    if balance < stake:
        raise InsufficientFunds(f"balance {to_text(balance)} is below the stake {to_text(stake)}",
                                balance=to_text(balance))


def autoplay_stop(rules: dict[str, Any], played: int, net: int, win: int, feature_played: bool) -> str | None:
    """The reason an autoplay plan stops after a round, or None to go on."""
    if rules.get("stop_on_any_win") and win > 0:
        return "any_win"
    if rules.get("stop_on_feature") and feature_played:
        return "feature"
    if rules.get("single_win_at_least") and win >= to_minor(Decimal(rules["single_win_at_least"])):
        return "single_win_at_least"
    if rules.get("cash_increase") and net >= to_minor(Decimal(rules["cash_increase"])):
        return "cash_increase"
    if rules.get("cash_decrease") and -net >= to_minor(Decimal(rules["cash_decrease"])):
        return "cash_decrease"
    if played >= rules["rounds"]:
        return "rounds"
    return None
