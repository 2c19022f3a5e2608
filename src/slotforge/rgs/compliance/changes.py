"""The change log: every change a regulator calls significant, appended and never edited.

An entry says who (``operator:NAME/key:KEY`` for an operator's key, ``operator:NAME/user:USER``
for a back-office user, ``admin`` for the command line, ``server`` for what a server found at its
start), when, what kind of change, to what, and the state before and after
(JSON). Each entry's hash is SHA-256 over its fields and the hash of the entry before it, so the
log is a chain: an entry altered in the database no longer gives its own hash, and an entry
removed leaves the next one pointing at a hash that is no longer there. :func:`verify` walks the
chain and names the first entry where it breaks.

The last entry's hash (the head, which ``slotforge audit changes`` prints) stands for the whole
log: kept outside the database (a regulator's report, a ticket), it also shows a removal of the
newest entries, which no chain can show by itself.

Appends are serialised (on PostgreSQL by an advisory lock held to the end of the transaction; on
SQLite the database's one writer), and an entry is written in the transaction of the change it
records: both stay, or neither.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, text

from slotforge.rgs.schema import change_log, operators

GENESIS = "0" * 64  # the hash the first entry points back to
APPEND_LOCK = 0x5107C4A16E  # any fixed number: the PostgreSQL advisory lock of the chain's head
BATCH = 1000  # entries read at a time by verify (constant memory, whatever the log's length)

# The kinds of change recorded, and what each one's subject names.
KINDS = {
    "configuration": "server: the settings and the games in play, at a start that changed them",
    "integrity_mismatch": "game:CODE: a game in play differs from its certified manifest",
    "operator_added": "operator:NAME",
    "round_voided": "round:ID",
    "autoplay_stopped": "autoplay:ID",
    "jackpot_claim_settled": "claim:KEY",
    "dispute_link_issued": "round:ID",
    "player_erased": "player:ID (the server's own id: the log keeps no personal data)",
    "access_refused": "METHOD PATH: a write a key's scopes or a user's role do not allow",
    "key_created": "operator:NAME/key:KEY",
    "key_revoked": "operator:NAME/key:KEY",
    "key_rotated": "operator:NAME/key:KEY (the old key's end of grace, the new key's id)",
    "user_added": "operator:NAME/user:USER",
    "user_changed": "operator:NAME/user:USER (role, disabled, password changed: never the password)",
    "campaign_created": "campaign:REFERENCE (a free-round campaign, as asked)",
    "campaign_cancelled": "campaign:REFERENCE",
}


@dataclass(frozen=True)
class Change:
    """One significant change, as its caller knows it."""

    actor: str
    kind: str
    subject: str
    before: Any = None
    after: Any = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: expected one of {sorted(KINDS)}, got {self.kind!r}")


def canonical(value: Any) -> str | None:
    """A state as the log stores it: canonical JSON text (None stays None)."""
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def entry_hash(previous_hash: str, created_at: int, actor: str, kind: str, subject: str,
               before: str | None, after: str | None) -> str:
    """The hash of an entry: its fields as stored and the hash of the entry before it."""
    fields = [previous_hash, created_at, actor, kind, subject, before, after]
    return hashlib.sha256(json.dumps(fields, separators=(",", ":")).encode()).hexdigest()


def append(conn: Connection, change: Change, now: int) -> str:
    """Append ``change`` in the caller's transaction; its hash."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": APPEND_LOCK})
    previous = conn.execute(select(change_log.c.hash).order_by(change_log.c.id.desc()).limit(1)).scalar()
    before, after = canonical(change.before), canonical(change.after)
    digest = entry_hash(previous or GENESIS, now, change.actor, change.kind, change.subject, before, after)
    conn.execute(insert(change_log).values(created_at=now, actor=change.actor, kind=change.kind,
                                           subject=change.subject, before=before, after=after,
                                           previous_hash=previous or GENESIS, hash=digest))
    return digest


def operator_actor(conn: Connection, operator_id: int) -> str:
    """How the log names an operator as a whole: ``operator:NAME`` (its keys and users are
    ``operator:NAME/key:KEY`` and ``operator:NAME/user:USER``)."""
    return f"operator:{conn.execute(select(operators.c.name).where(operators.c.id == operator_id)).scalar_one()}"


def voided_by(conn: Connection, round_id: int) -> str | None:
    """Who voided the round, as the log names them (None: not voided, or by the server itself)."""
    return conn.execute(select(change_log.c.actor).where(
        change_log.c.subject == f"round:{round_id}", change_log.c.kind == "round_voided")
        .order_by(change_log.c.id.desc()).limit(1)).scalar()


def latest(conn: Connection, kind: str) -> dict[str, Any] | None:
    """The newest entry of ``kind`` (its before and after decoded), or None."""
    row = conn.execute(select(change_log).where(change_log.c.kind == kind)
                       .order_by(change_log.c.id.desc()).limit(1)).mappings().first()
    return None if row is None else decoded(row)


def decoded(row: Any) -> dict[str, Any]:
    """An entry as an answer or an export shows it: before and after as JSON values."""
    entry = dict(row)
    for side in ("before", "after"):
        entry[side] = None if entry[side] is None else json.loads(entry[side])
    return entry


def entries(engine: Engine, after_id: int = 0, limit: int | None = None, newest_first: bool = False
            ) -> Iterator[dict[str, Any]]:
    """The log's entries, oldest first (or newest first), read a batch at a time."""
    order = change_log.c.id.desc() if newest_first else change_log.c.id
    position = None
    remaining = limit
    while remaining is None or remaining > 0:
        query = select(change_log).order_by(order).limit(BATCH if remaining is None else min(BATCH, remaining))
        if position is not None:
            query = query.where(change_log.c.id < position if newest_first else change_log.c.id > position)
        elif after_id and not newest_first:
            query = query.where(change_log.c.id > after_id)
        with engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        if not rows:
            return
        for row in rows:
            yield dict(row)
        position = rows[-1]["id"]
        if remaining is not None:
            remaining -= len(rows)


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify` found: how many entries hold, the head, and the first break (or None)."""

    checked: int
    head: str
    problem: str | None = None
    broken_at: int | None = None

    @property
    def intact(self) -> bool:
        return self.problem is None


def verify(engine: Engine) -> Verdict:
    """Walk the chain from its first entry; stop at the first that breaks it, naming it."""
    previous_hash, previous_id, checked = GENESIS, None, 0
    for row in entries(engine):
        own = entry_hash(row["previous_hash"], row["created_at"], row["actor"], row["kind"], row["subject"],
                         row["before"], row["after"])
        if own != row["hash"]:
            return Verdict(checked, previous_hash, f"entry #{row['id']} was altered: its fields no longer give "
                           "its hash", row["id"])
        if row["previous_hash"] != previous_hash:
            return Verdict(checked, previous_hash, broken_link(previous_id, row["id"]), previous_id or row["id"])
        previous_hash, previous_id, checked = row["hash"], row["id"], checked + 1
    return Verdict(checked, previous_hash)


def broken_link(previous_id: int | None, entry_id: int) -> str:
    """Where a link of the chain fails: the entry before was rewritten (its hash recomputed), or
    entries between the two were removed."""
    if previous_id is None:
        return (f"entry #{entry_id}, the first in the log, does not start the chain: the entries before it "
                "were removed")
    gap = "" if entry_id == previous_id + 1 else f", or entries #{previous_id + 1} to #{entry_id - 1} were removed"
    return (f"the chain breaks between entry #{previous_id} and entry #{entry_id}: entry #{previous_id} was "
            f"rewritten{gap}")
