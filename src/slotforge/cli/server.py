"""The game server: ``serve`` and ``operator add``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import typer

from slotforge import logs
from slotforge.cli.common import (
    Command,
    Group,
    app,
    env_name,
    err,
    fail,
    guarded,
    hand_on,
    out,
)

DatabaseOpt = typer.Option(
    None, "--database", help=f"database URL (default sqlite:///slotforge.db; or {env_name('database_url')})"
)
ConfigOpt = typer.Option(None, "--config", help="the operator's settings file (TOML)")


def server_settings(config: Path | None, database: str | None, **overrides: Any):
    """The server's settings, or exit 2 naming the field."""
    from slotforge.rgs.settings import SettingsError, load_settings

    try:
        return load_settings(config, database_url=database, **overrides)
    except SettingsError as error:
        fail(str(error))


def check_versions(settings: Any) -> None:
    """The settings' RTP versions known (before any worker starts): exit 2 naming the setting."""
    from slotforge.games import game_codes
    from slotforge.rgs.offer import check_choices

    check_choices(settings.rtp_versions, settings.games or game_codes(), settings.jurisdiction_names())


@app.command(cls=Command)
def serve(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8000, "--port"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
    workers: int = typer.Option(1, "--workers", help="server processes (use PostgreSQL for more than one)"),
    qa: bool = typer.Option(False, "--qa", help="accept scripts of forced outcomes in fun sessions"),
    jackpot: str | None = typer.Option(None, "--jackpot", help="a jackpot service's URL (slotforge jackpot serve): "
                                       "the progressive pools there, shared with other game servers"),
    access_log: bool = typer.Option(False, "--access-log", help="log a line per request (off: it costs a busy "
                                    "server a tenth of its CPU)"),
) -> None:
    """Run the game server: every game over HTTP, every round durable and replayable."""

    import uvicorn

    from slotforge.db import connect
    from slotforge.rgs.api.http import PROTOCOL
    from slotforge.rgs.schema import migrate

    settings = server_settings(config, database, qa=qa or None, jackpot_url=jackpot)
    guarded(lambda: check_versions(settings))
    if workers > 1 and settings.database_url.startswith("sqlite"):
        err.print("note: several workers share one SQLite file; PostgreSQL serves them better")
    logs.configure()
    guarded(lambda: migrate(connect(settings.database_url)))  # once, before any worker starts
    # Each worker builds its app from the environment: pass the settings on that way.
    hand_on({"database_url": settings.database_url, "qa": "true" if qa else None, "jackpot_url": jackpot or None,
             "config": str(config.resolve()) if config is not None else None})
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    out.print(f"slotforge: play in a browser at http://{shown_host}:{port}/ (it answers at once; on a fresh "
              "machine the games compile in the background first, about 3 minutes on two cores, and each is "
              "playable as soon as the log says it is ready)", highlight=False)
    uvicorn.run("slotforge.rgs.app:app_from_environment", factory=True, host=host, port=port, workers=workers,
                log_level="info", timeout_graceful_shutdown=5, http=PROTOCOL, access_log=access_log)


operator_app = typer.Typer(cls=Group, help="operators of the game server", no_args_is_help=True)


@operator_app.command("add", cls=Command)
def operator_add(
    name: str = typer.Argument(..., help="the operator's name"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Create an operator and print its API key (shown once; only its hash is stored)."""

    from slotforge.db import connect
    from slotforge.rgs.api import access
    from slotforge.rgs.compliance import changes
    from slotforge.rgs.schema import migrate

    settings = server_settings(config, database)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    now = int(time.time() * 1000)
    with engine.begin() as conn:
        key = guarded(lambda: access.add_operator(conn, name, now))
        changes.append(conn, changes.Change("admin", "operator_added", f"operator:{name}"), now)
    sys.stdout.write(key + "\n")
