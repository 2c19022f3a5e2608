"""The games, one package each, all laid out alike (docs/engine.md, "A game's files"):
``model.json`` (the data), ``kernels`` (the compiled round: a module, or a package of modules
by feature where the round is large), ``rules.py`` (the
:class:`~slotforge.engine.game.Game`: model, bets, scripts, record) and ``maths.py`` (its
:class:`~slotforge.engine.roles.GameMaths` reports, as a class named ``Maths``).

:data:`REGISTRY` is the one place a game is registered: its code, its package, its rules' class
and the simulation behind its shipped PAR sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path

from slotforge.engine.game import Game
from slotforge.maths.game_maths import GameMaths


@dataclass(frozen=True)
class SheetRun:
    """How a shipped PAR sheet is generated: rounds simulated and the seed."""

    rounds: int
    seed: int


@dataclass(frozen=True)
class Registration:
    """A game as the platform knows it: the package holding its files, the name of its rules'
    class in ``rules.py``, and the simulation behind its sheet in ``docs/par/`` (None: no
    shipped sheet)."""

    package: str
    rules_class: str
    sheet: SheetRun | None = None


# Game code -> its registration, in lobby order. Games are imported on demand so that one
# game's compile time is never paid by another's command.
REGISTRY = {
    "dynasty": Registration("slotforge.games.dynasty", "Dynasty", SheetRun(200_000_000, 1)),
    "divine-fortune": Registration("slotforge.games.divine_fortune", "DivineFortune", SheetRun(50_000_000, 1)),
    "golden-grimoire": Registration("slotforge.games.golden_grimoire", "GoldenGrimoire", SheetRun(200_000_000, 1)),
    "moon-of-fortune": Registration("slotforge.games.moon_of_fortune", "MoonOfFortune", SheetRun(20_000_000, 1)),
    "wish-upon-a-jackpot": Registration("slotforge.games.wish_upon_a_jackpot", "WishUponAJackpot",
                                        SheetRun(100_000_000, 1)),
}


class UnknownGame(ValueError):
    pass


def game_codes() -> list[str]:
    """The registered games' codes, sorted."""
    return sorted(REGISTRY)


def registration(code: str) -> Registration:
    """The registration of game ``code``; :class:`UnknownGame` names the known ones."""
    if code not in REGISTRY:
        raise UnknownGame(f"game: unknown game {code!r}; expected one of {game_codes()}")
    return REGISTRY[code]


def load_game(code: str, model: Path | None = None) -> Game:
    """The game ``code``, from its shipped model or from ``model`` (a designer's variant)."""
    registration(code)
    if model is not None:
        return _game_class(code)(model)
    return _shipped(code)


def maths_of(game: Game) -> GameMaths:
    """The maths reports of ``game`` (a shipped model or a variant): its package's ``Maths``."""
    return import_module(f"{registration(game.code).package}.maths").Maths(game)


def _game_class(code: str) -> type[Game]:
    entry = REGISTRY[code]
    return getattr(import_module(f"{entry.package}.rules"), entry.rules_class)


@cache
def _shipped(code: str) -> Game:
    return _game_class(code)()
