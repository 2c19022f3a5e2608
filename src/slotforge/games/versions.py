"""RTP versions of a game: the same rules at another return, as data beside its ``model.json``.

A game's published model (``model.json``) is its default version, named by its ``version``
field. Further versions are complete model files in the game's ``versions/`` folder, one per
version, named ``<version>.json`` after their own ``version`` field, with their own ``rtp`` (the
version's label). A version plays the same rules as the published model: it may differ only in
what the rules leave to the designer (the game's :attr:`Registration.designer_fields`, such as
its reel strips or a feature's weights) and in its name, label and design notes. Loading a
version checks that, so a version can never change a symbol, a pay or a feature's rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from importlib import import_module
from pathlib import Path
from typing import Any

from slotforge.engine.model import LineGameSpec, ModelError, load_json, validate

VERSIONS_FOLDER = "versions"
# What every version may set for itself: its name, its label and the designer's notes.
OWN_FIELDS = ("version", "rtp", "rtp_range", "design")


class UnknownVersion(ValueError):
    """A version name the game does not have (the message lists those it has)."""


@dataclass(frozen=True)
class VersionInfo:
    """One version of a game as listed: its name, label (RTP as a fraction, and the range where
    the player's strategy moves it), its model file and whether it is the published default."""

    name: str
    rtp: Decimal
    rtp_range: tuple[Decimal, Decimal] | None
    path: Path
    published: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rtp": str(self.rtp),
            "rtp_range": [str(end) for end in self.rtp_range] if self.rtp_range else None,
            "published": self.published,
            "file": self.path.name if self.published else f"{VERSIONS_FOLDER}/{self.path.name}",
        }


def package_folder(package: str) -> Path:
    """The folder of a game's package (where its ``model.json`` is)."""
    return Path(import_module(package).__file__).parent


def version_files(folder: Path) -> list[Path]:
    """The published model file, then the further versions' files in name order."""
    extra = sorted((folder / VERSIONS_FOLDER).glob("*.json"))
    return [folder / "model.json", *extra]


def read_info(path: Path, published: bool) -> VersionInfo:
    """The name and label of the model file ``path`` (validated as a model file)."""
    spec: LineGameSpec = validate(LineGameSpec, load_json(path), str(path))
    spread = (spec.rtp_range.min, spec.rtp_range.max) if spec.rtp_range else None
    return VersionInfo(spec.version, spec.rtp, spread, path, published)


def list_versions(folder: Path) -> list[VersionInfo]:
    """Every version of the game whose package is ``folder``: the published one first. A file
    whose name is not its ``version`` field is an error naming both."""
    found = []
    for index, path in enumerate(version_files(folder)):
        info = read_info(path, published=index == 0)
        if index and path.stem != info.name:
            raise ModelError(f"{path}: version: expected {path.stem!r} (the file's name), got {info.name!r}")
        found.append(info)
    names = [info.name for info in found]
    if len(set(names)) != len(names):
        raise ModelError(f"{folder / VERSIONS_FOLDER}: two versions share a name: {names}")
    return found


def find_version(versions: list[VersionInfo], game: str, name: str) -> VersionInfo:
    """The version called ``name``; :class:`UnknownVersion` lists the game's versions."""
    for info in versions:
        if info.name == name:
            return info
    raise UnknownVersion(f"--version: {game} has no version {name!r}; expected one of "
                         f"{[info.name for info in versions]}")


def check_same_rules(published: dict[str, Any], version: dict[str, Any], designer_fields: tuple[str, ...],
                     path: Path) -> None:
    """Refuse a version that changes more than the designer's fields (dotted paths) and its own
    name, label and notes: the message names the first field that differs."""
    free = {*OWN_FIELDS, *designer_fields}
    difference = first_difference(published, version, "", free)
    if difference is not None:
        raise ModelError(f"{path}: {difference}: a version may change only {sorted(free)} "
                         "(the rules, symbols, paytable and features stay the published model's)")


def first_difference(a: Any, b: Any, where: str, free: set[str]) -> str | None:
    """The dotted path of the first difference between ``a`` and ``b`` outside the ``free`` paths."""
    if where in free:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            path = f"{where}.{key}" if where else key
            if key not in a or key not in b:
                if path not in free:
                    return path
                continue
            found = first_difference(a[key], b[key], path, free)
            if found is not None:
                return found
        return None
    return None if a == b else where or "(the whole file)"
