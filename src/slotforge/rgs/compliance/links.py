"""Dispute links: a signed, expiring address of one round's replay page.

Support sends it to a player or a regulator, who opens it without logging in. The signature is an
HMAC (SHA-256, the server's own secret) over the round's id and the expiry, so the link opens that
one round until that moment and nothing else: another round, a later expiry or an altered
signature is refused (403) and shows nothing.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy import Engine

from slotforge.rgs.compliance.own_secrets import server_secret

PATH = "/dispute/{round_id}"
LONGEST_HOURS = 24 * 90  # a link lives at most this long (a regulator's inquiry can take weeks)


class LinkRefused(Exception):
    """A link whose signature does not hold, or that has expired."""


@dataclass(frozen=True)
class DisputeLink:
    round_id: int
    expires_ms: int
    signature: str

    def path(self) -> str:
        return f"{PATH.format(round_id=self.round_id)}?expires={self.expires_ms}&signature={self.signature}"


def signature(secret: bytes, round_id: int, expires_ms: int) -> str:
    return hmac.new(secret, f"dispute:{round_id}:{expires_ms}".encode(), hashlib.sha256).hexdigest()


def issue(engine: Engine, round_id: int, expires_ms: int) -> DisputeLink:
    """A link to ``round_id``'s replay that opens until ``expires_ms`` (ms since the epoch)."""
    return DisputeLink(round_id, expires_ms, signature(server_secret(engine, "dispute_links"), round_id, expires_ms))


def check(engine: Engine, round_id: int, expires_ms: int, given: str, now_ms: int) -> None:
    """Raise :class:`LinkRefused` unless the link is this server's, for this round, and unexpired."""
    expected = signature(server_secret(engine, "dispute_links"), round_id, expires_ms)
    if not hmac.compare_digest(expected, given):
        raise LinkRefused("the link's signature does not hold")
    if now_ms >= expires_ms:
        raise LinkRefused("the link has expired")
