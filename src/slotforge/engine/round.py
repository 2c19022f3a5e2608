"""The round runner: (game, bet, random stream, script, choices, state) -> round record.

It wraps a game's compiled round function with everything around it: reading a script,
growing the random buffer or the event log when a round needs more, turning the event log into
the round record of SCENARIOS.md, and replaying a record to prove it.

A round that waits for a choice is not suspended anywhere: its record holds the random words it
used and the choices made so far, and the round resumes by replaying those with the new choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from slotforge.engine import events, rng
from slotforge.engine.bet import Bet, format_money
from slotforge.engine.game import Game, Operator, ScriptError
from slotforge.engine.outcomes import make_outcomes

WordSource = Callable[[int], np.ndarray]


@dataclass
class Script:
    """Forced outcomes (SCENARIOS.md), already checked against the game."""

    bet: dict[str, Any] | None = None
    screens: list[np.ndarray] = field(default_factory=list)
    draws: list[list[int]] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)


def parse_script(game: Game, raw: dict[str, Any]) -> Script:
    """Check a script against the game: every symbol, draw name and choice must be known."""
    if not isinstance(raw, dict):
        raise ScriptError("script: expected a JSON object")
    known = {"bet", "screens", "draws", "choices", "state"}
    for key in raw:
        if key not in known:
            raise ScriptError(f"{key}: not a script field; expected {sorted(known)}")
    rows, reels = game.grid
    ids = {code: i for i, code in enumerate(game.codes)}
    screens = []
    for n, screen in enumerate(raw.get("screens", [])):
        if not isinstance(screen, list) or len(screen) != rows or any(
            not isinstance(row, list) or len(row) != reels for row in screen
        ):
            raise ScriptError(f"screens[{n}]: expected {rows} rows of {reels} symbols")
        array = np.zeros((rows, reels), dtype=np.int64)
        for r, row in enumerate(screen):
            for c, code in enumerate(row):
                carried = game.strip_symbols(c) | game.extra_screen_symbols()
                if not isinstance(code, str) or code not in ids:
                    raise ScriptError(f"screens[{n}][{r}][{c}]: unknown symbol {code!r}; expected one of {sorted(ids)}")
                if code not in carried:
                    raise ScriptError(
                        f"screens[{n}][{r}][{c}]: reel {c + 1} cannot carry {code}; it carries {sorted(carried)}"
                    )
                array[r, c] = ids[code]
        screens.append(array)
    draws: list[list[int]] = [[] for _ in game.draw_names]
    if not isinstance(raw.get("draws") or {}, dict):
        raise ScriptError("draws: expected an object of draw names to lists of values")
    if not isinstance(raw.get("state") or {}, dict):
        raise ScriptError("state: expected an object")
    for name, values in (raw.get("draws") or {}).items():
        if name not in game.draw_names:
            raise ScriptError(f"draws.{name}: not a draw of {game.code}; expected one of {list(game.draw_names)}")
        if not isinstance(values, list):
            raise ScriptError(f"draws.{name}: expected a list of values")
        draws[game.draw_names.index(name)] = [game.parse_draw(name, v) for v in values]
    return Script(
        bet=raw.get("bet"),
        screens=screens,
        draws=draws,
        choices=parse_choices(game, raw.get("choices", [])),
        state=raw.get("state") or {},
        raw=raw,
    )


def parse_choices(game: Game, names: list[str]) -> list[int]:
    """Choice names as the ids the round function uses."""
    if not isinstance(names, list):
        raise ScriptError("choices: expected a list of choice names")
    ids = []
    for n, name in enumerate(names):
        if name not in game.choice_names:
            raise ScriptError(f"choices[{n}]: unknown choice {name!r}; expected one of {list(game.choice_names)}")
        ids.append(game.choice_names.index(name))
    return ids


def seeded_words(seed: int, skip: int = 0) -> WordSource:
    """A reproducible word source (for ``play --seed``): the words of xoshiro256**(seed),
    after the first ``skip`` (the words a resumed round already used)."""
    stream = rng.xoshiro_stream(seed)
    for _ in range(skip):
        rng.next_word(stream)

    def more(count: int) -> np.ndarray:
        return np.array([rng.next_word(stream) for _ in range(count)], dtype=np.uint64)

    return more


def no_more_words(count: int) -> np.ndarray:
    raise ScriptError("random: the recorded words ran out before the round ended; the record does not match")


def play(
    game: Game,
    bet: dict[str, Any] | None = None,
    *,
    script: Script | None = None,
    choices: list[int] | None = None,
    words: np.ndarray | None = None,
    source: WordSource = rng.secure_words,
    operator: Operator = Operator(),
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play one round and return its record.

    ``words`` are random words already drawn for this round (a resumed or replayed round);
    ``source`` supplies more when the round needs them. ``choices`` (ids) come after the
    script's own.
    """
    script = script or Script()
    parsed_bet = game.parse_bet(script.bet if script.bet is not None else bet)
    all_choices = list(script.choices) + list(choices or [])
    carried = dict(state if state is not None else script.state)
    known = source(64) if words is None else np.asarray(words, dtype=np.uint64)
    capacity = 256
    while True:
        stream = rng.buffer_stream(known)
        outcomes = make_outcomes(
            stream, game.grid, script.screens, script.draws, all_choices, draw_names=max(1, len(game.draw_names))
        )
        log = events.new_log(capacity)
        result = game.run(parsed_bet, outcomes, log, operator, carried)
        if rng.is_exhausted(stream):
            known = np.concatenate([known, source(max(64, len(known)))])
            continue
        if events.overflowed(log):
            capacity *= 4
            continue
        break
    record = build_record(game, parsed_bet, log, result.status, result.win_units, outcomes.cursors)
    record["state"] = result.state
    record["inputs"] = {
        "random": [f"{int(w):016x}" for w in rng.consumed_words(stream)],
        "script": script.raw or None,
        "choices": [game.choice_names[c] for c in all_choices[: int(outcomes.cursors[1])]],
        "state": carried,
        "operator": {"gamble_limit": format_money(operator.gamble_limit), "fun_play": operator.fun_play},
    }
    return record


def build_record(
    game: Game, bet: Bet, log: np.ndarray, status: int, win_units: int, cursors: np.ndarray
) -> dict[str, Any]:
    """The round record (SCENARIOS.md) of an event log."""
    steps: list[dict[str, Any]] = []
    awaiting = None
    codes = game.codes
    rows, reels = game.grid
    for row in events.rows(log):
        code = int(row[0])
        if code == events.STEP:
            cells = row[events.CELLS : events.CELLS + rows * reels].reshape(rows, reels)
            steps.append(
                {
                    "kind": events.STEP_KINDS[int(row[1])],
                    "screen": [[codes[int(c)] for c in line] for line in cells],
                    "wins": [],
                    "events": [],
                }
            )
        elif code == events.LINE_WIN:
            steps[-1]["wins"].append(
                {
                    "kind": "line",
                    "line": int(row[1]) + 1,
                    "symbol": codes[int(row[2])],
                    "count": int(row[3]),
                    "amount": format_money(bet.amount(int(row[4]))),
                    "multiplier": int(row[5]),
                }
            )
        elif code in (events.SCATTER_WIN, events.COUNT_WIN):
            steps[-1]["wins"].append(
                {
                    "kind": "scatter" if code == events.SCATTER_WIN else "count",
                    "symbol": codes[int(row[1])],
                    "count": int(row[2]),
                    "amount": format_money(bet.amount(int(row[3]))),
                    "multiplier": int(row[4]),
                }
            )
        elif code == events.FREE_SPINS:
            steps[-1]["events"].append(
                {"type": "free_spins_awarded", "count": int(row[1]), "remaining": int(row[2]), "retrigger": bool(row[3])}
            )
        elif code == events.GAMBLE:
            steps.append(gamble_step(game, bet, row))
        elif code == events.COLLECT:
            steps[-1]["events"].append(
                {"type": "collect", "amount": format_money(bet.amount(int(row[1]))), "automatic": bool(row[2])}
            )
        elif code == events.AWAIT:
            decision = game.decisions[int(row[1])]
            awaiting = {
                "decision": decision.name,
                "options": [name for i, name in enumerate(decision.options) if (int(row[2]) >> i) & 1],
                "win": format_money(bet.amount(int(row[3]))),
            }
        elif code == events.INVALID_CHOICE:
            decision = game.decisions[int(row[1])]
            offered = [name for i, name in enumerate(decision.options) if (int(row[3]) >> i) & 1]
            raise ScriptError(f"choices: {game.choice_names[int(row[2])]!r} is not offered now; expected one of {offered}")
        elif code == events.DRAW:
            steps[-1]["events"].append(
                {"type": "draw", "name": game.draw_names[int(row[1])], "value": game.describe_draw(int(row[1]), int(row[2]))}
            )
        elif code == events.FEATURE:
            steps[-1]["events"].append(game.describe_feature(row, bet))
        elif code == events.WIN:
            steps[-1]["wins"].append(game.describe_win(row, bet))
    return {
        "game": game.code,
        "model": game.model_id,
        "bet": bet.as_json(),
        "total_bet": format_money(bet.total_bet),
        "total_win": format_money(bet.amount(win_units)),
        "status": "awaiting" if status == events.AWAITING else "complete",
        "awaiting": awaiting,
        "steps": steps,
    }


CARDS = ("HEARTS", "DIAMONDS", "CLUBS", "SPADES")


def gamble_step(game: Game, bet: Bet, row: np.ndarray) -> dict[str, Any]:
    """A card-gamble step: the guess, the card drawn and what the win became."""
    stake, result = int(row[3]), int(row[4])
    return {
        "kind": "gamble",
        "screen": [],
        "card": CARDS[int(row[2])],
        "wins": [{"kind": "gamble", "symbol": CARDS[int(row[2])], "count": 1, "amount": format_money(bet.amount(result))}],
        "events": [
            {
                "type": "gamble",
                "choice": game.choice_names[int(row[1])],
                "card": CARDS[int(row[2])],
                "stake": format_money(bet.amount(stake)),
                "won": result > 0,
            }
        ],
    }


def replay(game: Game, record: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Re-run a recorded round from its inputs; True when every field matches the record."""
    inputs = record.get("inputs") or {}
    script = parse_script(game, inputs["script"]) if inputs.get("script") else Script()
    words = np.array([int(w, 16) for w in inputs.get("random", [])], dtype=np.uint64)
    operator = Operator(
        gamble_limit=Decimal(inputs.get("operator", {}).get("gamble_limit", "1000.00")),
        fun_play=bool(inputs.get("operator", {}).get("fun_play", False)),
    )
    choices = inputs.get("choices", [])
    script_choices = len(script.choices)
    again = play(
        game,
        record.get("bet"),
        script=script,
        choices=parse_choices(game, choices[script_choices:]),
        words=words,
        source=no_more_words,
        operator=operator,
        state=inputs.get("state"),
    )
    return again == record, again


def resume(game: Game, record: dict[str, Any], choice: str, source: WordSource = rng.secure_words) -> dict[str, Any]:
    """Continue a round that waits for a choice, by replaying it with that choice added."""
    if record.get("status") != "awaiting":
        raise ScriptError("choice: this round is complete and waits for no choice")
    inputs = record["inputs"]
    script = parse_script(game, inputs["script"]) if inputs.get("script") else Script()
    made = inputs.get("choices", [])[len(script.choices) :]
    words = np.array([int(w, 16) for w in inputs.get("random", [])], dtype=np.uint64)
    operator = Operator(gamble_limit=Decimal(inputs["operator"]["gamble_limit"]), fun_play=inputs["operator"]["fun_play"])
    return play(
        game,
        record["bet"],
        script=script,
        choices=parse_choices(game, [*made, choice]),
        words=words,
        source=source,
        operator=operator,
        state=inputs.get("state"),
    )
