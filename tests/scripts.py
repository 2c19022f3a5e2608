"""The one way the game tests play a scripted round: forced screens, draws and choices in the
script format of docs/scripts.md, through the engine's own round runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slotforge.engine import rng
from slotforge.engine import round as rounds
from slotforge.engine.game import Game, Operator


def play(game: Game, screens: list[Any], draws: dict[str, Any] | None = None, choices: list[str] | None = None, *,
         bet: dict[str, Any] | None = None, state: dict[str, Any] | None = None, operator: Operator = Operator(),
         seed: int | None = None, shape: Callable[[Any], list[list[str]]] | None = None,
         draw_defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of ``game``'s round from a script: ``screens`` (each first passed through
    ``shape``, a test's shorthand for a screen), ``draws`` over ``draw_defaults``, ``choices``,
    ``bet`` and carried ``state`` (the game's defaults when None). Words the script leaves open
    come from ``seed``'s stream, or from the system's generator when no seed is given."""
    raw: dict[str, Any] = {"screens": [shape(s) for s in screens] if shape else list(screens),
                           "draws": {**(draw_defaults or {}), **(draws or {})}, "choices": list(choices or [])}
    if bet is not None:
        raw["bet"] = bet
    if state is not None:
        raw["state"] = state
    source = rounds.seeded_words(seed) if seed is not None else rng.secure_words
    return rounds.play(game, script=rounds.parse_script(game, raw), operator=operator, source=source)
