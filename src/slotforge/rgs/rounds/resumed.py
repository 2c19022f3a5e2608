"""A waiting round played on: with the player's choice, or with the default choices to its end
(a player who never came back), and a round resumed ahead of its transaction
(:func:`~slotforge.rgs.rounds.ahead.resume_ahead`) as its transaction takes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slotforge.engine import round as runner
from slotforge.engine.game import Game
from slotforge.jackpot import Claim
from slotforge.rgs.rounds.claims import in_progress


@dataclass(frozen=True)
class Resumed:
    """An awaiting round resumed before its transaction (:func:`~slotforge.rgs.rounds.ahead.resume_ahead`): the record
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
