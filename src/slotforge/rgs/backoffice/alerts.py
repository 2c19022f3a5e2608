"""The alerts the back office's dashboard shows, the same ones the shipped Prometheus rules
(``slotforge/rgs/alerts.rules.yml``, docs/back-office.md) raise from ``/metrics``:

- ``SlotforgeRtpOutOfBand``: a game's actual RTP over the last ``RTP_WINDOW_MS`` lies outside its
  99% band (:mod:`slotforge.rgs.backoffice.band`);
- ``SlotforgeWalletFailing``: messages to the operator's seamless wallet whose delivery failed;
- ``SlotforgeOutboxBackingUp``: a message owed for longer than ``OUTBOX_LAG_S``;
- ``SlotforgeJackpotUnreachable``: messages to the jackpot service whose delivery failed.

The dashboard evaluates them for one operator's rounds; Prometheus, from the metrics, for the
whole server.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, func, select

from slotforge.rgs.backoffice import reports
from slotforge.rgs.schema import outbox, players, rounds

RTP_WINDOW_MS = 24 * 3_600_000  # the live RTP of the metrics and the alerts: rounds finished in the last day
OUTBOX_LAG_S = 300  # a message owed this long means its target is not taking them


def alert(name: str, subject: str, summary: str) -> dict[str, Any]:
    return {"alert": name, "subject": subject, "summary": summary}


def rtp_alerts(conn: Connection, operator_id: int | None, now: int,
               theory: Mapping[str, tuple[Decimal, Decimal | None]]) -> list[dict[str, Any]]:
    found = []
    for line in reports.live_rtp(conn, operator_id, now - RTP_WINDOW_MS, None, dict(theory)):
        if line["outside_band"]:
            where = f"{line['game']} {line['version']}"
            found.append(alert("SlotforgeRtpOutOfBand", f"game:{line['game']}/{line['version']}",
                               f"{where}: live RTP {line['rtp']} over the last day's {line['rounds']} rounds "
                               f"is outside its band {line['band_low']} to {line['band_high']}"))
    return found


def outbox_alerts(conn: Connection, operator_id: int, now: int) -> list[dict[str, Any]]:
    """The operator's messages owed: failing deliveries per target, and the oldest one's age."""
    mine = select(rounds.c.id).join(players, players.c.id == rounds.c.player_id).where(
        players.c.operator_id == operator_id)
    rows = conn.execute(select(outbox.c.target, func.count(), func.min(outbox.c.created_at),
                               func.count(outbox.c.last_error))
                        .where(outbox.c.delivered_at.is_(None), outbox.c.round_id.in_(mine))
                        .group_by(outbox.c.target)).all()
    found = []
    for target, count, oldest, failing in rows:
        if failing and target == "wallet":
            found.append(alert("SlotforgeWalletFailing", "target:wallet",
                               f"the seamless wallet refused or did not answer {failing} message(s)"))
        if failing and target == "jackpot":
            found.append(alert("SlotforgeJackpotUnreachable", "target:jackpot",
                               f"the jackpot service refused or did not answer {failing} message(s)"))
        age_s = (now - int(oldest)) / 1000
        if age_s > OUTBOX_LAG_S:
            found.append(alert("SlotforgeOutboxBackingUp", f"target:{target}",
                               f"{count} message(s) to {target} owed, the oldest for {age_s:.0f} s"))
    return found


def current(conn: Connection, operator_id: int, now: int,
            theory: Mapping[str, tuple[Decimal, Decimal | None]]) -> list[dict[str, Any]]:
    """The alerts firing now for the operator's rounds."""
    return rtp_alerts(conn, operator_id, now, theory) + outbox_alerts(conn, operator_id, now)
