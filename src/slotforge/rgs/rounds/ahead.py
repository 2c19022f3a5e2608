"""A jackpot round resumed ahead of its transaction: the part of its claim that calls another
system (a jackpot service) is made there, outside any transaction, so that a service that hangs
holds up this round alone, never the writers sharing a transaction with it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from slotforge.engine import round as runner
from slotforge.rgs.jackpots.embedded import has_pool
from slotforge.rgs.rounds import gamble_cap
from slotforge.rgs.rounds.resumed import Resumed, play_on

if TYPE_CHECKING:
    from slotforge.rgs.rounds.service import Server


def resume_ahead(server: Server, player_id: int, round_id: int, choice: str | None) -> Resumed | None:
    """Resume an awaiting round of a jackpot game before its transaction, and make the part of
    its claim that calls another system (a jackpot service) there, outside any transaction: a
    service that hangs holds up this round alone, never the writers sharing a transaction
    with it. ``choice``: the player's, or None for the default choices to the round's end.
    None when the transaction is to resume the round itself (pools in this database, another
    game, fun play, a round that waits for nothing or whose round function fails: the
    transaction answers as ever)."""
    if not server.jackpots.remote:
        return None
    with server.engine.connect() as conn:
        row = server.store.round_of(conn, round_id, player_id)
    # A free round is resumed by its transaction, which reads whether its campaign opens the pool.
    if row is None or row["status"] != "awaiting" or row["fun"] or row["free_grant_id"] is not None \
            or not server.warmup.ready(row["game"]):
        return None
    game = server.played(row)
    if not has_pool(game):
        return None
    waiting = runner.RoundResult.of(json.loads(row["record"]))
    if choice is not None:
        gamble_cap.refuse_gamble_start(game, waiting.decision, choice, row["currency"],
                                       server.settings.jackpot_rate, row["fun"])
    try:
        result = play_on(game, waiting, choice)
    except Exception:  # a choice refused or a malfunction: the transaction meets it again and answers it
        return None
    claim = None
    if result.complete and result.progressive_won:
        claim = server.jackpots.claim_outside(game, round_id, rate=server.pool_rate(row["currency"]),
                                              currency=row["currency"])
    return Resumed(row["record"], result, claim)
