"""The reference seamless wallet: ``wallet-demo serve`` and ``books``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from slotforge.cli.common import (
    Command,
    Group,
    check_secret,
    emit_json,
    env_name,
    fail,
    guarded,
    out,
)

wallet_demo_app = typer.Typer(
    cls=Group, help="the reference seamless wallet (for tests, demos and operators writing their own)",
    no_args_is_help=True)
WalletDatabaseOpt = typer.Option(Path("wallet-demo.db"), "--database", help="the wallet's SQLite file")


def probability(name: str) -> Any:
    return typer.Option(0.0, f"--{name}", min=0.0, max=1.0, help=f"chance of a {name} per call (see `serve --help`)")


@wallet_demo_app.command("serve", cls=Command)
def wallet_demo_serve(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8100, "--port"),
    database: Path = WalletDatabaseOpt,
    secret: str = typer.Option(..., "--secret", envvar=env_name("wallet_secret"),
                               help="the shared secret of the X-Signature HMAC (at least 16 characters)"),
    new_player_balance: str | None = typer.Option(None, "--new-player-balance",
                                                  help="open unknown players with this balance (else UNKNOWN_PLAYER)"),
    fail_chance: float = probability("fail"),
    timeout_chance: float = probability("timeout"),
    late_chance: float = probability("late"),
    twice_chance: float = probability("twice"),
    hang_s: float = typer.Option(5.0, "--hang-s", min=0.0, help="how long a timeout or a late answer hangs"),
    seed: int | None = typer.Option(None, "--seed", help="seed of the fault draws"),
) -> None:
    """Run the reference wallet: POST /debit, /credit, /rollback (signed); GET /admin/books.

    Faults, each a chance per call: --fail answers 500 and applies nothing; --timeout hangs
    --hang-s then answers 503, nothing applied; --late applies, then answers after --hang-s;
    --twice applies and loses the reply (502), so the retry is answered from the stored result.
    Change them while it runs with POST /admin/faults."""
    import uvicorn

    from slotforge.rgs.api.http import PROTOCOL
    from slotforge.rgs.money import parse_amount
    from slotforge.rgs.wallets.demo import Faults, create_app

    check_secret(secret)
    opening = guarded(lambda: parse_amount(new_player_balance, "--new-player-balance")) if new_player_balance else None
    faults = guarded(lambda: Faults(fail=fail_chance, timeout=timeout_chance, late=late_chance,
                                   twice=twice_chance, hang_s=hang_s, seed=seed))
    wallet = create_app(database, secret, faults, opening)
    out.print(f"slotforge wallet-demo: http://{host}:{port} (books: GET /admin/books), database {database}")
    uvicorn.run(wallet, host=host, port=port, log_level="warning", http=PROTOCOL)


@wallet_demo_app.command("books", cls=Command)
def wallet_demo_books(database: Path = WalletDatabaseOpt) -> None:
    """Print the wallet's books (JSON); exit 1 if a balance is not the sum of its movements."""
    from slotforge.rgs.wallets.demo import books_of

    if not database.is_file():
        fail(f"--database: no wallet database at {database}")
    books = guarded(lambda: books_of(database))
    emit_json(books)
    if not books["balanced"]:
        raise typer.Exit(1)
