"""The games a server offers, and which RTP version of each a player plays.

An operator chooses versions in one setting, ``rtp_versions``: per game, a table from a
*selector* to a version name (``slotforge games`` lists each game's versions)::

    [rtp_versions.dynasty]
    "*" = "94.00"        # everywhere, unless a line below is more specific
    uk = "92.00"         # sessions of the jurisdiction profile "uk"
    "*:GBP" = "93.00"    # players holding GBP, in any jurisdiction
    "uk:GBP" = "92.00"   # both

The most specific line wins: ``jurisdiction:currency``, then ``jurisdiction``, then
``*:currency``, then ``*``; a game without a line plays its published model. Every name is
checked when the server starts: an unknown game, version or jurisdiction stops it with a
message naming the setting and the names it could be.

A round is played, replayed, resumed and voided by the version that started it: its record
names its model (``game/version:fingerprint``), and :meth:`Offer.that_played` finds it by that
name whatever the settings say now.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from slotforge.engine.game import Game
from slotforge.games import load_game
from slotforge.games.versions import list_versions
from slotforge.games.warmup import package_folder
from slotforge.rgs.settings import Settings, SettingsError

EVERYWHERE = "*"
SELECTOR = re.compile(r"^(?P<jurisdiction>[^:\s]+)(?::(?P<currency>[A-Z]{3}))?$")


def selectors(jurisdiction: str, currency: str) -> tuple[str, ...]:
    """The selectors that may choose a version for a session, most specific first."""
    return (f"{jurisdiction}:{currency}", jurisdiction, f"{EVERYWHERE}:{currency}", EVERYWHERE)


class Offer(Mapping[str, Game]):
    """The games offered, by code, each as a player without a more specific line plays it (its
    ``*`` version, else the published model); and every version the settings put in play."""

    def __init__(self, games: Mapping[str, Game], choices: Mapping[str, Mapping[str, str]] | None = None,
                 jurisdictions: list[str] | None = None) -> None:
        self.published = dict(games)
        self.choices = {code: dict(lines) for code, lines in (choices or {}).items()}
        check_choices(self.choices, list(self.published), jurisdictions)
        self.versions: dict[tuple[str, str], Game] = {  # (code, version name) -> the version's game
            (code, name): self._load(code, name) for code, lines in self.choices.items() for name in lines.values()}
        self.default = {code: self._chosen(code, (EVERYWHERE,)) for code in self.published}

    @classmethod
    def of(cls, games: Mapping[str, Game], settings: Settings) -> Offer:
        """The offer of ``games`` under the settings' ``rtp_versions`` (checked)."""
        return cls(games, settings.rtp_versions, settings.jurisdiction_names())

    # -- the mapping: code -> the game as offered by default ------------------------------------
    def __getitem__(self, code: str) -> Game:
        return self.default[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self.default)

    def __len__(self) -> int:
        return len(self.default)

    # -- which version plays --------------------------------------------------------------------
    def for_player(self, code: str, jurisdiction: str, currency: str) -> Game:
        """The version of game ``code`` that a session of ``jurisdiction`` in ``currency`` plays."""
        return self._chosen(code, selectors(jurisdiction, currency))

    def that_played(self, code: str, record: Mapping[str, Any]) -> Game | None:
        """The version that played a round whose record is ``record`` (None: not offered here)."""
        model = record.get("model")
        for game in self.in_play(code):
            if game.model_id == model:
                return game
        return self.published.get(code)

    def in_play(self, code: str | None = None) -> list[Game]:
        """Every distinct version the settings put in play (of game ``code``, or of all)."""
        found = {id(game): game for game in [*self.published.values(), *self.versions.values()]
                 if code is None or game.code == code}
        return list(found.values())

    def _chosen(self, code: str, candidates: tuple[str, ...]) -> Game:
        lines = self.choices.get(code, {})
        for selector in candidates:
            if selector in lines:
                return self.versions[(code, lines[selector])]
        return self.published[code]

    def _load(self, code: str, name: str) -> Game:
        published = self.published[code]
        return published if name == published.spec.version else load_game(code, version=name)


def check_choices(choices: Mapping[str, Mapping[str, str]], offered: list[str],
                  jurisdictions: list[str] | None) -> None:
    """Every game, selector and version of the ``rtp_versions`` setting known, or a
    :class:`SettingsError` naming the setting and what it could be. Reads the versions' files
    only: no game is imported (importing compiles)."""
    for code, lines in choices.items():
        if code not in offered:
            raise SettingsError(f"rtp_versions.{code}: not a game this server offers; expected one of "
                                f"{sorted(offered)}")
        names = [info.name for info in list_versions(package_folder(code))]
        for selector, name in lines.items():
            check_selector(f"rtp_versions.{code}.{selector}", selector, jurisdictions)
            if name not in names:
                raise SettingsError(f"rtp_versions.{code}.{selector}: unknown version {name!r}; expected one of "
                                    f"{names}")


def check_selector(field: str, selector: str, jurisdictions: list[str] | None) -> None:
    """``selector`` well formed and naming a known jurisdiction (or ``*``)."""
    match = SELECTOR.match(selector)
    if match is None:
        raise SettingsError(f"{field}: expected '*', a jurisdiction, '*:CUR' or 'jurisdiction:CUR' "
                            "(CUR a three-letter currency)")
    named = match["jurisdiction"]
    if named != EVERYWHERE and jurisdictions is not None and named not in jurisdictions:
        raise SettingsError(f"{field}: unknown jurisdiction {named!r}; expected '*' or one of {jurisdictions}")
