"""A jackpot round resumed ahead of its transaction: the part of its claim that calls another
system (a jackpot service) is made there, outside any transaction, so that a service that hangs
holds up this round alone, never the writers sharing a transaction with it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slotforge.engine import round as runner
from slotforge.engine.game import Game
from slotforge.jackpot import Claim
from slotforge.rgs.jackpots.embedded import has_pool
from slotforge.rgs.rounds import gamble_cap
from slotforge.rgs.rounds.claims import in_progress

if TYPE_CHECKING:
    from slotforge.rgs.rounds.service import Server


@dataclass(frozen=True)
class Resumed:
    """An awaiting round resumed before its transaction (:func:`resume_ahead`): the record
    it was resumed from, the result, and its jackpot's claim made then (None: none made)."""

    record: str
    result: runner.RoundResult
    claim: Claim | None

    def on(self, row: dict[str, Any]) -> tuple[runner.RoundResult, Claim | None]:
        """The result and claim for the round as its transaction found it (``row``); 409
        ``REQUEST_IN_PROGRESS`` when another request moved the round on meanwhile (a claim made
        for this one is then never confirmed, and released after its lease)."""
        if row["record"] != self.record:
            raise in_progress()
        return self.result, self.claim


def play_on(game: Game, waiting: runner.RoundResult, choice: str | None) -> runner.RoundResult:
    """A waiting round resumed with ``choice``, or with the default choices to its end (None)."""
    if choice is not None:
        return runner.resume_round(game, waiting.record, choice)
    result = waiting
    while not result.complete:
        result = runner.resume_round(game, result.record, default_choice(result))
    return result


def default_choice(result: runner.RoundResult) -> str:
    """The choice made for a player who never came back: the first offered (games list the safe
    one first: collect, take it, start)."""
    return result.options[0]


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
