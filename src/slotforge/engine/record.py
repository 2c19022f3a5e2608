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

    # The reader of each event code (a method's name, looked up per row).
    READERS = {
        events.STEP: "step",
        events.LINE_WIN: "line_win",
        events.SCATTER_WIN: "anywhere_win",
        events.COUNT_WIN: "anywhere_win",
        events.FREE_SPINS: "free_spins",
        events.GAMBLE: "gamble",
        events.PICK_GAMBLE: "pick_gamble",
        events.COLLECT: "collect",
        events.AWAIT: "await_choice",
        events.INVALID_CHOICE: "invalid_choice",
        events.DRAW: "draw",
        events.FEATURE: "feature",
        events.WIN: "game_win",
    }

    def __init__(self, game: Game, bet: Bet) -> None:
        self.game = game
        self.bet = bet
        self.steps: list[dict[str, Any]] = []
        self.awaiting: dict[str, Any] | None = None

    def read(self, rows: np.ndarray) -> None:
        for row in rows:
            getattr(self, self.READERS[int(row[0])])(row)

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
        cells = row[events.CELLS : events.CELLS + rows * reels].reshape(rows, reels).tolist()
        codes = self.game.codes
        screen = [[codes[c] for c in line] for line in cells]
        self.steps.append({"kind": events.STEP_KINDS[events.fields(row)["kind"]], "screen": screen, "wins": [],
                           "events": []})

    def line_win(self, row: np.ndarray) -> None:
        f = events.fields(row)
        self.win({"kind": "line", "line": f["line"] + 1, "symbol": self.symbol(f["symbol"]), "count": f["count"],
                  "amount": self.money(f["units"]), "multiplier": f["multiplier"]})

    def anywhere_win(self, row: np.ndarray) -> None:
        f = events.fields(row)
        kind = "scatter" if row[0] == events.SCATTER_WIN else "count"
        self.win({"kind": kind, "symbol": self.symbol(f["symbol"]), "count": f["count"],
                  "amount": self.money(f["units"]), "multiplier": f["multiplier"]})

    def free_spins(self, row: np.ndarray) -> None:
        f = events.fields(row)
        self.event({"type": "free_spins_awarded", "count": f["awarded"], "remaining": f["left"],
                    "retrigger": bool(f["retrigger"])})

    def gamble(self, row: np.ndarray) -> None:
        """A card gamble is a step of its own: the guess, the card and what the win became."""
        f = events.fields(row)
        card = CARD_NAMES[f["card"]]
        self.steps.append({
            "kind": "gamble",
            "screen": [],
            "card": card,
            "wins": [{"kind": "gamble", "symbol": card, "count": 1, "amount": self.money(f["result"])}],
            "events": [{"type": "gamble", "choice": self.game.decisions[f["decision"]].options[f["option"]],
                        "card": card, "stake": self.money(f["stake"]), "won": f["result"] > 0}],
        })

    def pick_gamble(self, row: np.ndarray) -> None:
        """A pick gamble is a step of its own: the symbol picked, the one drawn and the result."""
        f = events.fields(row)
        drawn = PICK_SYMBOLS[f["drawn"]]
        self.steps.append({
            "kind": "gamble",
            "screen": [],
            "drawn": drawn,
            "wins": [{"kind": "gamble", "symbol": drawn, "count": 1, "amount": self.money(f["result"])}],
            "events": [{"type": "gamble", "choice": self.game.decisions[f["decision"]].options[f["option"]],
                        "drawn": drawn, "stake": self.money(f["stake"]), "won": f["result"] > 0}],
        })

    def collect(self, row: np.ndarray) -> None:
        f = events.fields(row)
        self.event({"type": "collect", "amount": self.money(f["units"]), "automatic": bool(f["automatic"])})

    def await_choice(self, row: np.ndarray) -> None:
        f = events.fields(row)
        self.awaiting = {"decision": self.game.decisions[f["decision"]].name,
                         "options": self.options(f["decision"], f["options"]), "win": self.money(f["win"])}

    def invalid_choice(self, row: np.ndarray) -> None:
        f = events.fields(row)
        decision = self.game.decisions[f["decision"]]
        choice = self.game.choice_names[f["choice"]] if f["choice"] >= 0 else "(the strategy's choice)"
        offered = self.options(f["decision"], f["options"])
        raise ScriptError(f"choices: {choice!r} is not offered at {decision.name}; expected one of {offered}")

    def feature(self, row: np.ndarray) -> None:
        """A game's own feature event, as its presentation describes it."""
        self.event(self.game.presentation.describe_feature(row, self.bet))

    def game_win(self, row: np.ndarray) -> None:
        """A game's own kind of win, as its presentation describes it."""
        self.win(self.game.presentation.describe_win(row, self.bet))

    def draw(self, row: np.ndarray) -> None:
        f = events.fields(row)
        self.event({"type": "draw", "name": self.game.draw_names[f["name"]],
                    "value": self.game.presentation.describe_draw(f["name"], f["value"])})


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
