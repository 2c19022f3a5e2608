"""Who calls the Operator API and the back office, and whether they may.

A caller is an operator's key (``X-Api-Key``) or a signed-in back-office user (the session
cookie). Each route declares what it needs (:mod:`slotforge.rgs.backoffice.roles`) by its
parameter's type (``caller: CanVoid``): a key without the scope, or a user without the role, is answered 403
``FORBIDDEN``, and a refused write is recorded in the change log with who tried it. A user's
write must carry the session's CSRF token in ``X-CSRF-Token`` (403 ``CSRF_REFUSED``).

Keys and sessions are read from the database on every request, never from a per-process cache:
a revoked key, an ended session or a disabled user is refused at once by every server process.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from slotforge.rgs.backoffice import keys, roles, users
from slotforge.rgs.backoffice.keys import hashed
from slotforge.rgs.compliance import changes
from slotforge.rgs.errors import CsrfRefused, Forbidden, InvalidApiKey
from slotforge.rgs.rounds.service import Server, server_of

SESSION_COOKIE = "slotforge_office"  # HTTP-only: the page's scripts never see the session's token
CSRF_COOKIE = "slotforge_csrf"  # readable by the page, which sends it back in X-CSRF-Token
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Caller:
    """An operator's key or user, as a route sees it."""

    operator_id: int
    operator: str
    who: str  # key:NAME or user:NAME
    scopes: tuple[str, ...] = ()  # a key's
    role: str | None = None  # a user's
    csrf_hash: str | None = None  # a user's session's

    @property
    def actor(self) -> str:
        """How the change log names the caller: ``operator:NAME/key:KEY`` or ``operator:NAME/user:USER``."""
        return f"operator:{self.operator}/{self.who}"

    def allowed(self, need: roles.Need) -> bool:
        return need.allows_role(self.role) if self.role is not None else need.allows_key(self.scopes)

    def abilities(self) -> list[str]:
        return roles.abilities(self.scopes, self.role)


def refused() -> InvalidApiKey:
    return InvalidApiKey("X-Api-Key: missing, unknown or revoked operator key (or sign in to the back office)",
                         field="X-Api-Key")


def by_key(server: Server, secret: str) -> Caller:
    """The caller a key is (401 when unknown or revoked); its last use recorded now and then."""
    now = server.now()
    with server.engine.connect() as conn:
        row = keys.opened_by(conn, secret, now)
    if row is None:
        raise refused()
    if row["last_used_at"] is None or now - row["last_used_at"] > keys.TOUCH_EVERY_MS:
        with server.transaction() as conn:
            keys.touch(conn, row["id"], now)
    return Caller(row["operator_id"], row["operator"], f"key:{row['name']}", scopes=tuple(row["scopes"].split()))


def by_session(server: Server, token: str) -> Caller:
    """The caller a session cookie is (401 when unknown, ended or expired)."""
    now = server.now()
    with server.engine.connect() as conn:
        row = users.session_of(conn, token, now)
    if row is None:
        raise refused()
    if now - row["last_seen"] > users.TOUCH_EVERY_MS:
        with server.transaction() as conn:
            users.touch(conn, row["id"], now)
    return Caller(row["operator_id"], row["operator"], f"user:{row['name']}", role=row["role"],
                  csrf_hash=row["csrf_hash"])


def identify(server: Server, request: Request, api_key: str | None) -> Caller:
    """The key, else the signed-in user, that makes the request (401 if neither)."""
    if api_key:
        return by_key(server, api_key)
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        return by_session(server, token)
    raise refused()


def check_csrf(caller: Caller, method: str, token: str | None) -> None:
    """A user's write must send the session's CSRF token (a key's needs none: a browser never
    sends a key by itself)."""
    if caller.role is None or method in SAFE_METHODS:
        return
    if not token or not hmac.compare_digest(hashed(token), caller.csrf_hash or ""):
        raise CsrfRefused("X-CSRF-Token: missing or not this session's; reload the back office",
                          field="X-CSRF-Token")


def refuse(server: Server, caller: Caller, need: roles.Need, request: Request) -> Forbidden:
    """The 403 of a caller not allowed ``need``; a write's attempt is recorded in the change log."""
    if request.method not in SAFE_METHODS:
        with server.transaction() as conn:
            changes.append(conn, changes.Change(caller.actor, "access_refused", f"{request.method} {request.url.path}",
                                                after={"needs": need.what, "role": caller.role,
                                                       "scopes": list(caller.scopes)}), server.now())
    held = f"role {caller.role}" if caller.role else f"scopes {' '.join(caller.scopes)}"
    allowed = " or ".join(filter(None, [need.role and f"role {need.role} or above",
                                        f"a key with scope {' or '.join(need.scopes)}"]))
    return Forbidden(f"{caller.who} ({held}) may not {need.what}: it takes {allowed}", field="X-Api-Key")


def require(need: roles.Need):
    """The dependency of a route that needs ``need``: its caller, once checked."""

    def check(request: Request, x_api_key: Annotated[str | None, Header()] = None,
              x_csrf_token: Annotated[str | None, Header()] = None) -> Caller:
        server = server_of(request)
        caller = identify(server, request, x_api_key)
        check_csrf(caller, request.method, x_csrf_token)
        if not caller.allowed(need):
            raise refuse(server, caller, need, request)
        return caller

    return check


# A route's parameter ``caller: CanVoid`` is its caller, allowed to void rounds (and so on).
CanPlay = Annotated[Caller, Depends(require(roles.PLAY))]
CanAdjust = Annotated[Caller, Depends(require(roles.ADJUST))]
CanReadPlayers = Annotated[Caller, Depends(require(roles.PLAYER_API))]
CanReadGameReport = Annotated[Caller, Depends(require(roles.GAME_REPORT))]
CanReadReports = Annotated[Caller, Depends(require(roles.REPORTS))]
CanLookUp = Annotated[Caller, Depends(require(roles.LOOKUPS))]
CanSupport = Annotated[Caller, Depends(require(roles.SUPPORT))]
CanVoid = Annotated[Caller, Depends(require(roles.VOID))]
CanReadClaims = Annotated[Caller, Depends(require(roles.CLAIMS))]
CanSettle = Annotated[Caller, Depends(require(roles.SETTLE))]
CanReadAdmin = Annotated[Caller, Depends(require(roles.READ_ADMIN))]
CanAdmin = Annotated[Caller, Depends(require(roles.ADMIN))]
CanReadCampaigns = Annotated[Caller, Depends(require(roles.CAMPAIGNS))]
CanGrantFreeRounds = Annotated[Caller, Depends(require(roles.GRANT_FREE_ROUNDS))]
Anyone = Annotated[Caller, Depends(require(roles.EVERYONE))]
