"""What every ``slotforge`` command shares: the app, its exit codes, options, errors and output."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from typer.core import TyperCommand, TyperGroup

from slotforge import __version__
from slotforge.engine.game import Game
from slotforge.games import game_codes

# The server's settings are read from SLOTFORGE_ and the setting's name (slotforge.rgs.settings);
# every variable the commands read or hand on is named through env_name, so it is spelled once.
ENV_PREFIX = "SLOTFORGE_"


def env_name(setting: str) -> str:
    """The environment variable of a setting: ``database_url`` -> ``SLOTFORGE_DATABASE_URL``."""
    return ENV_PREFIX + setting.upper()


def hand_on(settings: dict[str, str | None]) -> None:
    """Pass settings on to worker processes (which build their app from the environment): each
    one given, under its :func:`env_name`."""
    for setting, value in settings.items():
        if value is not None:
            os.environ[env_name(setting)] = value


# Exit codes: 0 done, 1 a replay that does not match, 2 bad input, 130 stopped by Ctrl-C
# before anything was done.
BAD_INPUT = 2
INTERRUPTED = 130

out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, soft_wrap=True, highlight=False)

T = TypeVar("T")


class PlainHelpFlag:
    """A command whose ``--help`` reads like the other flags: typer labels the flag it adds with
    its type, ``<bool>``, where our own flags show none (``metavar=""``)."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
        return option


class Command(PlainHelpFlag, TyperCommand):
    """Every command of ``slotforge`` (``@app.command(cls=Command)``)."""


class Group(PlainHelpFlag, TyperGroup):
    """Every group of commands of ``slotforge`` (``typer.Typer(cls=Group)``)."""


class OneLineErrors(Group):
    """The command group, reporting a usage error (``-n abc``, an unknown option) as one line
    ``error: ...`` with exit code 2 rather than a box of help."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except typer.Abort:
            sys.exit(INTERRUPTED)
        except typer.TyperException as error:  # a usage error: a bad option value, an unknown option
            message = error.format_message()
            if message:  # (empty after the help shown for a bare ``slotforge``)
                err.print(f"[red]error:[/red] {escape(message)}")
            sys.exit(BAD_INPUT)
        sys.exit(code or 0)


app = typer.Typer(
    cls=OneLineErrors,
    help="slotforge: slot games, their exact maths and a fast simulator.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
)


def escape(text: str) -> str:
    """Text that rich prints as given (a value like ``[0.96, 0.97]`` is not markup)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def fail(message: str) -> None:
    err.print(f"[red]error:[/red] {escape(message)}")
    raise typer.Exit(BAD_INPUT)


def guarded(action: Callable[[], T]) -> T:
    """Run ``action`` turning user errors into one-line messages and exit code 2.

    Every error about the user's input (a model, script, bet, record or file) is a
    ``ValueError`` that names the field or file at fault.
    """
    try:
        return action()
    except ValueError as error:
        fail(str(error))
    raise AssertionError("unreachable")


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def version_callback(value: bool) -> None:
    if value:
        out.print(f"slotforge {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", metavar="", help="print the version and exit", is_eager=True,
                                 callback=version_callback),
) -> None:
    """slotforge: slot games, their exact maths and a fast simulator."""


# -- options shared by several commands ---------------------------------------------------------
def game_argument() -> Any:
    return typer.Argument(..., metavar="GAME", help=f"the game: one of {', '.join(game_codes())}")


# The most rounds a command runs: the simulator's int64 counters hold far more, but a trillion
# rounds is already hours of every core; a larger count is a typo, refused (exit 2) with the limit.
MAX_ROUNDS = 10**12


def model_option() -> Any:
    return typer.Option(None, "--model", metavar="FILE", help="a model file to use instead of the shipped one")


def version_option() -> Any:
    return typer.Option(None, "--version", metavar="NAME",
                        help="an RTP version of the game (`slotforge games` lists them); the published one when "
                             "omitted")


def chosen_model(game: str, model: Path | None, version: str | None) -> Path | None:
    """The model file a command runs: ``--model``, the model of ``--version`` (checked against
    the published rules; an unknown name lists the versions), or None for the published one."""
    from slotforge.games import version_model

    if version is not None and model is not None:
        fail("--model and --version: give one or the other")
    return model if version is None else guarded(lambda: version_model(game, version))


def bet_option() -> Any:
    return typer.Option([], "--bet", metavar="FIELD=VALUE",
                        help="a bet field (repeatable), e.g. --bet lines=7; the game's page lists them")


def strategy_option() -> Any:
    return typer.Option(None, "--strategy", metavar="NAME",
                        help="the game's strategy answering its decisions (gamble, picks, offers) in the "
                             "simulator; the game's page lists them; its default when omitted")


def json_option(what: str) -> Any:
    return typer.Option(False, "--json", metavar="", help=f"print {what} as JSON, for a machine")


def workers_option() -> Any:
    return typer.Option(0, "--workers", "-w", min=0, metavar="N",
                        help="processes; 0 = every core (more than the cores is capped)")


def cluster_option() -> Any:
    return typer.Option(None, "--cluster", metavar="ADDRESS",
                        help="run the simulation's chunks on a Dask cluster: a scheduler's address "
                             "(tcp://HOST:8786) or local:N (N worker processes started here); same figures "
                             "as a local run (docs/cluster.md)")


def checked_cluster(address: str | None) -> str | None:
    """The ``--cluster`` address, checked before any work."""
    if address is not None:
        from slotforge.maths.cluster import parse_address

        guarded(lambda: parse_address(address))
    return address


def parse_bet_options(pairs: list[str], amounts: frozenset[str] = frozenset()) -> dict[str, Any] | None:
    """``--bet lines=10 --bet coin_value=0.05`` as a bet object: whole numbers as ints, except
    the ``amounts`` fields, which stay text as an amount always is ("1" is a coin value of 1.00)."""
    if not pairs:
        return None
    bet: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--bet: expected FIELD=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        bet[key] = int(value) if key not in amounts and value.lstrip("-").isdigit() else value
    return bet


def amount_fields(game: Game) -> frozenset[str]:
    """The game's bet fields that are amounts (the default bet holds them as Decimals)."""
    return frozenset(name for name, value in game.parse_bet({}).fields.items() if isinstance(value, Decimal))


def checked_bet(game: Game, pairs: list[str]) -> dict[str, Any] | None:
    """The ``--bet`` options as a bet object the game accepts (checked before any work)."""
    bet = parse_bet_options(pairs, amount_fields(game))
    game.parse_bet(bet)
    return bet


def workers_to_use(requested: int) -> int:
    from slotforge.reports.simulate import worker_count

    workers, note = worker_count(requested)
    if note:
        err.print(f"note: {escape(note)}")
    return workers


def log_line(text: str) -> None:
    """Say what a long step is doing when standard error is a log, not a terminal (where the
    progress bar says it)."""
    if not err.is_terminal:
        err.print(escape(text))


PROGRESS_LOG_EVERY_S = 30.0  # how often a log hears of a long run's progress (a terminal sees the bar)


def logged_progress(total: int, what: str) -> Callable[[int], None]:
    """A counter of ``what`` done out of ``total`` that says so on standard error when it is a
    log: at the first report, then at most every ``PROGRESS_LOG_EVERY_S`` seconds."""
    done = 0
    last_said: float | None = None

    def advance(count: int) -> None:
        nonlocal done, last_said
        done += count
        now = time.monotonic()
        if last_said is None or now - last_said >= PROGRESS_LOG_EVERY_S:
            last_said = now
            log_line(f"{done:,} of {total:,} {what} done")

    return advance


@contextmanager
def progress_bar(description: str) -> Iterator[Progress]:
    """A progress bar on standard error (nothing when it is not a terminal)."""
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=not err.is_terminal,
    ) as progress:
        yield progress


def check_secret(secret: str) -> None:
    """A shared secret given on the command line is long enough (exit 2 if not)."""
    from slotforge.rgs.settings import SHORTEST_SECRET

    if len(secret) < SHORTEST_SECRET:
        fail(f"--secret: expected at least {SHORTEST_SECRET} characters")


def report_audit(problems: list[str], checked: str) -> None:
    """Print the differences (exit 1) or that the books balance."""
    if problems:
        for problem in problems:
            err.print(f"[red]difference[/red]: {problem}", highlight=False)
        err.print(f"{len(problems)} difference{'' if len(problems) == 1 else 's'} in {checked}")
        raise typer.Exit(1)
    out.print(f"[green]the books balance[/green]: {checked}")


def check_writable(path: Path, force: bool) -> None:
    """Refuse, before any work, an output path that cannot or must not be written."""
    if path.is_dir():
        fail(f"--out: {path} is a folder; expected a file name")
    if path.exists() and not force:
        fail(f"--out: {path} exists; give --force to overwrite it")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        fail(f"--out: {folder} is not a folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"--out: {path} is not writable")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a stopped run leaves the old file)."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", delete=False) as handle:
        handle.write(text)
    os.replace(handle.name, path)
