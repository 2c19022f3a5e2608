"""The jackpot service: ``jackpot serve``, ``audit``, ``claims`` and ``settle``."""

from __future__ import annotations

import time
from enum import StrEnum
from typing import TYPE_CHECKING

import typer

from slotforge import logs

if TYPE_CHECKING:
    from slotforge.jackpot.books import Books
    from slotforge.jackpot.pool import PoolConfig

from slotforge.cli.common import (
    Command,
    Group,
    check_secret,
    env_name,
    err,
    fail,
    guarded,
    out,
    report_audit,
)

jackpot_app = typer.Typer(cls=Group, help="the jackpot service: network progressive pools shared by game servers",
                          no_args_is_help=True)
JackpotDatabaseOpt = typer.Option("sqlite:///jackpot.db", "--database",
                                  help="the service's own database: sqlite:///FILE or postgresql+psycopg://...")


@jackpot_app.command("serve", cls=Command)
def jackpot_serve(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8100, "--port"),
    database: str = JackpotDatabaseOpt,
    secret: str | None = typer.Option(None, "--secret", envvar=env_name("jackpot_secret"),
                                      help="a shared secret (16 characters or more) every game server must send "
                                           "(their jackpot_secret); without it anyone who reaches the address "
                                           "can claim a pot"),
) -> None:
    """Run the jackpot service: every game's progressive pool, for game servers started with
    --jackpot URL."""

    import uvicorn

    from slotforge.jackpot.service import create_service
    from slotforge.rgs.api.http import PROTOCOL

    logs.configure()
    if secret is not None:
        check_secret(secret)
    else:
        err.print("[yellow]warning:[/yellow] no --secret: bind the service to a private address", highlight=False)
    service = guarded(lambda: create_service(database, game_pools(), secret=secret))
    out.print(f"slotforge jackpot service on http://{host}:{port} (database {database})", highlight=False)
    uvicorn.run(service, host=host, port=port, log_level="info", timeout_graceful_shutdown=2, http=PROTOCOL)


def game_pools() -> dict[str, PoolConfig]:
    """The pool of every game that has one, named by the game's code: the pools the service keeps."""
    from slotforge.games import game_codes, load_game

    games = {code: load_game(code) for code in game_codes()}
    return {code: game.pool_config() for code, game in games.items() if game.capabilities.jackpot_pool}


def service_books(database: str) -> Books:
    """The jackpot service's books in ``database`` (a bad URL is a clear error, exit 2)."""
    from slotforge.db import connect
    from slotforge.jackpot.books import Books

    return Books(guarded(lambda: connect(database)), time.time)




@jackpot_app.command("audit", cls=Command)
def jackpot_audit(database: str = JackpotDatabaseOpt) -> None:
    """Check the service's books: every pool balances and matches its entries. Exits 1 on any
    difference."""
    from slotforge.jackpot.books import audit as check

    books = service_books(database)
    with books.engine.connect() as conn:
        problems = check(conn)
        counted = f"{len(books.values(conn))} pools, {len(books.entries(conn))} entries"
    report_audit(problems, counted)


class ClaimStatus(StrEnum):
    held = "held"
    confirmed = "confirmed"
    released = "released"


class Settlement(StrEnum):
    confirmed = "confirmed"
    released = "released"


@jackpot_app.command("claims", cls=Command)
def jackpot_claims(
    database: str = JackpotDatabaseOpt,
    status: ClaimStatus | None = typer.Option(None, "--status", help="only the claims in this state"),
    server: str | None = typer.Option(None, "--server", help="only this game server's claims (its jackpot_server_id)"),
) -> None:
    """List the service's claims, oldest first: a claim stays held until its game server
    confirms or releases it."""
    from rich.table import Table

    books = service_books(database)
    with books.engine.connect() as conn:
        claims = books.entries(conn, server=server, kind="claim", status=status.value if status else None)
    table = Table("key", "pool", "status", "paid (EUR)", "payout", "since")
    for claim in claims:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(claim["created_at"] / 1000))
        table.add_row(claim["key"], claim["pool"], claim["status"], claim["amount"],
                      f"{claim['payout']} {claim['currency']}", since)
    out.print(table)
    out.print(f"{len(claims)} claims", highlight=False)


@jackpot_app.command("settle", cls=Command)
def jackpot_settle(
    key: str = typer.Argument(..., metavar="KEY",
                              help="the claim's key, SERVER:ROUND (see `slotforge jackpot claims`)"),
    settlement: Settlement = typer.Option(..., "--as",
                                          help="confirmed: the round is in its server's database, complete and "
                                               "paid; released: it is not, and the payout goes back into the pot"),
    database: str = JackpotDatabaseOpt,
) -> None:
    """Settle by hand a claim held by a game server that will not come back (a live server
    settles its own claims). Look the round up in that server's database first."""
    from slotforge.jackpot.books import ClaimSettled

    books = service_books(database)
    with books.engine.connect() as conn:
        found = books.entries(conn, kind="claim", key=key)
    if not found:
        fail(f"KEY: no claim {key!r} at this service (see `slotforge jackpot claims`)")
    try:
        settled = books.confirm(key) if settlement is Settlement.confirmed else books.release(key)
    except ClaimSettled as error:
        fail(str(error))
    out.print(f"claim {key}: {settled['status']} ({settled['amount']} EUR)", highlight=False)


