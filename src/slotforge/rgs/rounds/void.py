"""Voiding a round that completed ("malfunction voids all plays and pays"), found affected by a
malfunction after it was paid.

The round's stake is refunded and its win reversed, each a ledger entry of its own that names
the round and the reason (``refund`` and ``reversal``), in one transaction with the round turning
``void``. A player's balance never goes below zero: the reversal takes at most what the balance
holds once the stake is back, and what it cannot take is reported to the operator (``not_reversed``)
to recover by other means. The round's record keeps what was played and gains a ``void`` entry
saying what was refunded and reversed, so its history shows it void; the books' audit checks the
reversal against it.

Only rounds of the server's own (internal) wallet: a seamless player's money is in the
operator's wallet, which this server can only ask to roll back a debit, not to take a paid win
back. A progressive jackpot's share of the win is reversed from the player like the rest; the
pool's books keep the win they paid (the operator settles it with the pool's owner).

A round of a game that carries state (Moon of Fortune's sticky symbols) also changed what the
player's next round of that game starts with. When no later round of the game still counts (not
void), voiding it undoes that as if it had never been played: the carried state becomes what the
last round before it still counting left (empty if none). When a later round counts, that round
played on the voided round's state and its outcome stands, so the state stays as the later rounds
left it (the answer says ``state_restored: false``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection

from slotforge.rgs import free as free_rounds
from slotforge.rgs.backoffice import summary
from slotforge.rgs.errors import invalid
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.rounds.service import carries_state

REFERENCE_LENGTH = 100  # the ledger's reference column


@dataclass(frozen=True)
class Voided:
    """What voiding a completed round moved, in minor units."""

    refunded: int
    reversed: int
    not_reversed: int

    def as_json(self, reason: str) -> dict[str, Any]:
        return {"reason": reason, "after_completion": True, "refunded": to_text(self.refunded),
                "win_reversed": to_text(self.reversed), "win_not_reversed": to_text(self.not_reversed)}


def reference(round_id: int, what: str, reason: str) -> str:
    """A ledger entry's reference: unique per round and movement, with the reason."""
    return f"void {round_id} {what}: {reason}"[:REFERENCE_LENGTH]


def split_reversal(win: int, balance: int) -> tuple[int, int]:
    """(reversed, not reversed) of ``win`` from a ``balance`` that must stay at zero or above."""
    taken = max(0, min(win, balance))
    return taken, win - taken


def void_completed(server: Any, conn: Connection, row: dict[str, Any], reason: str, now: int) -> dict[str, Any]:
    """Void the complete round ``row`` (its player locked by the caller, in its transaction):
    refund, reverse what the balance allows, mark it void. Returns the operator's answer."""
    if row.get("wallet_tx") or row["fun"]:
        where = "a seamless wallet's" if row.get("wallet_tx") else "a fun"
        raise invalid("round", f"round {row['id']} is {where} round: only rounds paid from this server's wallet "
                               "can be voided after they completed")
    wallet = server.wallet
    player, round_id = row["player_id"], row["id"]
    if free_rounds.is_free(row):  # its stake goes back to the operator, its round to the grant
        free_rounds.book_void(conn, row, now)
        balance = wallet.balance(conn, player)
    else:
        balance = wallet.credit(conn, player, "refund", row["stake"], round_id=round_id,
                                reference=reference(round_id, "refund", reason), now=now)
    taken, left = split_reversal(row["win"], balance)
    if taken:
        balance = wallet.debit(conn, player, "reversal", taken, round_id=round_id,
                               reference=reference(round_id, "reversal", reason), now=now)
    voided = Voided(refunded=row["stake"], reversed=taken, not_reversed=left)
    record = {**json.loads(row["record"]), "void": voided.as_json(reason)}
    server.store.void_round(conn, round_id, status="void", void_reason=reason, record=json.dumps(record))
    summary.forget_day(conn, summary.day_of(row["finished_at"]))  # the reports sum its day anew
    row.update(status="void", void_reason=reason, record=json.dumps(record))
    restored = restore_state(server, conn, row)
    return {"refunded": True, "win_reversed": to_text(taken), "win_not_reversed": to_text(left),
            "balance": to_text(balance), **({} if restored is None else {"state_restored": restored}),
            **({"report": f"round {round_id}: {to_text(left)} of its win {to_text(row['win'])} could not be reversed "
                          "without taking the player's balance below zero; recover it by other means"}
               if left else {})}


def restore_state(server: Any, conn: Connection, row: dict[str, Any]) -> bool | None:
    """After voiding ``row``: unless a later round of its game still counts, the player's carried
    state of the game becomes what the last round before it still counting left (none: empty).
    Whether it was put back; None for a game that carries no state."""
    game = server.games.that_played(row["game"], json.loads(row["record"]))
    if game is None or not carries_state(game):
        return None
    state = server.store.state_left_before(conn, row)
    if state is None:
        return False
    server.keep_state(conn, row["player_id"], row["game"], state)
    return True


def reversed_in_record(record_text: str) -> tuple[int, int] | None:
    """(reversed, not reversed) a void round's record states, in minor units; None for a round
    voided before it completed."""
    void = json.loads(record_text).get("void")
    if not void or not void.get("after_completion"):
        return None
    return (to_minor(Decimal(void["win_reversed"]), "void.win_reversed"),
            to_minor(Decimal(void["win_not_reversed"]), "void.win_not_reversed"))
