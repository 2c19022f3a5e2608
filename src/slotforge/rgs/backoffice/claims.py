"""Jackpot claims the jackpot service holds for an operator's rounds, and settling one now.

A networked pool pays a Mega at once and holds the claim until the game server confirms it: the
round's transaction queues the confirm in the outbox, delivered after the commit. While the
service cannot be reached the claim stays held (the round is committed; the player was paid). The
operator sees those claims here and may settle one at once instead of waiting for the outbox's
next attempt. An embedded pool pays in the round's own transaction and holds no claim.

A claim can also be held for a round that exists but never committed it: the claim was made, then
the process died before the round's transaction committed (the round still awaits its decision).
Settling such a claim releases it, the payout going back into the pot, once it has been held for
the lease (``jackpot_claim_lease_s``, as this server's reconciler would): until then its round's
transaction may still be committing it, and settling answers 409 ``CLAIM_NOT_COMMITTED``. Only a
claim whose confirm its round committed is ever confirmed.
"""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from slotforge.rgs.errors import ClaimNotCommitted, JackpotUnavailable, NotFound
from slotforge.rgs.jackpots.networked import TARGET, NetworkedJackpots, ServiceRefused, confirm_key
from slotforge.rgs.rounds.service import Server
from slotforge.rgs.rounds.views import iso
from slotforge.rgs.schema import outbox, players, rounds


def held_claims(server: Server, operator_id: int) -> list[dict[str, Any]]:
    """The claims held at the service for the operator's rounds, oldest first, as the back office
    shows them; each says whether its round committed it (``committed``)."""
    return [{name: value for name, value in line.items() if name != "held_ms"}
            for line in claims_held(server, operator_id)]


def claims_held(server: Server, operator_id: int) -> list[dict[str, Any]]:
    """:func:`held_claims`, each with how long the service has held it (``held_ms``)."""
    jackpots = server.jackpots
    if not isinstance(jackpots, NetworkedJackpots):
        return []
    held = service_answer(jackpots.held_claims)
    by_round = {jackpots.round_of(entry["key"]): entry for entry in held["entries"]}
    by_round.pop(None, None)
    if not by_round:
        return []
    with server.engine.connect() as conn:
        owned = conn.execute(
            select(rounds.c.id, rounds.c.game, rounds.c.status, players.c.external_id)
            .join(players, players.c.id == rounds.c.player_id)
            .where(rounds.c.id.in_(list(by_round)), players.c.operator_id == operator_id)).mappings().all()
        confirms = {confirm_key(by_round[row["id"]]["key"]) for row in owned}
        committed = set(conn.execute(select(outbox.c.key).where(
            outbox.c.target == TARGET, outbox.c.key.in_(list(confirms)))).scalars())
    lines = []
    for row in owned:
        entry = by_round[row["id"]]
        lines.append({"key": entry["key"], "round": row["id"], "game": row["game"], "player": row["external_id"],
                      "round_status": row["status"], "amount": entry["amount"],
                      "held_since": iso(entry["created_at"]), "held_ms": held["now"] - entry["created_at"],
                      "committed": confirm_key(entry["key"]) in committed, "status": "held"})
    return sorted(lines, key=lambda line: line["held_since"])


def settle_claim(server: Server, operator_id: int, key: str) -> dict[str, Any]:
    """Settle the held claim ``key`` of one of the operator's rounds at the service now: confirmed
    when its round committed it, released when its round never did and the lease is over (409
    before: the round may still be committing it); 404 for any other claim."""
    claim = next((line for line in claims_held(server, operator_id) if line["key"] == key), None)
    if claim is None:
        raise NotFound(f"key: no claim {key!r} is held for this operator's rounds", field="key")
    jackpots = server.jackpots
    if claim["committed"]:
        settled = service_answer(lambda: jackpots.confirm(key))
    else:
        refuse_within_lease(claim, jackpots.lease_ms)
        settled = service_answer(lambda: jackpots.release(key))
    claim.pop("held_ms")
    return {**claim, "status": settled["status"]}


def refuse_within_lease(claim: dict[str, Any], lease_ms: int) -> None:
    """409 ``CLAIM_NOT_COMMITTED`` for a claim its round has not committed, held for less than the
    lease: the round's transaction may still commit it, so it cannot be released yet."""
    if claim["held_ms"] < lease_ms:
        wait_s = -(-(lease_ms - claim["held_ms"]) // 1000)
        raise ClaimNotCommitted(f"key: round {claim['round']} has not committed claim {claim['key']!r}; it may "
                                f"still be committing it. Unless it does, the claim is released once held for "
                                f"the lease ({lease_ms // 1000} s): settle it again in {wait_s} s",
                                field="key", retry_after_s=wait_s)


def service_answer(call):
    """The jackpot service's answer, or 503 naming it when it cannot be reached or refuses."""
    try:
        return call()
    except (httpx.HTTPError, ServiceRefused) as error:
        raise JackpotUnavailable(f"the jackpot service did not answer: {error}") from error
