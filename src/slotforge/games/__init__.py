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
from slotforge.engine.model import load_json
from slotforge.games.versions import VersionInfo, check_same_rules, find_version, list_versions, package_folder
from slotforge.maths.game_maths import GameMaths


@dataclass(frozen=True)
class SheetRun:
    """How a shipped PAR sheet is generated: rounds simulated and the seed."""

    rounds: int
    seed: int


@dataclass(frozen=True)
class Registration:
    """A game as the platform knows it: the package holding its files, the name of its rules'
    class in ``rules.py``, the simulation behind its sheet in ``docs/par/`` (None: no
    shipped sheet), and the model fields its RTP versions may change (dotted paths: what the
    rules leave to the designer, see :mod:`.versions`)."""

    package: str
    rules_class: str
    sheet: SheetRun | None = None
    designer_fields: tuple[str, ...] = ("reels",)


# Game code -> its registration, in lobby order. Games are imported on demand so that one
# game's compile time is never paid by another's command.
REGISTRY = {
    "dynasty": Registration("slotforge.games.dynasty", "Dynasty", SheetRun(200_000_000, 1)),
    "divine-fortune": Registration("slotforge.games.divine_fortune", "DivineFortune", SheetRun(50_000_000, 1),
                                   ("reels", "features.bonus_game.by_stake")),
    "golden-grimoire": Registration("slotforge.games.golden_grimoire", "GoldenGrimoire", SheetRun(200_000_000, 1),
                                    ("reels", "features.mystery.weights", "features.sticky_mystery.weights")),
    "moon-of-fortune": Registration("slotforge.games.moon_of_fortune", "MoonOfFortune", SheetRun(20_000_000, 1),
                                    ("cell_weights",)),
    "wish-upon-a-jackpot": Registration("slotforge.games.wish_upon_a_jackpot", "WishUponAJackpot",
                                        SheetRun(100_000_000, 1), ("reels", "features.godmother.bonus_chance")),
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


def load_game(code: str, model: Path | None = None, version: str | None = None) -> Game:
    """The game ``code``: its published model, its RTP version ``version`` (checked to play the
    published rules; :class:`~.versions.UnknownVersion` lists the versions), or the model file
    ``model`` (a designer's variant). At most one of ``model`` and ``version``."""
    registration(code)
    if model is not None and version is not None:
        raise ValueError("--model and --version: give one or the other")
    if version is not None:
        return _version(code, version)
    if model is not None:
        return _game_class(code)(model)
    return _shipped(code)


def versions_of(code: str) -> list[VersionInfo]:
    """The RTP versions of game ``code``: the published model first (the default)."""
    return list_versions(package_folder(registration(code).package))


def version_model(code: str, version: str | None) -> Path | None:
    """The model file of version ``version`` of ``code`` (checked; None for None), for commands
    that hand a model file on to worker processes."""
    return None if version is None else _version(code, version).path


def maths_of(game: Game) -> GameMaths:
    """The maths reports of ``game`` (a shipped model or a variant): its package's ``Maths``."""
    return import_module(f"{registration(game.code).package}.maths").Maths(game)


def _game_class(code: str) -> type[Game]:
    entry = REGISTRY[code]
    return getattr(import_module(f"{entry.package}.rules"), entry.rules_class)


@cache
def _shipped(code: str) -> Game:
    return _game_class(code)()


@cache
def _version(code: str, name: str) -> Game:
    """Version ``name`` of ``code``, loaded once: the published game itself, or a further
    version's model checked against the published rules."""
    info = find_version(versions_of(code), code, name)
    if info.published:
        return _shipped(code)
    published = _shipped(code)
    check_same_rules(load_json(published.path), load_json(info.path), registration(code).designer_fields, info.path)
    return _game_class(code)(info.path)
