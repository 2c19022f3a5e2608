"""Signing in to the back office, and the operator's keys and users (docs/back-office.md).

``POST /v1/operator/sign-in`` checks a user's name and password and sets two cookies: the
session's token (HTTP-only, SameSite=Strict: the page's scripts never read it, other sites'
pages never send it) and its CSRF token (readable by the page, which echoes it in
``X-CSRF-Token`` on every write). Keys and users are managed by an admin user or a key with the
``write`` scope; every change is in the change log with who made it."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response
from pydantic import Field

from slotforge.rgs.api import answers
from slotforge.rgs.api.answers import Answer
from slotforge.rgs.api.callers import CSRF_COOKIE, SESSION_COOKIE, Anyone, Caller, CanAdmin, CanReadAdmin
from slotforge.rgs.api.models import Body, Id, Text
from slotforge.rgs.backoffice import keys, users
from slotforge.rgs.backoffice.roles import SCOPES
from slotforge.rgs.compliance import changes
from slotforge.rgs.errors import NotFound, SignInFailed, invalid
from slotforge.rgs.rounds.service import server_of
from slotforge.rgs.rounds.views import iso

router = APIRouter(prefix="/v1/operator", tags=["back office access"])
log = logging.getLogger("slotforge.rgs")

Role = Literal["viewer", "support", "finance", "admin"]
Scope = Literal["rounds", "read", "write"]
Time = Annotated[str | None, Field(examples=["2026-12-02T23:33:58.903Z"], description="an ISO 8601 UTC time")]


# -- answers ------------------------------------------------------------------------------------
class Me(Answer):
    """Who the request's key or session is, and what it may do."""

    operator: str = Field(description="the operator's name")
    who: str = Field(description="`key:NAME` or `user:NAME`: how the change log names the caller after the operator")
    role: Role | None = Field(description="a user's role (none for a key)")
    scopes: list[Scope] = Field(description="a key's scopes (empty for a user)")
    abilities: list[str] = Field(description="what the caller may do: reports, lookups, support, void, claims, "
                                             "settle, read_admin, admin, campaigns (read free-round campaigns), "
                                             "free_rounds (make, grant and cancel them)")


class SignedIn(Me):
    """The session opened: its token is in an HTTP-only cookie; send ``csrf_token`` back in
    ``X-CSRF-Token`` with every write."""

    csrf_token: str = Field(description="the session's CSRF token (also in the slotforge_csrf cookie)")


class KeyLine(Answer):
    id: int = Field(description="the key's id (revoke and rotate name it)")
    name: str = Field(description="the key's name (the change log's `key:NAME`)")
    scopes: list[Scope] = Field(description="rounds (the rounds API), read and write (the back office's)")
    state: Literal["active", "expiring", "revoked"] = Field(description="expiring: the old key of a rotation, "
                                                                        "working until revoked_at")
    created_at: Time = Field(description="when the key was made")
    last_used_at: Time = Field(description="when it last opened a request (to the minute)")
    revoked_at: Time = Field(description="when it stopped, or stops, opening requests")


class KeyList(Answer):
    """The operator's keys, revoked ones too, newest first (never their secrets)."""

    keys: list[KeyLine] = Field(description="the keys")


class NewKey(Answer):
    """A key made: its secret is shown here only, never again."""

    key: KeyLine = Field(description="the key as listed")
    secret: str = Field(description="the key itself, for X-Api-Key")


class Rotated(Answer):
    """A key rotated: the old one works until its ``revoked_at``, the new one now."""

    old: KeyLine = Field(description="the old key, expiring at its revoked_at")
    new: KeyLine = Field(description="the new key, of the same name and scopes")
    secret: str = Field(description="the new key itself, shown here only")


class UserLine(Answer):
    id: int = Field(description="the user's id")
    name: str = Field(description="the name they sign in with (the change log's `user:NAME`)")
    role: Role = Field(description="viewer, support, finance or admin")
    created_at: Time = Field(description="when the user was added")
    locked_until: Time = Field(description="set after repeated failed sign-ins")
    disabled: bool = Field(description="may no longer sign in")


class UserList(Answer):
    """The operator's back-office users, by name."""

    users: list[UserLine] = Field(description="the users")


# -- requests -----------------------------------------------------------------------------------
class SignIn(Body):
    name: Text = Field(max_length=100)
    password: Text = Field(max_length=1000)


class KeyRequest(Body):
    name: Text = Field(max_length=60, description="letters, digits, '.', '_', '-'; unique among live keys")
    scopes: list[Scope] = Field(min_length=1, description=f"any of {', '.join(SCOPES)}")


class RotateRequest(Body):
    grace_seconds: int = Field(86_400, ge=0, le=keys.LONGEST_GRACE_MS // 1000,
                               description="how long the old key keeps working (0: revoked now)")


class UserRequest(Body):
    name: Text = Field(max_length=100, description="the name they sign in with, unique on the server")
    password: Text = Field(max_length=1000, description=f"at least {users.SHORTEST_PASSWORD} characters")
    role: Role


class UserChange(Body):
    role: Role | None = None
    disabled: bool | None = Field(None, description="true: may no longer sign in (their sessions end now)")
    password: Text | None = Field(None, max_length=1000, description="a new password (their sessions end now)")


# -- who is asking ------------------------------------------------------------------------------
def me_of(caller: Caller) -> dict[str, Any]:
    return {"operator": caller.operator, "who": caller.who, "role": caller.role, "scopes": list(caller.scopes),
            "abilities": caller.abilities()}


@router.post("/sign-in", response_model=None,
             responses=answers.declare(SignedIn, answers.SIGN_IN_REFUSED, answers.VALIDATION))
def sign_in(body: SignIn, request: Request, response: Response) -> dict[str, Any]:
    """Sign in to the back office with a user's name and password: the session's cookies are
    set. Five wrong passwords in a row lock the account for 15 minutes."""
    server = server_of(request)
    with server.transaction() as conn:  # a failure's count is written too
        try:
            opened = users.sign_in(conn, body.name, body.password, server.now())
        except users.SignInRefused as error:
            refusal = error
        else:
            refusal = None
    if refusal is not None:
        log.warning("back-office sign-in refused for %r: %s", body.name, refusal)  # never the password
        raise SignInFailed(f"sign-in refused: {refusal}", field="password")
    log.info("back-office sign-in: %s of %s", opened.user["name"], opened.operator)
    # Secure behind HTTPS (a proxy's X-Forwarded-Proto counts: uvicorn trusts a local proxy's).
    secure = request.url.scheme == "https"
    response.set_cookie(SESSION_COOKIE, opened.token, httponly=True, samesite="strict", secure=secure, path="/")
    response.set_cookie(CSRF_COOKIE, opened.csrf, httponly=False, samesite="strict", secure=secure, path="/")
    caller = Caller(opened.user["operator_id"], opened.operator, f"user:{opened.user['name']}",
                    role=opened.user["role"])
    return {**me_of(caller), "csrf_token": opened.csrf}


@router.post("/sign-out", response_model=None, responses=answers.declare(Me, *answers.OPERATOR))
def sign_out(caller: Anyone, request: Request, response: Response) -> dict[str, Any]:
    """End this session (a key's request ends nothing)."""
    server = server_of(request)
    token = request.cookies.get(SESSION_COOKIE)
    if caller.role is not None and token:
        with server.transaction() as conn:
            users.sign_out(conn, token, server.now())
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")
    return me_of(caller)


@router.get("/me", response_model=None, responses=answers.declare(Me, *answers.OPERATOR))
def me(caller: Anyone) -> dict[str, Any]:
    """Who this key or session is and what it may do (the back office shows only that)."""
    return me_of(caller)


# -- keys -----------------------------------------------------------------------------------------
def key_line(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "created_at": iso(view["created_at"]), "last_used_at": iso(view["last_used_at"]),
            "revoked_at": iso(view["revoked_at"])}


def refused(error: ValueError) -> Exception:
    """A keys' or users' refusal as a 422 (or 404 for one not the operator's) naming the field."""
    message = str(error)
    field = message.split(":", 1)[0]
    if field in ("key", "user"):
        return NotFound(message, field=field)
    return invalid(field, message)


@router.get("/keys", response_model=None, responses=answers.declare(KeyList, *answers.OPERATOR))
def list_keys(caller: CanReadAdmin, request: Request) -> dict[str, Any]:
    """The operator's keys, revoked ones too, with their scopes and last use."""
    server = server_of(request)
    with server.engine.connect() as conn:
        return {"keys": [key_line(view) for view in keys.listing(conn, caller.operator_id, server.now())]}


@router.post("/keys", response_model=None, responses=answers.declare(NewKey, *answers.OPERATOR, answers.TOO_LARGE))
def create_key(body: KeyRequest, caller: CanAdmin, request: Request) -> dict[str, Any]:
    """A new key with a name and scopes; its secret is in this answer only."""
    server = server_of(request)
    with server.transaction() as conn:
        try:
            view, secret = keys.create(conn, caller.operator_id, body.name, body.scopes, server.now())
        except keys.KeyRefused as error:
            raise refused(error) from error
        changes.append(conn, changes.Change(caller.actor, "key_created", f"operator:{caller.operator}/key:{body.name}",
                                            after={"id": view["id"], "scopes": view["scopes"]}), server.now())
    return {"key": key_line(view), "secret": secret}


@router.post("/keys/{key_id}/revoke", response_model=None,
             responses=answers.declare(KeyLine, *answers.OPERATOR, answers.NOT_FOUND))
def revoke_key(key_id: Id, caller: CanAdmin, request: Request) -> dict[str, Any]:
    """Revoke a key now: every server process refuses it from this answer on."""
    server = server_of(request)
    with server.transaction() as conn:
        try:
            view = keys.revoke(conn, caller.operator_id, key_id, server.now())
        except keys.KeyRefused as error:
            raise refused(error) from error
        changes.append(conn, changes.Change(caller.actor, "key_revoked", f"operator:{caller.operator}/key:"
                                            f"{view['name']}", after={"id": key_id}), server.now())
    return key_line(view)


@router.post("/keys/{key_id}/rotate", response_model=None,
             responses=answers.declare(Rotated, *answers.OPERATOR, answers.NOT_FOUND, answers.TOO_LARGE))
def rotate_key(key_id: Id, body: RotateRequest, caller: CanAdmin, request: Request) -> dict[str, Any]:
    """A new key beside this one, with its name and scopes; this one keeps working for the grace
    period, then is refused."""
    server = server_of(request)
    now = server.now()
    with server.transaction() as conn:
        try:
            old, new, secret = keys.rotate(conn, caller.operator_id, key_id, body.grace_seconds * 1000, now)
        except keys.KeyRefused as error:
            raise refused(error) from error
        changes.append(conn, changes.Change(caller.actor, "key_rotated", f"operator:{caller.operator}/key:"
                                            f"{old['name']}", after={"old": key_id, "new": new["id"],
                                                                     "old_revoked_at": iso(old["revoked_at"])}), now)
    return {"old": key_line(old), "new": key_line(new), "secret": secret}


# -- users ----------------------------------------------------------------------------------------
def user_line(view: dict[str, Any]) -> dict[str, Any]:
    return {**view, "created_at": iso(view["created_at"]), "locked_until": iso(view["locked_until"])}


@router.get("/users", response_model=None, responses=answers.declare(UserList, *answers.OPERATOR))
def list_users(caller: CanReadAdmin, request: Request) -> dict[str, Any]:
    """The operator's back-office users and their roles."""
    with server_of(request).engine.connect() as conn:
        return {"users": [user_line(view) for view in users.listing(conn, caller.operator_id)]}


@router.post("/users", response_model=None,
             responses=answers.declare(UserLine, *answers.OPERATOR, answers.TOO_LARGE))
def add_user(body: UserRequest, caller: CanAdmin, request: Request) -> dict[str, Any]:
    """A new back-office user with a role (viewer, support, finance, admin)."""
    server = server_of(request)
    with server.transaction() as conn:
        try:
            view = users.add_user(conn, caller.operator_id, body.name, body.password, body.role, server.now())
        except users.UserRefused as error:
            raise refused(error) from error
        changes.append(conn, changes.Change(caller.actor, "user_added", f"operator:{caller.operator}/user:{body.name}",
                                            after={"role": body.role}), server.now())
    return user_line(view)


@router.post("/users/{user_id}", response_model=None,
             responses=answers.declare(UserLine, *answers.OPERATOR, answers.NOT_FOUND, answers.TOO_LARGE))
def change_user(user_id: Id, body: UserChange, caller: CanAdmin,
                request: Request) -> dict[str, Any]:
    """Change a user's role, password, or whether they may sign in."""
    server = server_of(request)
    with server.transaction() as conn:
        try:
            view = users.change(conn, caller.operator_id, user_id, server.now(), role=body.role,
                                disabled=body.disabled, password=body.password)
        except users.UserRefused as error:
            raise refused(error) from error
        changes.append(conn, changes.Change(
            caller.actor, "user_changed", f"operator:{caller.operator}/user:{view['name']}",
            after={"role": body.role, "disabled": body.disabled, "password_changed": body.password is not None}),
            server.now())
    return user_line(view)

