"""What a compliance team asks of the game server's records (docs/compliance.md): ``audit`` (the
books, and ``audit changes``, the change log's chain), ``export``, ``integrity``, ``dispute-link``
and ``players erase``."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import typer

from slotforge.cli.common import Command, Group, app, err, escape, fail, guarded, json_option, out, report_audit
from slotforge.cli.server import ConfigOpt, DatabaseOpt, server_settings


def books(database: str | None, config: Path | None, **overrides: Any) -> tuple[Any, Any]:
    """The settings and the migrated database they name."""
    from slotforge.db import connect
    from slotforge.rgs.schema import migrate

    settings = server_settings(config, database, **overrides)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    return settings, engine


def operator_named(engine: Any, name: str) -> int:
    """An operator's id by its name (exit 2 naming the known ones otherwise)."""
    from sqlalchemy import select

    from slotforge.rgs.schema import operators

    with engine.connect() as conn:
        found = dict(conn.execute(select(operators.c.name, operators.c.id)).all())
    if name not in found:
        fail(f"--operator: expected one of {sorted(found)}, got {name!r}")
    return found[name]


# -- audit ----------------------------------------------------------------------------------------
audit_app = typer.Typer(cls=Group, invoke_without_command=True,
                        help="check the books (and, with `changes`, the change log's chain)")


@audit_app.callback()
def audit(
    ctx: typer.Context,
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
    jackpot: str | None = typer.Option(None, "--jackpot", help="the jackpot service's URL: its books too"),
) -> None:
    """Check the books: every balance is its ledger's sum, every round paid once, every pool
    balanced (the jackpot service's too, with --jackpot or the setting). Exits 1 on any difference."""
    if ctx.invoked_subcommand is not None:
        return
    from slotforge.rgs.audit import audit as check
    from slotforge.rgs.audit import check_service, summary

    settings, engine = books(database, config, jackpot_url=jackpot)
    with engine.connect() as conn:
        problems = check(conn)
        counts = summary(conn)
        if settings.jackpot_url:
            problems += check_service(conn, settings.jackpot_url, settings.jackpot_server(), settings.jackpot_secret)
    checked = ", ".join(f"{n:,} {what}" for what, n in counts.items())
    if settings.jackpot_url:
        checked += f" and the jackpot service at {settings.jackpot_url}"
    report_audit(problems, checked)


@audit_app.command("changes", cls=Command)
def audit_changes(
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
    as_json: bool = json_option("the verdict"),
) -> None:
    """Verify the change log's hash chain: exit 1 naming the first entry altered or removed; else
    print its head (keep it outside the server: it stands for the whole log up to now)."""
    from slotforge.rgs.compliance import changes

    _, engine = books(database, config)
    verdict = changes.verify(engine)
    if as_json:
        out.print(json.dumps({"intact": verdict.intact, "checked": verdict.checked, "head": verdict.head,
                              "problem": verdict.problem, "broken_at": verdict.broken_at}))
    elif verdict.intact:
        out.print(f"[green]the change log holds[/green]: {verdict.checked:,} entries; head {verdict.head}")
    else:
        err.print(f"[red]the change log is broken[/red]: {escape(verdict.problem or '')} "
                  f"({verdict.checked:,} entries hold before it)")
    if not verdict.intact:
        raise typer.Exit(1)


# -- export ---------------------------------------------------------------------------------------
def moment(raw: str | None, option: str) -> int | None:
    """An ISO 8601 time (UTC without a zone) as ms since the epoch; exit 2 naming the option."""
    if raw is None:
        return None
    from pydantic import TypeAdapter, ValidationError

    from slotforge.rgs.api.models import Moment, millis

    try:
        return millis(TypeAdapter(Moment).validate_python(datetime.fromisoformat(raw.replace("Z", "+00:00"))))
    except (ValueError, ValidationError) as error:
        fail(f"{option}: expected an ISO 8601 time such as 2026-12-01 or 2026-12-01T12:00:00Z, got {raw!r} "
             f"({str(error).splitlines()[0]})")
    return None


@app.command(cls=Command)
def export(
    kind: str = typer.Argument(..., metavar="KIND", help="rounds or transactions (the wallet's ledger)"),
    since: str | None = typer.Option(None, "--from", help="ISO 8601 time, inclusive (UTC without a zone)"),
    until: str | None = typer.Option(None, "--to", help="ISO 8601 time, exclusive (UTC without a zone)"),
    operator: str | None = typer.Option(None, "--operator", help="one operator's players (by its name)"),
    player: str | None = typer.Option(None, "--player", help="one player (the operator's id; needs --operator)"),
    game: str | None = typer.Option(None, "--game", help="one game's rounds (its code)"),
    version: str | None = typer.Option(None, "--version", help="one model version's rounds"),
    currency: str | None = typer.Option(None, "--currency", help="one currency (ISO 4217)"),
    form: str = typer.Option("csv", "--format", help="csv or jsonl"),
    output: Path | None = typer.Option(None, "--out", "-o", help="the file to write (standard output if omitted)"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Export rounds or wallet transactions as CSV or JSON lines, streamed (constant memory), every
    amount exact and every time ISO 8601 UTC (columns: docs/compliance.md)."""
    from slotforge.rgs.compliance import exports

    if kind not in exports.EXPORTS:
        fail(f"KIND: expected one of {sorted(exports.EXPORTS)}, got {kind!r}")
    if form not in exports.FORMATS:
        fail(f"--format: expected one of {list(exports.FORMATS)}, got {form!r}")
    if player is not None and operator is None:
        fail("--player: give --operator too (a player's id is the operator's own)")
    if currency is not None and (len(currency) != 3 or not currency.isalpha() or not currency.isupper()):
        fail(f"--currency: expected a three-letter ISO 4217 code such as EUR, got {currency!r}")
    filters_at = dict(since=moment(since, "--from"), until=moment(until, "--to"))
    _, engine = books(database, config)
    filters = exports.Filters(**filters_at, operator_id=None if operator is None else operator_named(engine, operator),
                              player=player, game=game, version=version, currency=currency)
    chosen = exports.EXPORTS[kind]
    write_export(chosen, engine, filters, form, output)


def write_export(chosen: Any, engine: Any, filters: Any, form: str, output: Path | None) -> None:
    """Stream the export to ``output`` (a file written whole or not at all) or standard output,
    with its progress on standard error (by id, so no count of the rows is needed first)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from slotforge.rgs.compliance import exports

    low, high = chosen.span(engine, filters)
    sink = sys.stdout.buffer if output is None else output.with_name(f".{output.name}.partial").open("wb")
    rows = 0
    started = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[rows]:,} rows"),
                  TimeRemainingColumn(), console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task(f"exporting {chosen.name}", total=max(high - low + 1, 1), rows=0)

        def counted() -> Any:
            nonlocal rows
            for row in chosen.rows(engine, filters):
                rows += 1
                if rows % exports.BATCH == 0:
                    progress.update(task, completed=row[0] - low + 1, rows=rows)
                yield row

        try:
            for chunk in exports.encode(chosen, counted(), form, filters):  # type: ignore[arg-type]
                sink.write(chunk)
        except BaseException:
            if output is not None:
                sink.close()
                output.with_name(f".{output.name}.partial").unlink(missing_ok=True)
            raise
    if output is not None:
        sink.close()
        output.with_name(f".{output.name}.partial").replace(output)
    err.print(f"exported {rows:,} {chosen.name} in {time.monotonic() - started:.1f} s"
              + ("" if output is None else f" to {output}"))


# -- integrity ------------------------------------------------------------------------------------
@app.command(cls=Command)
def integrity(
    seed: str | None = typer.Option(None, "--seed", help="a lab's seed (at least 32 hex digits): also print "
                                    "the installed package's HMAC-SHA256 under it"),
    config: Path | None = ConfigOpt,
    as_json: bool = json_option("the games and the digest"),
) -> None:
    """Each game in play with its model's hash, version and code fingerprint, against its certified
    manifest. Exits 1 when a game differs from its manifest."""
    from slotforge.games import game_codes, load_game
    from slotforge.rgs.compliance import integrity as checks
    from slotforge.rgs.offer import Offer

    settings = server_settings(config, None)
    offer = guarded(lambda: Offer.of({code: load_game(code) for code in settings.games or game_codes()}, settings))
    found = checks.games_in_play(offer.in_play())
    package = None
    if seed is not None:
        parsed = guarded(lambda: checks.parse_seed(seed))
        digest, files = checks.package_digest(parsed)
        package = {"seed": seed, "hmac_sha256": digest, "files": files}
    if as_json:
        out.print(json.dumps({"games": [game.as_json() for game in found], "package": package}, indent=2))
    else:
        for game in found:
            mark = {"certified": "[green]certified[/green]", "mismatch": "[bold red]MISMATCH[/bold red]",
                    "uncertified": "[yellow]uncertified[/yellow]"}[game.status]
            out.print(f"{game.game:22} {game.version:10} {game.model_sha256[:16]}  {game.code}  {mark}")
            for difference in game.differences:
                out.print(f"    {escape(difference)}")
        if package is not None:
            out.print(f"package HMAC-SHA256 over {package['files']} files, seed {seed}: {package['hmac_sha256']}")
    if any(game.status == "mismatch" for game in found):
        raise typer.Exit(1)


# -- dispute links and erasure ----------------------------------------------------------------------
@app.command("dispute-link", cls=Command)
def dispute_link(
    round_id: int = typer.Argument(..., metavar="ROUND", min=1, help="the round's id"),
    hours: int = typer.Option(72, "--hours", min=1, max=24 * 90, help="how long the link opens the round"),
    base_url: str = typer.Option("http://127.0.0.1:8000", "--base-url", help="the game server's public address"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Print a signed link to one round's replay page that opens without a login until it expires."""
    from sqlalchemy import select

    from slotforge.rgs.compliance import changes, links
    from slotforge.rgs.rounds.views import iso
    from slotforge.rgs.schema import rounds

    _, engine = books(database, config)
    now = int(time.time() * 1000)
    expires = now + hours * 3_600_000
    with engine.begin() as conn:
        if conn.execute(select(rounds.c.id).where(rounds.c.id == round_id)).first() is None:
            fail(f"ROUND: no round {round_id}")
        changes.append(conn, changes.Change("admin", "dispute_link_issued", f"round:{round_id}",
                                            after={"expires_at": iso(expires)}), now)
    link = links.issue(engine, round_id, expires)
    out.print(base_url.rstrip("/") + link.path())
    err.print(f"opens round {round_id} until {iso(expires)}")


players_app = typer.Typer(cls=Group, help="the game server's players", no_args_is_help=True)


@players_app.command("erase", cls=Command)
def players_erase(
    player: str = typer.Argument(..., metavar="PLAYER", help="the operator's id of the player"),
    operator: str = typer.Option(..., "--operator", help="the operator's name"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Erase a player's personal data: the operator's id of the player is replaced by a pseudonym
    (printed); the rounds, the ledger and the audit stay whole."""
    from slotforge.rgs.compliance import erasure

    _, engine = books(database, config)
    operator_id = operator_named(engine, operator)
    key = erasure.pseudonym_key(engine)
    with engine.begin() as conn:
        try:
            alias = erasure.erase(conn, key, operator_id, player, "admin", int(time.time() * 1000))
        except erasure.NoSuchPlayer as error:
            fail(f"PLAYER: no {error} of {operator}")
    out.print(alias)
