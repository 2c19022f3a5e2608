"""The integrity of what plays: each game in play with its model's hash, its version and the code
that plays it, compared with the certified manifests; and a keyed digest of the whole installed
package that a test lab asks for with a seed of its own choosing.

A lab's seed makes the digest a challenge: the answer depends on the seed and on every byte of
the package, so an answer stored earlier (or computed from a certified copy kept aside) cannot be
replayed for a new seed without the files themselves.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import slotforge
from slotforge.engine.game import Game
from slotforge.games.versions import VERSIONS_FOLDER

PACKAGE = Path(slotforge.__file__).resolve().parent
# What the digest covers: the package's source, data and the shipped browser client; not the
# caches that running it leaves beside them.
COVERED_SUFFIXES = frozenset({".py", ".json", ".sql", ".toml", ".mako", ".html", ".js", ".css", ".md", ".txt",
                              ".svg", ".png", ".ogg", ".mp3", ".wav", ".woff2"})
SKIPPED_PARTS = frozenset({"__pycache__"})
SHORTEST_SEED = 16  # bytes of a lab's seed


@dataclass(frozen=True)
class GameInPlay:
    """One game as this server plays it, and what its certified manifest says of it."""

    game: str
    version: str
    model_id: str
    model_sha256: str
    code: str
    manifest: str | None  # the manifest's file, None when the game has none
    status: str  # certified, mismatch or uncertified
    differences: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "differences": list(self.differences)}


def model_sha256(game: Game) -> str:
    """SHA-256 of the model file as installed, byte for byte."""
    return hashlib.sha256(game.path.read_bytes()).hexdigest()


def manifest_of(game: Game) -> Path | None:
    """The certified manifest of the game's model version (``slotforge certify -o``), where one is
    shipped in the game's package: ``certified/VERSION.json`` beside its ``model.json``."""
    folder = game.path.parent.parent if game.path.parent.name == VERSIONS_FOLDER else game.path.parent
    path = folder / "certified" / f"{game.spec.version}.json"
    return path if path.is_file() else None


def in_play(game: Game) -> GameInPlay:
    """``game`` as installed, against its certified manifest."""
    digest = model_sha256(game)
    found = manifest_of(game)
    figures = dict(game=game.code, version=str(game.spec.version), model_id=game.model_id, model_sha256=digest,
                   code=game.code_id)
    if found is None:
        return GameInPlay(**figures, manifest=None, status="uncertified")
    certified = json.loads(found.read_text())
    differences = tuple(
        f"{field}: certified {kept!r}, in play {ours!r}"
        for field, kept, ours in (("model_sha256", certified["model"]["sha256"], digest),
                                  ("code", certified["code"], game.code_id))
        if kept != ours)
    return GameInPlay(**figures, manifest=shown_path(found),
                      status="mismatch" if differences else "certified", differences=differences)


def shown_path(path: Path) -> str:
    """A manifest's path as the answer shows it: within the package where it is there."""
    return str(path.relative_to(PACKAGE)) if path.is_relative_to(PACKAGE) else str(path)


def games_in_play(games: Iterable[Game]) -> list[GameInPlay]:
    return [in_play(game) for game in sorted(games, key=lambda g: g.code)]


def covered_files(root: Path = PACKAGE) -> Iterator[Path]:
    """The package's files the digest covers, in a fixed order."""
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in COVERED_SUFFIXES and not SKIPPED_PARTS & set(path.parts):
            yield path


def package_digest(seed: bytes, root: Path = PACKAGE) -> tuple[str, int]:
    """HMAC-SHA256 keyed by ``seed`` over every covered file (its path in the package, its length
    and its bytes); the digest and the number of files."""
    if len(seed) < SHORTEST_SEED:
        raise ValueError(f"seed: expected at least {SHORTEST_SEED} bytes ({2 * SHORTEST_SEED} hex digits)")
    mac = hmac.new(seed, digestmod=hashlib.sha256)
    count = 0
    for path in covered_files(root):
        content = path.read_bytes()
        mac.update(f"{path.relative_to(root).as_posix()}\0{len(content)}\0".encode())
        mac.update(content)
        count += 1
    return mac.hexdigest(), count


def parse_seed(raw: str) -> bytes:
    """A lab's seed as hex text; ValueError naming the field otherwise."""
    try:
        seed = bytes.fromhex(raw)
    except ValueError as error:
        raise ValueError(f"seed: expected hex digits, got {raw[:40]!r}") from error
    if len(seed) < SHORTEST_SEED:
        raise ValueError(f"seed: expected at least {2 * SHORTEST_SEED} hex digits, got {len(raw)}")
    return seed
