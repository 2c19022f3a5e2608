"""Who may do what in the Operator API and the back office.

A request comes with an operator key (``X-Api-Key``) or a signed-in user's session cookie. A key
has scopes; a user has one role. Each route needs a :class:`Need`: the scopes any one of which
lets a key through, and the least role that lets a user through.

Roles are ranked, each allowed what the ones before it are:

- ``viewer``: reports (the dashboard, live RTP, alerts);
- ``support``: players, rounds, their history and the change log, dispute links, stopping autoplay;
- ``finance``: voids, deposits and withdrawals (adjustments), jackpot claims;
- ``admin``: users, keys, and erasing a player's personal data (the server's settings are its
  configuration file, not the back office's).

Key scopes: ``rounds`` (the rounds API an operator's platform calls: sessions, transactions,
players' balances and rounds, voids), ``read`` (what the back office reads) and ``write`` (what it
changes).
"""

from __future__ import annotations

from dataclasses import dataclass

ROLES = ("viewer", "support", "finance", "admin")
SCOPES = ("rounds", "read", "write")


def check_role(role: str) -> str:
    """``role`` if it is one (ValueError naming the allowed ones otherwise)."""
    if role not in ROLES:
        raise ValueError(f"role: expected one of {', '.join(ROLES)}, got {role!r}")
    return role


def check_scopes(scopes: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Scopes as given (``"read,write"``, a list) in their canonical order, none unknown, at least one."""
    words = scopes.replace(",", " ").split() if isinstance(scopes, str) else list(scopes)
    unknown = [word for word in words if word not in SCOPES]
    if unknown or not words:
        raise ValueError(f"scopes: expected one or more of {', '.join(SCOPES)}, got {', '.join(words) or 'none'}")
    return tuple(scope for scope in SCOPES if scope in words)


@dataclass(frozen=True)
class Need:
    """What a route asks of its caller: a key with any one of ``scopes``, or a user whose role
    is ``role`` or above (``role`` None: no user may)."""

    what: str  # in words, for the refusal: "void rounds"
    scopes: tuple[str, ...]
    role: str | None

    def allows_key(self, scopes: tuple[str, ...]) -> bool:
        return any(scope in scopes for scope in self.scopes)

    def allows_role(self, role: str) -> bool:
        return self.role is not None and ROLES.index(role) >= ROLES.index(self.role)


# The needs of the routes, by what they do.
PLAY = Need("open players' sessions", ("rounds",), None)
ADJUST = Need("deposit and withdraw", ("rounds",), "finance")
PLAYER_API = Need("read players and rounds", ("rounds", "read"), "support")
GAME_REPORT = Need("read reports", ("rounds", "read"), "viewer")
REPORTS = Need("read reports", ("read",), "viewer")
LOOKUPS = Need("look up players and rounds", ("read",), "support")
SUPPORT = Need("stop autoplay and issue dispute links", ("write",), "support")
VOID = Need("void rounds", ("rounds", "write"), "finance")
CLAIMS = Need("read jackpot claims", ("read",), "finance")
SETTLE = Need("settle jackpot claims", ("write",), "finance")
READ_ADMIN = Need("read keys and users", ("read",), "admin")
ADMIN = Need("manage keys, users and players' data", ("write",), "admin")
CAMPAIGNS = Need("read free-round campaigns", ("rounds", "read"), "support")
GRANT_FREE_ROUNDS = Need("make, grant and cancel free-round campaigns", ("rounds", "write"), "finance")
EVERYONE = Need("sign in", SCOPES, "viewer")


def abilities(scopes: tuple[str, ...] = (), role: str | None = None) -> list[str]:
    """The names of the needs a key's scopes or a user's role meet (the back office shows only
    what they allow)."""
    needs = {"reports": REPORTS, "lookups": LOOKUPS, "support": SUPPORT, "void": VOID, "claims": CLAIMS,
             "settle": SETTLE, "read_admin": READ_ADMIN, "admin": ADMIN, "campaigns": CAMPAIGNS,
             "free_rounds": GRANT_FREE_ROUNDS}
    if role is not None:
        return [name for name, need in needs.items() if need.allows_role(role)]
    return [name for name, need in needs.items() if need.allows_key(scopes)]
