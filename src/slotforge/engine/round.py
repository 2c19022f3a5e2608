"""The round runner: (game, bet, random stream, script, choices, state) -> round record.

It wraps a game's compiled round function with everything around it: reading a script,
growing the random buffer or the event log when a round needs more, turning the event log into
the round record of docs/scripts.md, and replaying a record to prove it.

A round that waits for a choice is not suspended anywhere: its record holds the random words it
used and the choices made so far, and the round resumes by replaying those with the new choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any, Literal

import numpy as np
import orjson

from slotforge.engine import events, rng
from slotforge.engine.bet import Bet, format_money
from slotforge.engine.game import Game, Operator, ScriptError
from slotforge.engine.record import RoundRecord, build_record, plays_feature, wins_progressive

WordSource = Callable[[int], np.ndarray]


@dataclass
class Script:
    """Forced outcomes (docs/scripts.md), already checked against the game."""

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
    carried = [game.strip_symbols(reel) | game.extra_screen_symbols() for reel in range(reels)]
    screens = []
    for n, screen in enumerate(raw.get("screens", [])):
        if not isinstance(screen, list) or len(screen) != rows or any(
            not isinstance(row, list) or len(row) != reels for row in screen
        ):
            raise ScriptError(f"screens[{n}]: expected {rows} rows of {reels} symbols")
        array = np.zeros((rows, reels), dtype=np.int64)
        for r, row in enumerate(screen):
            for c, code in enumerate(row):
                if not isinstance(code, str) or code not in ids:
                    raise ScriptError(f"screens[{n}][{r}][{c}]: unknown symbol {code!r}; expected one of {sorted(ids)}")
                if code not in carried[c]:
                    raise ScriptError(
                        f"screens[{n}][{r}][{c}]: reel {c + 1} cannot carry {code}; it carries {sorted(carried[c])}"
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
        if not game.choice_names:
            raise ScriptError(f"choices[{n}]: {game.code} takes no choices (its rounds never wait for a decision)")
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


@dataclass(frozen=True)
class RoundResult:
    """A played round as its caller needs it: the record, and what a server acts on read off it
    once, so that nobody reads the record back by its keys and event names."""

    record: RoundRecord
    status: Literal["complete", "awaiting"]
    total_win: Decimal  # the game's win in money (so far, while the round waits for a choice)
    decision: str | None  # what the round waits for ("gamble", "pick", ...), None once complete
    options: tuple[str, ...]  # the choices it offers, the safe one first (none once complete)
    feature_played: bool  # free spins or a bonus game (an autoplay plan may stop on it)
    progressive_won: bool  # the pool pays a progressive jackpot on top of ``total_win``
    state: dict[str, Any]  # carried to the player's next round of the game

    @classmethod
    def of(cls, record: RoundRecord) -> RoundResult:
        """The result a record describes."""
        waiting_for = record.get("awaiting") or {}
        return cls(record=record, status=record["status"], total_win=Decimal(record["total_win"]),
                   decision=waiting_for.get("decision"), options=tuple(waiting_for.get("options", ())),
                   feature_played=plays_feature(record),
                   progressive_won=wins_progressive(record), state=record.get("state") or {})

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @cached_property
    def encoded(self) -> bytes:
        """The record as JSON, encoded once: the same bytes are stored and sent."""
        return orjson.dumps(self.record)


def play_round(game: Game, bet: dict[str, Any] | Bet | None = None, **options: Any) -> RoundResult:
    """:func:`play`, as a :class:`RoundResult`."""
    return RoundResult.of(play(game, bet, **options))


def resume_round(game: Game, record: RoundRecord, choice: str,
                 source: WordSource = rng.secure_words) -> RoundResult:
    """:func:`resume`, as a :class:`RoundResult`."""
    return RoundResult.of(resume(game, record, choice, source))


def play(
    game: Game,
    bet: dict[str, Any] | Bet | None = None,
    *,
    script: Script | None = None,
    choices: list[int] | None = None,
    words: np.ndarray | None = None,
    source: WordSource = rng.secure_words,
    operator: Operator = Operator(),
    state: dict[str, Any] | None = None,
) -> RoundRecord:
    """Play one round and return its record.

    ``bet`` is the player's bet fields, or a :class:`Bet` the game parsed already (the server's:
    it parses the request first); a script's bet comes first. ``words`` are random words already
    drawn for this round (a resumed or replayed round); ``source`` supplies more when the round
    needs them. ``choices`` (ids) come after the script's own.
    """
    script = script or Script()
    if script.bet is None and isinstance(bet, Bet):
        parsed_bet = bet
    else:
        parsed_bet = game.parse_bet(script.bet if script.bet is not None else bet)
    all_choices = list(script.choices) + list(choices or [])
    carried = dict(state if state is not None else script.state)
    known = source(64) if words is None else np.asarray(words, dtype=np.uint64)
    capacity = 256
    while True:
        stream = rng.buffer_stream(known)
        outcomes = game.outcomes(stream, script, all_choices)
        log = events.new_log(capacity)
        result = game.run(parsed_bet, outcomes, log, operator, carried)
        if rng.is_exhausted(stream):
            known = np.concatenate([known, source(max(64, len(known)))])
            continue
        if events.overflowed(log):
            capacity *= 4
            continue
        break
    record = build_record(game, parsed_bet, log, result.status, result.win_units)
    record["state"] = result.state
    record["inputs"] = {
        "random": [f"{int(w):016x}" for w in rng.consumed_words(stream)],
        "script": script.raw or None,
        "choices": [game.choice_names[c] for c in all_choices[: int(outcomes.cursors[1])]],
        "state": carried,
        "operator": {
            "gamble_limit": None if operator.gamble_limit is None else format_money(operator.gamble_limit),
            "fun_play": operator.fun_play,
        },
    }
    return record


class ForeignRecord(ScriptError):
    """A record made by another model or other code than this build's."""


def check_maker(game: Game, record: dict[str, Any]) -> None:
    """Refuse a record whose model or code fingerprint is not this build's."""
    for field_, ours in (("model", game.model_id), ("code", game.code_id)):
        theirs = record.get(field_)
        if theirs != ours:
            raise ForeignRecord(
                f"{field_}: the round was made by {theirs or 'an unnamed ' + field_}, this build runs {ours}; "
                "only the same model and code can replay or resume it"
            )


def replay(game: Game, record: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Re-run a recorded round from its inputs; True when every field matches the record."""
    again = rerun(game, record, extra_choices=[], source=no_more_words)
    return again == record, again


RECORD_FIELDS = {"game": str, "model": str, "bet": dict, "total_bet": str, "total_win": str, "status": str,
                 "steps": list, "inputs": dict}


def check_record(record: Any, where: str = "record") -> None:
    """Refuse a round record that cannot be replayed, naming the field at fault: a missing
    field, random words that are not 16-digit hex strings, an operator setting that is not an
    amount. (Whether its values match is for :func:`replay` to say.)"""
    if not isinstance(record, dict):
        raise ScriptError(f"{where}: not a round record (expected a JSON object)")
    for name, kind in RECORD_FIELDS.items():
        if not isinstance(record.get(name), kind):
            raise ScriptError(f"{where}: {name}: expected {_KINDS[kind]}, got {record.get(name)!r}")
    inputs = record["inputs"]
    words = inputs.get("random")
    if not isinstance(words, list) or not all(isinstance(w, str) and _is_word(w) for w in words):
        raise ScriptError(f"{where}: inputs.random: expected a list of 16-digit hex strings (64-bit words)")
    choices = inputs.get("choices", [])
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        raise ScriptError(f"{where}: inputs.choices: expected a list of choice names")
    if inputs.get("script") is not None and not isinstance(inputs["script"], dict):
        raise ScriptError(f"{where}: inputs.script: expected a script object or null")
    operator = inputs.get("operator", {})
    if not isinstance(operator, dict):
        raise ScriptError(f"{where}: inputs.operator: expected an object")
    limit = operator.get("gamble_limit", "0")
    if limit is not None and (not isinstance(limit, str) or not _is_amount(limit)):
        raise ScriptError(f"{where}: inputs.operator.gamble_limit: expected an amount string like '1000.00' "
                          f"or null (the game's own), "
                          f"got {limit!r}")


_KINDS = {str: "a string", dict: "an object", list: "a list"}


def _is_word(text: str) -> bool:
    return len(text) == 16 and all(c in "0123456789abcdefABCDEF" for c in text)


def _is_amount(text: str) -> bool:
    try:
        value = Decimal(text)
    except ArithmeticError:
        return False
    return value.is_finite() and value >= 0


def resume(game: Game, record: dict[str, Any], choice: str, source: WordSource = rng.secure_words) -> dict[str, Any]:
    """Continue a round that waits for a choice, by replaying it with that choice added."""
    if record.get("status") != "awaiting":
        raise ScriptError("choice: this round is complete and waits for no choice")
    return rerun(game, record, extra_choices=[choice], source=source)


def rerun(game: Game, record: dict[str, Any], extra_choices: list[str], source: WordSource) -> dict[str, Any]:
    """Play a recorded round again from its inputs, with choices added after those it made.

    Only the model and code that made the round may replay it: another would not prove the
    record, only re-run it.
    """
    check_maker(game, record)
    inputs = record.get("inputs") or {}
    script = parse_script(game, inputs["script"]) if inputs.get("script") else Script()
    made = inputs.get("choices", [])[len(script.choices) :]
    words = np.array([int(w, 16) for w in inputs.get("random", [])], dtype=np.uint64)
    settings = inputs.get("operator", {})
    operator = Operator(
        gamble_limit=None if settings.get("gamble_limit") is None else Decimal(settings["gamble_limit"]),
        fun_play=bool(settings.get("fun_play", False)),
    )
    return play(
        game,
        record.get("bet"),
        script=script,
        choices=parse_choices(game, [*made, *extra_choices]),
        words=words,
        source=source,
        operator=operator,
        state=inputs.get("state"),
    )
