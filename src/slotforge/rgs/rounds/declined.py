"""A seamless debit the wallet declined, or never answered: the round is void, its rollback on
its way, nothing taken (the money guarantees are
:mod:`slotforge.rgs.wallets.seamless.debits`'s)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection

from slotforge.rgs.money import to_text
from slotforge.rgs.store import RoundStore
from slotforge.rgs.wallets.seamless.client import Declined
from slotforge.rgs.wallets.seamless.debits import DebitIntent, Debits


def declined(debits: Debits, store: RoundStore, conn: Connection, row: dict[str, Any],
             debit: DebitIntent, error: Declined, now: int) -> tuple[int, dict[str, Any]]:
    """A seamless debit that did not succeed: the round is void, its rollback delivered,
    nothing taken; 402 when the wallet said so, else 503."""
    debits.declined(conn, debit, now)
    reason = f"wallet: {error}"
    row.update(status="void", void_reason=reason, balance_after=row["balance_before"], finished_at=now,
               wallet_tx=debit.transaction_id, wallet_status="rollback_pending",
               record=json.dumps({"game": row["game"], "status": "void"}))
    store.void_round(conn, row["id"], status="void", void_reason=reason, balance_after=row["balance_before"],
                     finished_at=now, record=row["record"])
    if error.code == "INSUFFICIENT_FUNDS":
        balance = {} if error.balance is None else {"balance": to_text(error.balance)}
        return 402, {"error": "INSUFFICIENT_FUNDS", "message": f"the operator's wallet: {error}; nothing was "
                     "taken", "round": row["id"], **balance}
    return 503, {"error": "WALLET_UNAVAILABLE", "message": f"{error}; the round is void and nothing was taken",
                 "round": row["id"]}
