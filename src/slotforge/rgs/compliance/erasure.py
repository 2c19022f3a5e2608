"""The erasure of a player's personal data, the books kept whole.

What the server holds that names a person is the operator's id of the player (``external_id``);
everything else (rounds, ledger, balances) hangs on the server's own player id. Erasure replaces
the operator's id with a pseudonym, an HMAC of it under the server's own secret: the same player
always gets the same pseudonym (an operator that erased a player twice finds the first answer),
and nobody without the secret can tell whose it is. The rounds, the ledger and the audit stay as
they were; the change log records the erasure under the server's id, never the operator's.
"""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import Connection, Engine, select, update

from slotforge.rgs.compliance import changes
from slotforge.rgs.compliance.own_secrets import server_secret
from slotforge.rgs.schema import players

PREFIX = "erased-"


class NoSuchPlayer(LookupError):
    pass


def pseudonym(secret: bytes, operator_id: int, external_id: str) -> str:
    digest = hmac.new(secret, f"{operator_id}:{external_id}".encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:32]


def pseudonym_key(engine: Engine) -> bytes:
    """The server's secret of pseudonyms (read, or made, before the erasure's transaction: on
    SQLite a second connection could not write while that transaction holds the database)."""
    return server_secret(engine, "pseudonyms")


def erase(conn: Connection, key: bytes, operator_id: int, external_id: str, actor: str, now: int) -> str:
    """Replace the operator's id of a player with its pseudonym under ``key`` (in ``conn``'s
    transaction), log it; the pseudonym. An id erased already answers with its pseudonym again."""
    alias = pseudonym(key, operator_id, external_id)
    player_id = conn.execute(select(players.c.id).where(players.c.operator_id == operator_id,
                                                        players.c.external_id.in_([external_id, alias]))).scalar()
    if player_id is None:
        raise NoSuchPlayer(f"player {external_id!r}")
    if external_id.startswith(PREFIX):
        return external_id
    changed = conn.execute(update(players).where(players.c.id == player_id, players.c.external_id == external_id)
                           .values(external_id=alias)).rowcount
    if changed:
        changes.append(conn, changes.Change(actor, "player_erased", f"player:{player_id}",
                                            after={"external_id": "pseudonym"}), now)
    return alias
