"""Who is asking: session tokens of players (an operator's keys and users are in
:mod:`slotforge.rgs.api.callers`).

Tokens and keys are 256 random bits, shown once and stored only as their SHA-256. A session
expires after a period of inactivity (the jurisdiction's, else the server's setting).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import anyio.to_thread
from sqlalchemy import Connection, bindparam, insert, select, update

from slotforge.rgs.backoffice.roles import SCOPES
from slotforge.rgs.errors import InvalidSession, NotFound, invalid
from slotforge.rgs.rounds.service import Auth, Server
from slotforge.rgs.schema import ledger, operator_keys, operators, players, sessions

# Refresh a session's last-seen time at most this often (a write per request would be waste).
TOUCH_EVERY_MS = 5_000
# A session read from the database serves this process's next requests for this long (a read per
# request would be most of a round's statements); never longer than a last-seen refresh.
CACHE_MS = TOUCH_EVERY_MS
CACHE_SIZE = 100_000  # sessions remembered at most (the cache is emptied when full)
# Every request's look-up, built once (see the round's statements in the service).
SESSION = (select(sessions, players.c.fun, players.c.currency, players.c.wallet, players.c.operator_id)
           .join(players, players.c.id == sessions.c.player_id)
           .where(sessions.c.token_hash == bindparam("p_hash")))


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def hashed(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def add_operator(conn: Connection, name: str, now: int) -> str:
    """Create an operator with a first key of every scope, named ``default``; returns the key
    (the only time it is shown)."""
    if conn.execute(select(operators.c.id).where(operators.c.name == name)).first() is not None:
        raise ValueError(f"operator: {name!r} exists already")
    key = new_secret()
    operator = conn.execute(insert(operators).values(name=name, key_hash=hashed(key), created_at=now)
                            .returning(operators.c.id)).scalar_one()
    conn.execute(insert(operator_keys).values(operator_id=operator, name="default", key_hash=hashed(key),
                                              scopes=" ".join(SCOPES), created_at=now))
    return key


def session_timeout_ms(server: Server, jurisdiction: str) -> int:
    profile = server.settings.jurisdiction(jurisdiction)
    minutes = (profile and profile.inactivity_minutes) or server.settings.session_minutes
    return minutes * 60_000


def expired() -> InvalidSession:
    return InvalidSession("Authorization: missing, unknown or expired session token", field="Authorization")


def token_hash(authorization: str | None) -> str:
    """The stored hash of a ``Bearer`` token (401 when there is none)."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    if not token or not (authorization or "").startswith("Bearer "):
        raise expired()
    return hashed(token)


def cached(server: Server, authorization: str | None) -> Auth | None:
    """The session a token opens if this process read it less than ``CACHE_MS`` ago, else None
    (:func:`authenticate` reads it). Answers without touching the database, so it may run on the
    event loop."""
    hit = server.sessions.get(token_hash(authorization))
    if hit is None:
        return None
    auth, read_at = hit
    return auth if server.now() - read_at <= CACHE_MS else None


async def session_of(server: Server, authorization: str | None) -> Auth:
    """The session a request's ``Authorization`` opens: from this process's cache on the event
    loop, else read from the database in a thread."""
    return cached(server, authorization) or await anyio.to_thread.run_sync(authenticate, server, authorization)


def authenticate(server: Server, authorization: str | None) -> Auth:
    """The session a ``Bearer`` token opens (401 ``INVALID_SESSION`` when unknown or expired)."""
    key = token_hash(authorization)
    hit = cached(server, authorization)
    if hit is not None:
        return hit
    now = server.now()
    with server.engine.connect() as conn:
        row = conn.execute(SESSION, {"p_hash": key}).mappings().first()
    if row is None or now - row["last_seen"] > session_timeout_ms(server, row["jurisdiction"]):
        server.sessions.pop(key, None)
        raise expired()
    if now - row["last_seen"] > TOUCH_EVERY_MS:
        with server.transaction() as conn:
            conn.execute(update(sessions).where(sessions.c.id == row["id"]).values(last_seen=now))
    auth = Auth(
        session_id=row["id"], player_id=row["player_id"], fun=row["fun"], currency=row["currency"],
        jurisdiction_name=row["jurisdiction"], jurisdiction=server.settings.jurisdiction(row["jurisdiction"]),
        started_at=row["created_at"], wallet=row["wallet"], operator_id=row["operator_id"],
    )
    if len(server.sessions) >= CACHE_SIZE:
        server.sessions.clear()
    server.sessions[key] = (auth, now)
    return auth


def open_session(conn: Connection, player_id: int, jurisdiction: str, language: str | None, now: int) -> str:
    """A new session token for the player."""
    token = new_secret()
    conn.execute(insert(sessions).values(token_hash=hashed(token), player_id=player_id, jurisdiction=jurisdiction,
                                         language=language, created_at=now, last_seen=now))
    return token


def player_for(conn: Connection, operator: int, external_id: str, currency: str, now: int,
               wallet: str = "internal") -> int:
    """The operator's player ``external_id``, created on first use with ``wallet`` (the
    operator's setting then: a player keeps the wallet it was created with)."""
    row = conn.execute(select(players.c.id, players.c.currency).where(
        players.c.operator_id == operator, players.c.external_id == external_id)).first()
    if row is not None:
        if row.currency != currency:
            raise invalid("currency", f"currency: player {external_id} plays in {row.currency}, got {currency}")
        return row.id
    return conn.execute(insert(players).values(
        operator_id=operator, external_id=external_id, currency=currency, fun=False, balance=0, created_at=now,
        wallet=wallet,
    ).returning(players.c.id)).scalar_one()


def fun_player(conn: Connection, currency: str, play_money: int, now: int) -> int:
    """A new player with play money (fun play keeps no history beyond its session)."""
    player = conn.execute(insert(players).values(
        operator_id=None, external_id=f"fun-{secrets.token_hex(8)}", currency=currency, fun=True,
        balance=play_money, created_at=now,
    ).returning(players.c.id)).scalar_one()
    conn.execute(insert(ledger).values(player_id=player, kind="deposit", amount=play_money, reference="play money",
                                       created_at=now))
    return player


def external_player(conn: Connection, operator: int, external_id: str) -> dict[str, Any]:
    row = conn.execute(select(players).where(
        players.c.operator_id == operator, players.c.external_id == external_id)).mappings().first()
    if row is None:
        raise NotFound(f"player {external_id} not found")
    return dict(row)
