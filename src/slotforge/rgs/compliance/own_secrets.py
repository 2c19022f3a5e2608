"""Secrets the server makes for itself: one per purpose, made on first use and stored in the
database, so that every process of a server (and every server on one database) signs and checks
with the same one. Never shown, never logged."""

from __future__ import annotations

import secrets
import time

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from slotforge.rgs.schema import server_secrets

PURPOSES = ("dispute_links", "pseudonyms")


def server_secret(engine: Engine, purpose: str) -> bytes:
    """The server's secret for ``purpose``, made now if it has none yet (a race of two processes
    leaves the first one's: the second insert is refused and its value read back)."""
    if purpose not in PURPOSES:
        raise ValueError(f"purpose: expected one of {PURPOSES}, got {purpose!r}")
    query = select(server_secrets.c.value).where(server_secrets.c.name == purpose)
    with engine.connect() as conn:
        found = conn.execute(query).scalar()
    if found is None:
        try:
            with engine.begin() as conn:
                conn.execute(insert(server_secrets).values(name=purpose, value=secrets.token_hex(32),
                                                           created_at=int(time.time() * 1000)))
        except IntegrityError:  # another process made it meanwhile (the primary key refused ours)
            pass
        with engine.connect() as conn:
            found = conn.execute(query).scalar_one()
    return bytes.fromhex(found)
