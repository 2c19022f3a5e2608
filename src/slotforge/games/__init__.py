"""The games, one folder each: a model file (data) and a rules module (the round function)."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from pathlib import Path

from slotforge.engine.game import Game

# Game code -> "module:class". Games are imported on demand so that one game's compile time
# is never paid by another's command.
REGISTRY = {
    "dynasty": "slotforge.games.dynasty:Dynasty",
    "divine-fortune": "slotforge.games.divine_fortune:DivineFortune",
    "golden-grimoire": "slotforge.games.golden_grimoire:GoldenGrimoire",
    "moon-of-fortune": "slotforge.games.moon_of_fortune:MoonOfFortune",
    "wish-upon-a-jackpot": "slotforge.games.wish_upon_a_jackpot:WishUponAJackpot",
}


class UnknownGame(ValueError):
    pass


def game_codes() -> list[str]:
    return sorted(REGISTRY)


def load_game(code: str, model: Path | None = None) -> Game:
    """The game ``code``, from its shipped model or from ``model`` (a designer's variant)."""
    if code not in REGISTRY:
        raise UnknownGame(f"game: unknown game {code!r}; expected one of {game_codes()}")
    if model is not None:
        return _game_class(code)(model)
    return _shipped(code)


def _game_class(code: str) -> type[Game]:
    module, name = REGISTRY[code].split(":")
    return getattr(import_module(module), name)


@cache
def _shipped(code: str) -> Game:
    return _game_class(code)()
