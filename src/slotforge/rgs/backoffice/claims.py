"""Jackpot claims the jackpot service holds for an operator's rounds, and settling one now.

A networked pool pays a Mega at once and holds the claim until the game server confirms it: the
round's transaction queues the confirm in the outbox, delivered after the commit. While the
service cannot be reached the claim stays held (the round is committed; the player was paid). The
operator sees those claims here and may settle one at once instead of waiting for the outbox's
next attempt. A claim whose round never committed belongs to no operator's round: this server's
reconciler releases it after the lease (docs/jackpot.md). An embedded pool pays in the round's own
transaction and holds no claim.
"""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from slotforge.rgs.errors import JackpotUnavailable, NotFound
from slotforge.rgs.jackpots.networked import NetworkedJackpots, ServiceRefused
from slotforge.rgs.rounds.service import Server, iso
from slotforge.rgs.schema import players, rounds


def held_claims(server: Server, operator_id: int) -> list[dict[str, Any]]:
    """The claims held at the service for the operator's rounds, oldest first."""
    jackpots = server.jackpots
    if not isinstance(jackpots, NetworkedJackpots):
        return []
    held = service_answer(jackpots.held_claims)["entries"]
    by_round = {jackpots.round_of(entry["key"]): entry for entry in held}
    by_round.pop(None, None)
    if not by_round:
        return []
    with server.engine.connect() as conn:
        owned = conn.execute(
            select(rounds.c.id, rounds.c.game, rounds.c.status, players.c.external_id)
            .join(players, players.c.id == rounds.c.player_id)
            .where(rounds.c.id.in_(list(by_round)), players.c.operator_id == operator_id)).mappings().all()
    lines = [{"key": by_round[row["id"]]["key"], "round": row["id"], "game": row["game"],
              "player": row["external_id"], "round_status": row["status"],
              "amount": by_round[row["id"]]["amount"], "held_since": iso(by_round[row["id"]]["created_at"]),
              "status": "held"}
             for row in owned]
    return sorted(lines, key=lambda line: line["held_since"])


def settle_claim(server: Server, operator_id: int, key: str) -> dict[str, Any]:
    """Confirm the held claim ``key`` of one of the operator's rounds at the service now: its
    round is committed, so the claim is final (404 for any other claim)."""
    claim = next((line for line in held_claims(server, operator_id) if line["key"] == key), None)
    if claim is None:
        raise NotFound(f"key: no claim {key!r} is held for this operator's rounds", field="key")
    settled = service_answer(lambda: server.jackpots.confirm(key))
    return {**claim, "status": settled["status"]}


def service_answer(call):
    """The jackpot service's answer, or 503 naming it when it cannot be reached or refuses."""
    try:
        return call()
    except (httpx.HTTPError, ServiceRefused) as error:
        raise JackpotUnavailable(f"the jackpot service did not answer: {error}") from error
