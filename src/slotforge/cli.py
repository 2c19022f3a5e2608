"""The ``slotforge`` command: simulate, compute RTP, play and replay rounds, run the game server."""

from __future__ import annotations

import json
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from slotforge.engine import round as rounds
from slotforge.engine.bet import BetError
from slotforge.engine.game import Operator, ScriptError
from slotforge.engine.model import ModelError
from slotforge.games import UnknownGame, game_codes, load_game

app = typer.Typer(help="slotforge: slot games, their exact maths and a fast simulator.", no_args_is_help=True)
out = Console()
err = Console(stderr=True)

USER_ERRORS = (ModelError, BetError, ScriptError, UnknownGame, ValueError, FileNotFoundError)

GameArg = typer.Argument(..., help=f"one of: {', '.join(game_codes())}")
ModelOpt = typer.Option(None, "--model", help="a model file to use instead of the shipped one")


def fail(message: str) -> None:
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def guarded(action):
    """Run ``action`` turning user errors into one-line messages and exit code 2."""
    try:
        return action()
    except USER_ERRORS as error:
        fail(str(error))


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


@app.command()
def games() -> None:
    """List the games."""
    for code in game_codes():
        game = guarded(lambda code=code: load_game(code))
        out.print(f"{code:22} {game.spec.name:22} RTP {game.spec.rtp * 100:.2f}%  model {game.model_id}")


@app.command()
def rtp(game: str = GameArg, as_json: bool = typer.Option(False, "--json"), model: Path | None = ModelOpt) -> None:
    """The game's RTP: exact where the maths allows, with every part of the game."""
    result = guarded(lambda: load_game(game, model).rtp_report())
    if as_json:
        emit_json(result)
        return
    table = Table(title=f"{result['game']} — {result['method']} RTP {result['rtp'] * 100:.4f}%")
    table.add_column("part")
    table.add_column("RTP", justify="right")
    for part, value in result["parts"].items():
        table.add_row(part, f"{value * 100:.4f}%")
    out.print(table)
    for key, value in result.items():
        if key not in ("parts", "game", "rtp", "method") and not isinstance(value, dict):
            out.print(f"{key}: {value}")


@app.command()
def simulate(
    game: str = GameArg,
    rounds_: int = typer.Option(1_000_000, "--rounds", "-n", help="rounds to simulate"),
    seed: int = typer.Option(0, "--seed", help="the same seed gives the same figures"),
    workers: int = typer.Option(1, "--workers", "-w", help="processes; 0 = every core"),
    bet: list[str] = typer.Option([], "--bet", help="a bet field, FIELD=VALUE (repeatable)"),
    as_json: bool = typer.Option(False, "--json"),
    model: Path | None = ModelOpt,
) -> None:
    """Simulate complete rounds and report RTP with its confidence intervals. Ctrl-C stops
    early and reports what was simulated."""
    from slotforge.maths.simulate import simulate as run

    workers = workers or os.cpu_count() or 1
    the_bet = guarded(lambda: parse_bet_options(bet))
    guarded(lambda: load_game(game, model).parse_bet(the_bet))
    with Progress(
        TextColumn(f"simulating {game}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("rounds", total=rounds_)
        result = guarded(
            lambda: run(game, rounds_, seed=seed, workers=workers, model=model, bet=the_bet,
                        progress=lambda n: progress.advance(task, n))
        )
    if as_json:
        emit_json(result)
        return
    print_simulation(result)


def print_simulation(result: dict[str, Any]) -> None:
    note = " (interrupted)" if result["interrupted"] else ""
    out.print(f"[bold]{result['game']}[/bold] {result['model']}: {result['rounds']:,} rounds{note}")
    out.print(f"RTP {result['rtp'] * 100:.4f}%  ±{result['ci95'] * 100:.4f} (95%)  ±{result['ci99'] * 100:.4f} (99%)")
    out.print(f"std per round {result['std']:.3f} x bet   hit frequency {result['hit_frequency'] * 100:.2f}%"
              f"   max win {result['max_win']:,.2f} x bet")
    for name, figures in result["features"].items():
        shown = ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())
        out.print(f"{name}: {shown}")
    speed = f"{result['rounds_per_second']:,.0f} rounds/s"
    out.print(f"{speed} on {result['workers']} worker(s), {result['seconds']:.2f} s")


@app.command()
def par(
    game: str = GameArg,
    rounds_: int = typer.Option(100_000_000, "--rounds", "-n", help="rounds to simulate for the figures"),
    seed: int = typer.Option(1, "--seed"),
    workers: int = typer.Option(0, "--workers", "-w", help="processes; 0 = every core"),
    output: Path | None = typer.Option(None, "--out", help="write here (default docs/par/GAME.md)"),
    model: Path | None = ModelOpt,
) -> None:
    """Write the game's PAR sheet: exact RTP parts, simulated figures, paytable and strips."""
    from slotforge.maths.par import par_sheet
    from slotforge.maths.simulate import simulate as run

    the_game = guarded(lambda: load_game(game, model))
    report = guarded(the_game.rtp_report)
    with Progress(TextColumn(f"simulating {game}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("rounds", total=rounds_)
        simulation = guarded(lambda: run(game, rounds_, seed=seed, workers=workers or os.cpu_count() or 1,
                                         model=model, progress=lambda n: progress.advance(task, n)))
    path = output or Path("docs/par") / f"{game}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(par_sheet(the_game, report, simulation))
    out.print(f"wrote {path}")


def parse_bet_options(pairs: list[str]) -> dict[str, Any] | None:
    """``--bet lines=10 --bet coin_value=0.05`` as a bet object (whole numbers as ints)."""
    if not pairs:
        return None
    bet: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise BetError(f"bet: expected FIELD=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        bet[key] = int(value) if value.lstrip("-").isdigit() else value
    return bet


@app.command()
def play(
    game: str = GameArg,
    seed: int | None = typer.Option(None, "--seed", help="draw the round reproducibly from this seed"),
    script: Path | None = typer.Option(None, "--script", help="a script of forced outcomes (SCENARIOS.md)"),
    choice: list[str] = typer.Option([], "--choice", help="a choice, in order (repeatable)"),
    bet: list[str] = typer.Option([], "--bet", help="a bet field, FIELD=VALUE (repeatable)"),
    gamble_limit: str = typer.Option("1000.00", "--gamble-limit", help="the operator's gamble amount limit"),
    as_json: bool = typer.Option(False, "--json", help="print the round record"),
    model: Path | None = ModelOpt,
) -> None:
    """Play one round. Without --script or --seed it draws from the secure generator."""
    from decimal import Decimal, InvalidOperation

    the_game = guarded(lambda: load_game(game, model))
    if seed is not None and script is not None:
        fail("--seed and --script: give one or the other")
    try:
        limit = Decimal(gamble_limit)
    except InvalidOperation:
        limit = Decimal("NaN")
    if not limit.is_finite() or limit < 0:
        fail(f"--gamble-limit: expected an amount of 0 or more, like 500.00; got {gamble_limit!r}")
    operator = Operator(gamble_limit=limit)

    def first_round() -> dict[str, Any]:
        parsed = rounds.parse_script(the_game, json.loads(script.read_text())) if script else None
        source = rounds.seeded_words(seed) if seed is not None else rounds.rng.secure_words
        return rounds.play(
            the_game, parse_bet_options(bet), script=parsed, choices=rounds.parse_choices(the_game, choice),
            source=source, operator=operator,
        )

    record = guarded(first_round)
    if as_json:
        emit_json(record)
        return
    shown = print_round(record)
    while record["status"] == "awaiting" and sys.stdin.isatty():
        options = record["awaiting"]["options"]
        picked = typer.prompt(f"{record['awaiting']['decision']} ({'/'.join(options)})")
        if picked not in options:
            err.print(f"choose one of {options}")
            continue
        used = len(record["inputs"]["random"])
        source = rounds.seeded_words(seed, skip=used) if seed is not None else rounds.rng.secure_words
        record = guarded(partial(rounds.resume, the_game, record, picked, source=source))
        shown = print_round(record, shown)


def print_round(record: dict[str, Any], shown: int = 0) -> int:
    """Print a round's steps from step ``shown`` on; returns how many steps are shown."""
    if not shown:
        out.print(f"[bold]{record['game']}[/bold] bet {record['bet']} total bet {record['total_bet']}")
    for step in record["steps"][shown:]:
        if step["screen"]:
            out.print(f"[cyan]{step['kind']}[/cyan]")
            for row in step["screen"]:
                out.print("  " + " ".join(f"{code:9}" for code in row))
        for win in step["wins"]:
            where = f"line {win['line']}" if "line" in win else win["kind"]
            out.print(f"  [green]{where}[/green]: {win['count']} x {win['symbol']} pays {win['amount']}")
        for event in step["events"]:
            fields = ", ".join(f"{k} {v}" for k, v in event.items() if k != "type")
            out.print(f"  [yellow]{event['type']}[/yellow] {fields}")
    out.print(f"total win [bold]{record['total_win']}[/bold]  ({record['status']})")
    if record["awaiting"]:
        out.print(f"waiting for {record['awaiting']['decision']}: {', '.join(record['awaiting']['options'])}")
    return len(record["steps"])


@app.command()
def replay(record_file: Path = typer.Argument(..., help="a round record (JSON)")) -> None:
    """Re-run a recorded round and say whether it matches."""

    def check() -> tuple[bool, dict[str, Any]]:
        record = json.loads(record_file.read_text())
        if not isinstance(record, dict) or "game" not in record:
            raise ScriptError(f"{record_file}: not a round record (no 'game' field)")
        game = load_game(record["game"])
        if record.get("model") != game.model_id:
            raise ScriptError(f"model: recorded {record.get('model')}, this build has {game.model_id}")
        return rounds.replay(game, record)

    matches, again = guarded(check)
    if matches:
        out.print(f"[green]match[/green]: the round replays to the same record (total win {again['total_win']})")
        return
    err.print("[red]mismatch[/red]: replaying the recorded inputs gives a different record")
    raise typer.Exit(1)


DatabaseOpt = typer.Option(
    None, "--database", help="database URL (default sqlite:///slotforge.db; or SLOTFORGE_DATABASE_URL)"
)
ConfigOpt = typer.Option(None, "--config", help="the operator's settings file (TOML)")


def server_settings(config: Path | None, database: str | None, **overrides: Any):
    """The server's settings, or exit 2 naming the field."""
    from slotforge.rgs.settings import SettingsError, load_settings

    try:
        return load_settings(config, database_url=database, **overrides)
    except SettingsError as error:
        fail(str(error))


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8000, "--port"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
    workers: int = typer.Option(1, "--workers", help="server processes (use PostgreSQL for more than one)"),
    qa: bool = typer.Option(False, "--qa", help="accept scripts of forced outcomes in fun sessions"),
) -> None:
    """Run the game server: every game over HTTP, every round durable and replayable."""
    import logging

    import uvicorn

    from slotforge.rgs.database import connect, migrate

    settings = server_settings(config, database, qa=qa or None)
    if workers > 1 and settings.database_url.startswith("sqlite"):
        err.print("note: several workers share one SQLite file; PostgreSQL serves them better")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    guarded(lambda: migrate(connect(settings.database_url)))  # once, before any worker starts
    # Each worker builds its app from the environment: pass the settings on that way.
    os.environ["SLOTFORGE_DATABASE_URL"] = settings.database_url
    if qa:
        os.environ["SLOTFORGE_QA"] = "true"
    if config is not None:
        os.environ["SLOTFORGE_CONFIG"] = str(config.resolve())
    uvicorn.run("slotforge.rgs.app:app_from_environment", factory=True, host=host, port=port, workers=workers,
                log_level="info", timeout_graceful_shutdown=5)


operator_app = typer.Typer(help="operators of the game server", no_args_is_help=True)
app.add_typer(operator_app, name="operator")


@operator_app.command("add")
def operator_add(
    name: str = typer.Argument(..., help="the operator's name"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Create an operator and print its API key (shown once; only its hash is stored)."""
    import time

    from slotforge.rgs import access
    from slotforge.rgs.database import connect, migrate

    settings = server_settings(config, database)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    with engine.begin() as conn:
        key = guarded(lambda: access.add_operator(conn, name, int(time.time() * 1000)))
    sys.stdout.write(key + "\n")


@app.command()
def audit(database: str | None = DatabaseOpt, config: Path | None = ConfigOpt) -> None:
    """Check the books: every balance is its ledger's sum, every round paid once, every pool
    balanced. Exits 1 on any difference."""
    from slotforge.rgs.audit import audit as check
    from slotforge.rgs.audit import summary
    from slotforge.rgs.database import connect, migrate

    settings = server_settings(config, database)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    with engine.connect() as conn:
        problems = check(conn)
        counts = summary(conn)
    checked = ", ".join(f"{n:,} {what}" for what, n in counts.items())
    if problems:
        for problem in problems:
            err.print(f"[red]difference[/red]: {problem}", highlight=False)
        err.print(f"{len(problems)} differences in {checked}")
        raise typer.Exit(1)
    out.print(f"[green]the books balance[/green]: {checked}")


if __name__ == "__main__":
    app()
