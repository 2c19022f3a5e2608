"""What a player or an operator sees of a round: the engine's record and the server's fields,
times as ISO 8601 UTC."""

from __future__ import annotations

import json
import time
from functools import lru_cache
from typing import Any

from slotforge.rgs.money import to_text


def iso(ms: int | None) -> str | None:
    """Milliseconds since the epoch as an ISO 8601 UTC time."""
    if ms is None:
        return None
    seconds, millis = divmod(ms, 1000)
    return f"{utc_second(seconds)}.{millis:03d}Z"


@lru_cache(maxsize=64)
def utc_second(seconds: int) -> str:
    """A second since the epoch as ISO 8601 UTC, to the second (kept: every round of that second
    shows it twice, as its start and its end)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def round_answer(row: Any) -> dict[str, Any]:
    """A round request's answer: the round as it stands and the player's balance after it."""
    return {"round": round_view(row), "balance": to_text(row["balance_after"])}


def round_view(row: Any) -> dict[str, Any]:
    """The round record a player or operator sees: the engine's record and the server's fields;
    ``total_win`` includes any progressive jackpot."""
    record = json.loads(row["record"])
    record["total_win"] = to_text(row["win"]) if row["status"] == "complete" else record.get("total_win", "0.00")
    return {
        **record,
        "id": row["id"],
        "player": row["player_id"],
        "status": record.get("status") if row["status"] in ("awaiting", "open") else row["status"],
        "started_at": iso(row["started_at"]),
        "finished_at": iso(row["finished_at"]),
        "balance_before": to_text(row["balance_before"]),
        "balance_after": to_text(row["balance_after"]),
        "jackpot_win": to_text(row["jackpot_win"]),
        "currency": row["currency"],
        **({"void_reason": row["void_reason"]} if row["void_reason"] else {}),
        **({"wallet": wallet_view(row)} if row.get("wallet_tx") else {}),
        **({"free_round": {"grant": row["free_grant_id"], "campaign": row["free_campaign"]}}
           if row.get("free_grant_id") is not None else {}),
    }


def wallet_view(row: Any) -> dict[str, Any]:
    """Where a seamless round stands with the operator's wallet: its debit's transaction id and
    ``debited``, ``credit_pending`` (until the wallet acknowledges the win), ``settled``,
    ``rollback_pending`` or ``rolled_back``."""
    return {"transaction_id": row["wallet_tx"], "status": row.get("wallet_status") or "debited"}
