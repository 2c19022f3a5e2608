"""An operator's API keys: several, each named and scoped, created, listed, revoked and rotated.

A key is 256 random bits shown once; only its SHA-256 is kept. A key opens requests until its
``revoked_at``: a revocation sets it to now, a rotation makes a new key of the same name and
scopes and sets the old key's to the end of a grace period, so the clients using it can move to
the new one meanwhile. Keys are read from the database on every request (never cached), so a
revocation is refused at once by every server process.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

from sqlalchemy import Connection, insert, or_, select, update

from slotforge.rgs.backoffice.roles import SCOPES, check_scopes
from slotforge.rgs.schema import operator_keys, operators

NAME = re.compile(r"^[A-Za-z0-9_.-]{1,60}$")
LONGEST_GRACE_MS = 30 * 86_400_000  # a rotation's old key works for at most 30 days more
# A key's last-used time is written at most this often (a write per request would be waste).
TOUCH_EVERY_MS = 60_000
UNITS_MS = {"s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


class KeyRefused(ValueError):
    """A key asked for that is not the operator's, or a name or scope refused."""


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def hashed(secret: str) -> str:
    """How a key is kept (SHA-256: a key is 256 random bits, nothing to guess at)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def check_name(name: str) -> str:
    if not NAME.match(name):
        raise KeyRefused(f"name: expected 1 to 60 letters, digits, '.', '_' or '-', got {name!r}")
    return name


def parse_grace(text: str) -> int:
    """A grace period as written (``0``, ``90s``, ``15m``, ``24h``, ``7d``) in milliseconds."""
    match = re.fullmatch(r"(\d+)([smhd]?)", text.strip())
    if match is None or (match.group(2) == "" and match.group(1) != "0"):
        raise KeyRefused(f"grace: expected 0 or a number and a unit s, m, h or d (24h), got {text!r}")
    grace = int(match.group(1)) * UNITS_MS.get(match.group(2), 0)
    if grace > LONGEST_GRACE_MS:
        raise KeyRefused(f"grace: at most 30d, got {text!r}")
    return grace


def operator_named(conn: Connection, name: str) -> int:
    """The id of the operator ``name`` (KeyRefused naming it otherwise)."""
    found = conn.execute(select(operators.c.id).where(operators.c.name == name)).scalar()
    if found is None:
        raise KeyRefused(f"operator: no operator named {name!r}")
    return found


def live(now: int) -> Any:
    """The condition of a key that still opens requests."""
    return or_(operator_keys.c.revoked_at.is_(None), operator_keys.c.revoked_at > now)


def create(conn: Connection, operator_id: int, name: str, scopes: Any, now: int) -> tuple[dict[str, Any], str]:
    """A new key: its row as :func:`view` shows it and its secret (the only time it is shown)."""
    check_name(name)
    chosen = check_scopes(scopes)
    taken = conn.execute(select(operator_keys.c.id).where(
        operator_keys.c.operator_id == operator_id, operator_keys.c.name == name,
        operator_keys.c.revoked_at.is_(None))).first()
    if taken is not None:
        raise KeyRefused(f"name: a key named {name!r} exists already (revoke or rotate it)")
    secret = new_secret()
    key_id = conn.execute(insert(operator_keys).values(
        operator_id=operator_id, name=name, key_hash=hashed(secret), scopes=" ".join(chosen), created_at=now,
    ).returning(operator_keys.c.id)).scalar_one()
    return one(conn, operator_id, key_id, now), secret


def listing(conn: Connection, operator_id: int, now: int) -> list[dict[str, Any]]:
    """The operator's keys, revoked ones too, newest first."""
    rows = conn.execute(select(operator_keys).where(operator_keys.c.operator_id == operator_id)
                        .order_by(operator_keys.c.id.desc())).mappings().all()
    return [view(row, now) for row in rows]


def one(conn: Connection, operator_id: int, key_id: int, now: int) -> dict[str, Any]:
    return view(row_of(conn, operator_id, key_id), now)


def row_of(conn: Connection, operator_id: int, key_id: int) -> Any:
    row = conn.execute(select(operator_keys).where(operator_keys.c.id == key_id,
                                                   operator_keys.c.operator_id == operator_id)).mappings().first()
    if row is None:
        raise KeyRefused(f"key: the operator has no key {key_id}")
    return row


def named(conn: Connection, operator_id: int, name: str) -> int:
    """The id of the operator's key ``name`` not yet revoked (the newest, after a rotation)."""
    found = conn.execute(select(operator_keys.c.id).where(
        operator_keys.c.operator_id == operator_id, operator_keys.c.name == name,
        operator_keys.c.revoked_at.is_(None)).order_by(operator_keys.c.id.desc())).scalar()
    if found is None:
        raise KeyRefused(f"key: the operator has no key named {name!r} that is not revoked")
    return found


def view(row: Any, now: int) -> dict[str, Any]:
    """A key as listed: never its secret nor its hash."""
    revoked_at = row["revoked_at"]
    state = "active" if revoked_at is None else "expiring" if revoked_at > now else "revoked"
    return {"id": row["id"], "name": row["name"], "scopes": row["scopes"].split(), "state": state,
            "created_at": row["created_at"], "last_used_at": row["last_used_at"], "revoked_at": revoked_at}


def revoke(conn: Connection, operator_id: int, key_id: int, now: int) -> dict[str, Any]:
    """Revoke a key now (one revoked already stays as it was; an expiring one stops now)."""
    row = row_of(conn, operator_id, key_id)
    if row["revoked_at"] is None or row["revoked_at"] > now:
        conn.execute(update(operator_keys).where(operator_keys.c.id == key_id).values(revoked_at=now))
    return one(conn, operator_id, key_id, now)


def rotate(conn: Connection, operator_id: int, key_id: int, grace_ms: int, now: int
           ) -> tuple[dict[str, Any], dict[str, Any], str]:
    """A new key beside ``key_id`` with its name and scopes; the old one revoked after
    ``grace_ms``. The old key as it is now, the new one, and the new one's secret."""
    row = row_of(conn, operator_id, key_id)
    if row["revoked_at"] is not None:
        raise KeyRefused(f"key: key {key_id} ({row['name']}) is revoked or being rotated already")
    if not 0 <= grace_ms <= LONGEST_GRACE_MS:
        raise KeyRefused(f"grace: expected 0 to {LONGEST_GRACE_MS // 1000} seconds, got {grace_ms // 1000}")
    conn.execute(update(operator_keys).where(operator_keys.c.id == key_id).values(revoked_at=now + grace_ms))
    new, secret = create(conn, operator_id, row["name"], row["scopes"], now)
    return one(conn, operator_id, key_id, now), new, secret


def opened_by(conn: Connection, secret: str, now: int) -> Any:
    """The live key ``secret`` is, with its operator's name (None if none is)."""
    return conn.execute(
        select(operator_keys.c.id, operator_keys.c.operator_id, operator_keys.c.name, operator_keys.c.scopes,
               operator_keys.c.last_used_at, operators.c.name.label("operator"))
        .join(operators, operators.c.id == operator_keys.c.operator_id)
        .where(operator_keys.c.key_hash == hashed(secret), live(now))).mappings().first()


def touch(conn: Connection, key_id: int, now: int) -> None:
    """Record a use of the key (the caller writes at most every ``TOUCH_EVERY_MS``)."""
    conn.execute(update(operator_keys).where(operator_keys.c.id == key_id).values(last_used_at=now))


__all__ = ["SCOPES", "hashed", "KeyRefused", "create", "listing", "revoke", "rotate", "opened_by", "parse_grace"]
