"""What a server records of itself when it starts: its settings and the games it plays (each
game's model and code, and how they stand against their certified manifests), appended to the
change log when they differ from what the last start recorded. A game that differs from its
certified manifest is logged loudly and recorded as a change of its own."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.engine import make_url

from slotforge.engine.game import Game
from slotforge.rgs.compliance import changes
from slotforge.rgs.compliance.integrity import games_in_play
from slotforge.rgs.settings import Settings

log = logging.getLogger("slotforge.rgs")
MASK = "(set)"


def masked(value: Any, key: str = "") -> Any:
    """``value`` with every secret replaced by a mark that it is set (a secret never enters the log)."""
    if isinstance(value, dict):
        return {name: masked(inner, name) for name, inner in value.items()}
    if isinstance(value, list):
        return [masked(inner, key) for inner in value]
    if "secret" in key and value is not None:
        return MASK
    return value


def settings_view(settings: Settings) -> dict[str, Any]:
    """The settings as the log records them: JSON, secrets masked, the database's password hidden."""
    view = masked(settings.model_dump(mode="json"))
    view["database_url"] = make_url(settings.database_url).render_as_string(hide_password=True)
    return view


def configuration(settings: Settings, games: Iterable[Game]) -> dict[str, Any]:
    return {"settings": settings_view(settings),
            "games": {game.game: {"model": game.model_id, "code": game.code, "model_sha256": game.model_sha256,
                                  "manifest": game.status} for game in games_in_play(games)}}


def record_start(transaction: Callable[[], AbstractContextManager[Connection]], settings: Settings,
                 games: Iterable[Game], now: int) -> None:
    """Append the configuration when it changed since the last start, and each game that differs
    from its certified manifest."""
    games = list(games)
    checked = games_in_play(games)
    for game in checked:
        if game.status == "mismatch":
            log.error("INTEGRITY: %s differs from its certified manifest %s: %s", game.game, game.manifest,
                      "; ".join(game.differences))
    current = configuration(settings, games)
    with transaction() as conn:
        last = changes.latest(conn, "configuration")
        if last is not None and last["after"] == current:
            return
        changes.append(conn, changes.Change("server", "configuration", "server",
                                            before=None if last is None else last["after"], after=current), now)
        for game in checked:
            if game.status == "mismatch":
                changes.append(conn, changes.Change("server", "integrity_mismatch", f"game:{game.game}",
                                                    after=game.as_json()), now)
