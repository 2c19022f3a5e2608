"""The round record (see docs/scripts.md), read off a round's event log.

Each event code has one small reader that adds to the record being built: a step, a win on
the current step, an event a client shows, or the decision the round waits for.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import numpy as np

from slotforge.engine import events
from slotforge.engine.bet import Bet, format_money
from slotforge.engine.gamble import CARD_NAMES, PICK_SYMBOLS
from slotforge.engine.game import Game, ScriptError


class RecordBuilder:
    """Builds one round record from event rows, in order."""

    def __init__(self, game: Game, bet: Bet) -> None:
        self.game = game
        self.bet = bet
        self.steps: list[dict[str, Any]] = []
        self.awaiting: dict[str, Any] | None = None
        self.readers = {
            events.STEP: self.step,
            events.LINE_WIN: self.line_win,
            events.SCATTER_WIN: self.anywhere_win,
            events.COUNT_WIN: self.anywhere_win,
            events.FREE_SPINS: self.free_spins,
            events.GAMBLE: self.gamble,
            events.PICK_GAMBLE: self.pick_gamble,
            events.COLLECT: self.collect,
            events.AWAIT: self.await_choice,
            events.INVALID_CHOICE: self.invalid_choice,
            events.DRAW: self.draw,
            events.FEATURE: lambda row: self.event(self.game.describe_feature(row, self.bet)),
            events.WIN: lambda row: self.win(self.game.describe_win(row, self.bet)),
        }

    def read(self, rows: np.ndarray) -> None:
        for row in rows:
            self.readers[int(row[0])](row)

    # -- helpers ----------------------------------------------------------------------------
    def money(self, units: int) -> str:
        return format_money(self.bet.amount(int(units)))

    def symbol(self, symbol_id: int) -> str:
        return self.game.codes[int(symbol_id)]

    def win(self, win: dict[str, Any]) -> None:
        self.steps[-1]["wins"].append(win)

    def event(self, event: dict[str, Any]) -> None:
        self.steps[-1]["events"].append(event)

    def options(self, decision: int, mask: int) -> list[str]:
        return [name for i, name in enumerate(self.game.decisions[decision].options) if (int(mask) >> i) & 1]

    # -- readers, one per event code ----------------------------------------------------------
    def step(self, row: np.ndarray) -> None:
        rows, reels = self.game.grid
        cells = row[events.CELLS : events.CELLS + rows * reels].reshape(rows, reels)
        screen = [[self.symbol(c) for c in line] for line in cells]
        self.steps.append({"kind": events.STEP_KINDS[int(row[1])], "screen": screen, "wins": [], "events": []})

    def line_win(self, row: np.ndarray) -> None:
        self.win({"kind": "line", "line": int(row[1]) + 1, "symbol": self.symbol(row[2]), "count": int(row[3]),
                  "amount": self.money(row[4]), "multiplier": int(row[5])})

    def anywhere_win(self, row: np.ndarray) -> None:
        kind = "scatter" if row[0] == events.SCATTER_WIN else "count"
        self.win({"kind": kind, "symbol": self.symbol(row[1]), "count": int(row[2]),
                  "amount": self.money(row[3]), "multiplier": int(row[4])})

    def free_spins(self, row: np.ndarray) -> None:
        self.event({"type": "free_spins_awarded", "count": int(row[1]), "remaining": int(row[2]),
                    "retrigger": bool(row[3])})

    def gamble(self, row: np.ndarray) -> None:
        """A card gamble is a step of its own: the guess, the card and what the win became."""
        card = CARD_NAMES[int(row[2])]
        result = self.money(row[4])
        self.steps.append({
            "kind": "gamble",
            "screen": [],
            "card": card,
            "wins": [{"kind": "gamble", "symbol": card, "count": 1, "amount": result}],
            "events": [{"type": "gamble", "choice": self.game.decisions[int(row[5])].options[int(row[1])], "card": card,
                        "stake": self.money(row[3]), "won": int(row[4]) > 0}],
        })

    def pick_gamble(self, row: np.ndarray) -> None:
        """A pick gamble is a step of its own: the symbol picked, the one drawn and the result."""
        drawn = PICK_SYMBOLS[int(row[2])]
        self.steps.append({
            "kind": "gamble",
            "screen": [],
            "drawn": drawn,
            "wins": [{"kind": "gamble", "symbol": drawn, "count": 1, "amount": self.money(row[4])}],
            "events": [{"type": "gamble", "choice": self.game.decisions[int(row[5])].options[int(row[1])],
                        "drawn": drawn, "stake": self.money(row[3]), "won": int(row[4]) > 0}],
        })

    def collect(self, row: np.ndarray) -> None:
        self.event({"type": "collect", "amount": self.money(row[1]), "automatic": bool(row[2])})

    def await_choice(self, row: np.ndarray) -> None:
        self.awaiting = {"decision": self.game.decisions[int(row[1])].name,
                         "options": self.options(int(row[1]), row[2]), "win": self.money(row[3])}

    def invalid_choice(self, row: np.ndarray) -> None:
        decision = self.game.decisions[int(row[1])]
        named = int(row[2])
        choice = self.game.choice_names[named] if named >= 0 else "(the strategy's choice)"
        offered = self.options(int(row[1]), row[3])
        raise ScriptError(f"choices: {choice!r} is not offered at {decision.name}; expected one of {offered}")

    def draw(self, row: np.ndarray) -> None:
        name = int(row[1])
        self.event({"type": "draw", "name": self.game.draw_names[name],
                    "value": self.game.describe_draw(name, int(row[2]))})


class RoundRecord(TypedDict, total=False):
    """A round record's fields (docs/scripts.md): what the engine made, stored and shown as is."""

    game: str
    model: str
    code: str
    bet: dict[str, Any]
    total_bet: str  # an amount, e.g. "1.00"
    total_win: str  # so far, while the round waits for a choice
    status: Literal["complete", "awaiting"]
    awaiting: dict[str, Any] | None  # the decision the round waits for
    steps: list[dict[str, Any]]
    state: dict[str, Any]  # carried to the player's next round of the game
    inputs: dict[str, Any]  # everything that replays the round


FEATURE_STEP_KINDS = frozenset({"free", "bonus"})  # the steps of a free spin or a bonus game


def plays_feature(record: RoundRecord) -> bool:
    """Whether a round played a feature: a free spin or a bonus game."""
    return any(step["kind"] in FEATURE_STEP_KINDS for step in record.get("steps", []))


def wins_progressive(record: RoundRecord) -> bool:
    """Whether a round won its game's progressive jackpot for the pool to pay (an event marked
    ``"progressive": true, "paid_by": "jackpot_pool"``; fun play's full grid pays nothing)."""
    return any(event.get("progressive") and event.get("paid_by") == "jackpot_pool"
               for step in record.get("steps", []) for event in step.get("events", []))


def build_record(game: Game, bet: Bet, log: np.ndarray, status: int, win_units: int) -> RoundRecord:
    """The round record of an event log."""
    builder = RecordBuilder(game, bet)
    builder.read(events.rows(log))
    return {
        "game": game.code,
        "model": game.model_id,
        "code": game.code_id,
        "bet": bet.as_json(),
        "total_bet": format_money(bet.total_bet),
        "total_win": format_money(bet.amount(win_units)),
        "status": "awaiting" if status == events.AWAITING else "complete",
        "awaiting": builder.awaiting,
        "steps": builder.steps,
    }


def differences(recorded: Any, replayed: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Where two records differ, in document order: (dotted path, recorded value, replayed value)."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        found = []
        for key in list(recorded) + [k for k in replayed if k not in recorded]:
            found += differences(recorded.get(key), replayed.get(key), f"{path}.{key}" if path else str(key))
        return found
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        found = []
        for index, (a, b) in enumerate(zip(recorded, replayed, strict=True)):
            found += differences(a, b, f"{path}[{index}]")
        return found
    return [] if recorded == replayed else [(path, recorded, replayed)]
