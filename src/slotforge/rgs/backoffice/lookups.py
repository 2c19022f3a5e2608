"""What the back office looks up for one operator: its players, a player's sessions, plans and
ledger, rounds by game, player, time, status and win, one round with its money, and the messages
still owed to the wallet and the jackpot service for its rounds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Select, case, func, or_, select

from slotforge.rgs.errors import NotFound
from slotforge.rgs.money import to_signed_text, to_text
from slotforge.rgs.rounds.views import iso
from slotforge.rgs.schema import autoplays, ledger, outbox, players, rounds, sessions
from slotforge.rgs.wallets.internal import SIGN

LEDGER_ROWS = 100
SESSION_ROWS = 20
PLAN_ROWS = 20
# Ledger kinds that take money from the player's balance (the rest add to it).
# The ledger kinds that take money from a balance, as the wallet books them (one rule: its SIGN).
DEBITS = frozenset(kind for kind, sign in SIGN.items() if sign < 0)


def not_found(what: str) -> NotFound:
    return NotFound(f"{what} not found")


def operator_player(conn: Connection, operator_id: int, external_id: str) -> dict[str, Any]:
    """The operator's player ``external_id`` (404 for any other operator's, or none)."""
    row = conn.execute(select(players).where(players.c.operator_id == operator_id,
                                             players.c.external_id == external_id)).mappings().first()
    if row is None:
        raise not_found(f"player {external_id}")
    return dict(row)


def find_players(conn: Connection, operator_id: int, text: str, limit: int) -> list[dict[str, Any]]:
    """The operator's players whose id holds ``text`` in any case: those whose id starts with it
    first (what an operator typing an id's beginning wants), then the most recently active."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    starts = players.c.external_id.ilike(f"{escaped}%", escape="\\")
    query = (select(players).where(players.c.operator_id == operator_id,
                                   players.c.external_id.ilike(f"%{escaped}%", escape="\\"))
             .order_by(case((starts, 0), else_=1), players.c.last_round_at.desc().nulls_last(), players.c.id.desc())
             .limit(limit))
    return [player_view(row) for row in conn.execute(query).mappings()]


def player_view(row: Any) -> dict[str, Any]:
    return {"player_id": row["external_id"], "currency": row["currency"], "balance": to_text(row["balance"]),
            "wallet": row["wallet"], "created_at": iso(row["created_at"]), "last_round_at": iso(row["last_round_at"])}


def overview(conn: Connection, operator_id: int, external_id: str) -> dict[str, Any]:
    """A player: balance, latest sessions, open rounds, autoplay plans and latest ledger entries."""
    player = operator_player(conn, operator_id, external_id)
    own = player["id"]
    latest_sessions = conn.execute(select(sessions).where(sessions.c.player_id == own)
                                   .order_by(sessions.c.id.desc()).limit(SESSION_ROWS)).mappings().all()
    open_rounds = conn.execute(select(rounds.c.id, rounds.c.game, rounds.c.status, rounds.c.stake, rounds.c.started_at)
                               .where(rounds.c.player_id == own, rounds.c.status.in_(("awaiting", "pending")))
                               .order_by(rounds.c.id)).mappings().all()
    plans = conn.execute(select(autoplays).join(sessions, sessions.c.id == autoplays.c.session_id)
                         .where(sessions.c.player_id == own).order_by(autoplays.c.id.desc())
                         .limit(PLAN_ROWS)).mappings().all()
    entries = conn.execute(select(ledger).where(ledger.c.player_id == own).order_by(ledger.c.id.desc())
                           .limit(LEDGER_ROWS)).mappings().all()
    return {
        **player_view(player),
        "sessions": [{"id": s["id"], "jurisdiction": s["jurisdiction"], "language": s["language"],
                      "started_at": iso(s["created_at"]), "last_seen": iso(s["last_seen"])} for s in latest_sessions],
        "open_rounds": [{"id": r["id"], "game": r["game"], "status": r["status"], "stake": to_text(r["stake"]),
                         "started_at": iso(r["started_at"])} for r in open_rounds],
        "autoplays": [plan_view(p) for p in plans],
        "ledger": [ledger_view(e) for e in entries],
    }


def plan_view(row: Any) -> dict[str, Any]:
    plan = json.loads(row["plan"])
    return {"id": row["id"], "game": plan.get("game"), "rounds": plan.get("rounds"), "played": row["played"],
            "net": to_signed_text(row["net"]), "stopped": row["stopped"], "created_at": iso(row["created_at"])}


def ledger_view(row: Any) -> dict[str, Any]:
    """A ledger entry with its signed amount (what it did to the balance)."""
    amount = -row["amount"] if row["kind"] in DEBITS else row["amount"]
    return {"id": row["id"], "kind": row["kind"], "amount": to_signed_text(amount), "round_id": row["round_id"],
            "reference": row["reference"], "created_at": iso(row["created_at"])}


# -- rounds ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoundFilter:
    """What a round search asks for; each field left None matches every round."""

    player: str | None = None
    game: str | None = None
    status: str | None = None
    since: int | None = None  # ms, started at or after
    until: int | None = None  # ms, started before
    min_win: int | None = None  # minor units, inclusive
    max_win: int | None = None
    before: int | None = None  # round id: the page after the one that ended there


def operator_rounds(operator_id: int) -> Select:
    return (select(rounds, players.c.external_id).join(players, players.c.id == rounds.c.player_id)
            .where(players.c.operator_id == operator_id))


def search_rounds(conn: Connection, operator_id: int, wanted: RoundFilter, limit: int) -> list[dict[str, Any]]:
    """The operator's rounds matching ``wanted``, newest first, without their records."""
    query = operator_rounds(operator_id)
    for condition, clause in (
        (wanted.player, lambda: players.c.external_id == wanted.player),
        (wanted.game, lambda: rounds.c.game == wanted.game),
        (wanted.status, lambda: rounds.c.status == wanted.status),
        (wanted.since, lambda: rounds.c.started_at >= wanted.since),
        (wanted.until, lambda: rounds.c.started_at < wanted.until),
        (wanted.min_win, lambda: rounds.c.win >= wanted.min_win),
        (wanted.max_win, lambda: rounds.c.win <= wanted.max_win),
        (wanted.before, lambda: rounds.c.id < wanted.before),
    ):
        if condition is not None:
            query = query.where(clause())
    rows = conn.execute(query.order_by(rounds.c.id.desc()).limit(limit)).mappings().all()
    return [round_line(row) for row in rows]


def round_line(row: Any) -> dict[str, Any]:
    """A round as a line of a list: who, what, when and how much."""
    return {"id": row["id"], "player_id": row["external_id"], "game": row["game"], "status": row["status"],
            "currency": row["currency"], "stake": to_text(row["stake"]), "win": to_text(row["win"]),
            "jackpot_win": to_text(row["jackpot_win"]), "started_at": iso(row["started_at"]),
            "finished_at": iso(row["finished_at"]), "void_reason": row["void_reason"],
            "wallet_status": row["wallet_status"]}


def one_round(conn: Connection, operator_id: int, round_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One of the operator's rounds (the stored row) and the ledger entries that name it."""
    row = conn.execute(operator_rounds(operator_id).where(rounds.c.id == round_id)).mappings().first()
    if row is None:
        raise not_found(f"round {round_id}")
    entries = conn.execute(select(ledger).where(ledger.c.round_id == round_id, ledger.c.player_id == row["player_id"])
                           .order_by(ledger.c.id)).mappings().all()
    return dict(row), [ledger_view(e) for e in entries]


# -- what is still owed ---------------------------------------------------------------------------
def owed(conn: Connection, operator_id: int, limit: int) -> dict[str, Any]:
    """The undelivered outbox messages of the operator's rounds (oldest first), and its rounds
    whose money is still on its way at a seamless wallet."""
    mine = select(rounds.c.id).join(players, players.c.id == rounds.c.player_id).where(
        players.c.operator_id == operator_id)
    messages = conn.execute(select(outbox).where(outbox.c.delivered_at.is_(None), outbox.c.round_id.in_(mine))
                            .order_by(outbox.c.id).limit(limit)).mappings().all()
    # Through the indexes: a pending round's status, and the wallet's messages still owed (its
    # credits and rollbacks), never a walk through every round.
    owed_to_wallet = select(outbox.c.round_id).where(outbox.c.delivered_at.is_(None), outbox.c.target == "wallet")
    waiting = conn.execute(operator_rounds(operator_id).where(or_(
        rounds.c.status == "pending", rounds.c.id.in_(owed_to_wallet)))
        .order_by(rounds.c.id).limit(limit)).mappings().all()
    backlog = conn.execute(select(outbox.c.target, func.count()).where(
        outbox.c.delivered_at.is_(None), outbox.c.round_id.in_(mine)).group_by(outbox.c.target)).all()
    return {
        "backlog": {target: int(count) for target, count in backlog},
        "messages": [{"id": m["id"], "target": m["target"], "kind": m["kind"], "key": m["key"],
                      "round_id": m["round_id"], "created_at": iso(m["created_at"]), "due_at": iso(m["due_at"]),
                      "attempts": m["attempts"], "last_error": m["last_error"]} for m in messages],
        "wallet_pending": [round_line(r) for r in waiting],
    }


def stop_plan(conn: Connection, operator_id: int, plan_id: int, now: int) -> dict[str, Any]:
    """Stop one of the operator's autoplay plans (``stopped = "operator"``); the round in play
    finishes as it is. Stopping a stopped plan keeps its first reason."""
    del now  # plans keep no stop time
    row = conn.execute(select(autoplays).join(sessions, sessions.c.id == autoplays.c.session_id)
                       .join(players, players.c.id == sessions.c.player_id)
                       .where(autoplays.c.id == plan_id, players.c.operator_id == operator_id)).mappings().first()
    if row is None:
        raise not_found(f"autoplay {plan_id}")
    if row["stopped"] is None:
        conn.execute(autoplays.update().where(autoplays.c.id == plan_id, autoplays.c.stopped.is_(None))
                     .values(stopped="operator"))
    return plan_view({**row, "stopped": row["stopped"] or "operator"})
