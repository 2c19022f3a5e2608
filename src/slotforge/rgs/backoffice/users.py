"""The people of an operator's back office: users, their passwords, sign-ins and sessions.

A password is kept only as its argon2id hash (``argon2-cffi``'s defaults), never written
anywhere in clear, logs included. After ``MAX_FAILURES`` wrong passwords in a row an account is
locked for ``LOCKOUT_MS``; a right password then still fails until the lock ends.

A sign-in opens a session: a token for an HTTP-only cookie and a CSRF token that every write must
send back in a header (a cookie goes with any request the browser makes, a header only with the
page's own). Both are 256 random bits kept as SHA-256, and read from the database on each request
(never cached), so a session ended or a user disabled is refused at once by every process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import Connection, insert, select, update

from slotforge.rgs.backoffice.keys import hashed, new_secret
from slotforge.rgs.backoffice.roles import check_role
from slotforge.rgs.schema import office_sessions, office_users, operators

NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,100}$")
SHORTEST_PASSWORD = 10
MAX_FAILURES = 5  # wrong passwords in a row that lock the account
LOCKOUT_MS = 15 * 60_000
IDLE_MS = 30 * 60_000  # a session unused this long is over
LONGEST_MS = 12 * 3_600_000  # and any session after this long
TOUCH_EVERY_MS = 5_000  # a session's last-seen time written at most this often

hasher = PasswordHasher()
# Hashed when the name is unknown, so a wrong name takes as long to refuse as a wrong password.
DUMMY_HASH = hasher.hash("not anyone's password")


class UserRefused(ValueError):
    """A user asked for that is not the operator's, or a name, password or role refused."""


class SignInRefused(Exception):
    """Wrong name or password, or a locked or disabled account (the message says which only
    where that tells an attacker nothing new)."""


def check_name(name: str) -> str:
    if not NAME.match(name):
        raise UserRefused(f"name: expected 1 to 100 letters, digits, '.', '_', '@' or '-', got {name!r}")
    return name


def check_password(password: str) -> str:
    if len(password) < SHORTEST_PASSWORD:
        raise UserRefused(f"password: expected at least {SHORTEST_PASSWORD} characters, got {len(password)}")
    return password


def add_user(conn: Connection, operator_id: int, name: str, password: str, role: str, now: int) -> dict[str, Any]:
    """A new user of the operator's back office."""
    check_name(name)
    check_password(password)
    try:
        check_role(role)
    except ValueError as error:
        raise UserRefused(str(error)) from error
    if conn.execute(select(office_users.c.id).where(office_users.c.name == name)).first() is not None:
        raise UserRefused(f"name: a user named {name!r} exists already")
    user_id = conn.execute(insert(office_users).values(
        operator_id=operator_id, name=name, password_hash=hasher.hash(password), role=role, created_at=now,
    ).returning(office_users.c.id)).scalar_one()
    return one(conn, operator_id, user_id)


def listing(conn: Connection, operator_id: int) -> list[dict[str, Any]]:
    rows = conn.execute(select(office_users).where(office_users.c.operator_id == operator_id)
                        .order_by(office_users.c.name)).mappings().all()
    return [view(row) for row in rows]


def one(conn: Connection, operator_id: int, user_id: int) -> dict[str, Any]:
    return view(row_of(conn, operator_id, user_id))


def row_of(conn: Connection, operator_id: int, user_id: int) -> Any:
    row = conn.execute(select(office_users).where(office_users.c.id == user_id,
                                                  office_users.c.operator_id == operator_id)).mappings().first()
    if row is None:
        raise UserRefused(f"user: the operator has no user {user_id}")
    return row


def named(conn: Connection, operator_id: int, name: str) -> int:
    found = conn.execute(select(office_users.c.id).where(office_users.c.operator_id == operator_id,
                                                         office_users.c.name == name)).scalar()
    if found is None:
        raise UserRefused(f"user: the operator has no user named {name!r}")
    return found


def view(row: Any) -> dict[str, Any]:
    """A user as listed: never the password's hash."""
    return {"id": row["id"], "name": row["name"], "role": row["role"], "created_at": row["created_at"],
            "locked_until": row["locked_until"], "disabled": row["disabled_at"] is not None}


def change(conn: Connection, operator_id: int, user_id: int, now: int, role: str | None = None,
           disabled: bool | None = None, password: str | None = None) -> dict[str, Any]:
    """Change a user's role, password or whether they may sign in; disabling ends their sessions."""
    row_of(conn, operator_id, user_id)
    values: dict[str, Any] = {}
    if role is not None:
        try:
            values["role"] = check_role(role)
        except ValueError as error:
            raise UserRefused(str(error)) from error
    if password is not None:
        values.update(password_hash=hasher.hash(check_password(password)), failed_logins=0, locked_until=None)
    if disabled is not None:
        values["disabled_at"] = now if disabled else None
    if values:
        conn.execute(update(office_users).where(office_users.c.id == user_id).values(**values))
    if disabled or password is not None:
        end_sessions(conn, user_id, now)
    return one(conn, operator_id, user_id)


def end_sessions(conn: Connection, user_id: int, now: int) -> None:
    conn.execute(update(office_sessions).where(office_sessions.c.user_id == user_id,
                                               office_sessions.c.ended_at.is_(None)).values(ended_at=now))


@dataclass(frozen=True)
class Opened:
    """A new session's secrets (for the cookie and the page) and who opened it."""

    token: str
    csrf: str
    user: dict[str, Any]
    operator: str


def sign_in(conn: Connection, name: str, password: str, now: int) -> Opened:
    """Check a name and password and open a session (SignInRefused otherwise: a wrong password
    counts towards the lockout; a locked account is refused whatever the password)."""
    row = conn.execute(select(office_users).where(office_users.c.name == name)).mappings().first()
    if row is None:
        matches(DUMMY_HASH, password)
        raise SignInRefused("wrong name or password")
    if row["locked_until"] is not None and row["locked_until"] > now:
        raise SignInRefused("the account is locked after repeated failed sign-ins; try again later")
    if not matches(row["password_hash"], password):
        failures = row["failed_logins"] + 1  # reset to 0 by a lock, so a lock that ended counts afresh
        locked = now + LOCKOUT_MS if failures >= MAX_FAILURES else None
        conn.execute(update(office_users).where(office_users.c.id == row["id"]).values(
            failed_logins=0 if locked else failures, locked_until=locked))
        raise SignInRefused("wrong name or password")
    if row["disabled_at"] is not None:
        raise SignInRefused("the account is disabled")
    conn.execute(update(office_users).where(office_users.c.id == row["id"]).values(failed_logins=0,
                                                                                   locked_until=None))
    token, csrf = new_secret(), new_secret()
    conn.execute(insert(office_sessions).values(user_id=row["id"], token_hash=hashed(token), csrf_hash=hashed(csrf),
                                                created_at=now, last_seen=now))
    operator = conn.execute(select(operators.c.name).where(operators.c.id == row["operator_id"])).scalar_one()
    return Opened(token, csrf, {**view(row), "operator_id": row["operator_id"]}, operator)


def matches(password_hash: str, password: str) -> bool:
    try:
        return hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def session_of(conn: Connection, token: str, now: int) -> Any:
    """The live session a cookie's token opens, with its user and operator (None if none)."""
    row = conn.execute(
        select(office_sessions.c.id, office_sessions.c.csrf_hash, office_sessions.c.created_at,
               office_sessions.c.last_seen, office_users.c.id.label("user_id"), office_users.c.name,
               office_users.c.role, office_users.c.operator_id, operators.c.name.label("operator"))
        .join(office_users, office_users.c.id == office_sessions.c.user_id)
        .join(operators, operators.c.id == office_users.c.operator_id)
        .where(office_sessions.c.token_hash == hashed(token), office_sessions.c.ended_at.is_(None),
               office_users.c.disabled_at.is_(None))).mappings().first()
    if row is None or now - row["last_seen"] > IDLE_MS or now - row["created_at"] > LONGEST_MS:
        return None
    return row


def touch(conn: Connection, session_id: int, now: int) -> None:
    conn.execute(update(office_sessions).where(office_sessions.c.id == session_id).values(last_seen=now))


def sign_out(conn: Connection, token: str, now: int) -> None:
    conn.execute(update(office_sessions).where(office_sessions.c.token_hash == hashed(token),
                                               office_sessions.c.ended_at.is_(None)).values(ended_at=now))
