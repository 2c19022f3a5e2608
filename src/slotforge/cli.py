"""The ``slotforge`` command: simulate, compute RTP, write PAR sheets, play and replay rounds, run the
game server."""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from typer.core import TyperCommand, TyperGroup

from slotforge import __version__, logs
from slotforge.amounts import AmountError, parse_decimal
from slotforge.engine import round as rounds
from slotforge.engine.game import Game, Operator, as_percent
from slotforge.engine.model import read_json_file
from slotforge.engine.record import differences
from slotforge.engine.roles import RtpOptions
from slotforge.figures import describe, flatten, model_label, percent, points
from slotforge.games import game_codes, load_game, maths_of

if TYPE_CHECKING:
    from slotforge.jackpot.books import Books

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
    from slotforge.maths.simulate import worker_count

    workers, note = worker_count(requested)
    if note:
        err.print(f"note: {escape(note)}")
    return workers


def log_line(text: str) -> None:
    """Say what a long step is doing when standard error is a log, not a terminal (where the
    progress bar says it)."""
    if not err.is_terminal:
        err.print(escape(text))


@contextmanager
def progress_bar(description: str) -> Iterator[Progress]:
    """A progress bar on standard error (nothing when it is not a terminal)."""
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=not err.is_terminal,
    ) as progress:
        yield progress


# -- games and their maths -----------------------------------------------------------------------
@app.command(cls=Command)
def games() -> None:
    """List the games: code, name, published RTP (the range, with the strategy giving each end,
    where the player's strategy moves it) and the model they run."""
    loaded = [(code, guarded(lambda code=code: load_game(code))) for code in game_codes()]
    code_width = max(len(code) for code, _ in loaded)
    name_width = max(len(game.spec.name) for _, game in loaded)
    rtp_width = max(len(game.published_rtp()["rtp_text"]) for _, game in loaded)
    for code, game in loaded:
        published = game.published_rtp()
        rtp = published["rtp_text"]
        name = escape(game.spec.name)
        out.print(f"{code:{code_width}}  {name:{name_width}}  RTP {rtp:<{rtp_width}}  {model_label(game)}")
        spread = published["rtp_range"]
        if spread:
            out.print(f"{'':{code_width}}  {as_percent(Decimal(spread['min']))} with strategy "
                      f"{spread['min_strategy']} ({escape(spread['min_strategy_text'])}), "
                      f"{as_percent(Decimal(spread['max']))} with {spread['max_strategy']} "
                      f"({escape(spread['max_strategy_text'])})")
    out.print("(the fingerprint is a hash of the model file: records and reports name it, so every figure "
              "traces to the exact data that produced it)")


@app.command(cls=Command)
def rtp(
    game: str = game_argument(),
    bet: list[str] = bet_option(),
    rounds_: int | None = typer.Option(None, "--rounds", "-n", min=1, max=MAX_ROUNDS, metavar="N",
                                       help="where the report simulates: how many to simulate "
                                            "(the game's default budget when omitted)"),
    seconds: float | None = typer.Option(None, "--seconds", min=0.1, metavar="S",
                                         help="where the report simulates: simulate for about this long; the "
                                              "budget covers the simulated part only (the exact parts and a "
                                              "first compile come on top)"),
    strategy: str | None = strategy_option(),
    cluster: str | None = cluster_option(),
    as_json: bool = json_option("the report"),
    model: Path | None = model_option(),
) -> None:
    """The game's RTP: exact where the maths allows, simulated with a 99% interval where it
    does not, with every part of the game."""
    if rounds_ is not None and seconds is not None:
        fail("--rounds and --seconds: give one or the other")
    the_game = guarded(lambda: load_game(game, model))
    the_bet = guarded(lambda: checked_bet(the_game, bet))
    guarded(lambda: the_game.strategy_index(strategy))
    if strategy is not None and not the_game.capabilities.rtp_follows_strategy:
        fail(f"--strategy: {game}'s RTP report does not depend on a strategy (its decisions do not move the "
             f"return); omit it, or give it to `slotforge simulate`")
    started = time.monotonic()
    with progress_bar(f"computing the RTP of {game}") as progress:
        task = progress.add_task(f"computing the RTP of {game}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        options = RtpOptions(bet=the_bet, strategy=strategy, rounds=rounds_, seconds=seconds, progress=advance,
                             cluster=checked_cluster(cluster))
        result = guarded(lambda: maths_of(the_game).rtp_report(options))
    if result["method"] == "exact" and (rounds_ or seconds or cluster):
        err.print(f"note: {game}'s RTP is exact: --rounds/--seconds/--cluster are not used")
    elif seconds is not None:
        err.print(f"note: --seconds {seconds:g} budgets the simulated part only; the whole report took "
                  f"{time.monotonic() - started:.0f} s")
    if as_json:
        emit_json(result)
        return
    print_rtp(the_game, result)


def print_rtp(game: Game, result: dict[str, Any]) -> None:
    interval = f" ± {points(result['ci99'])} (99%)" if "ci99" in result else ""
    out.print(f"[bold]{escape(game.spec.name)}[/bold] ({escape(model_label(game))})")
    out.print(f"RTP {percent(result['rtp'])}{interval}: {escape(result['method'])}")
    for part, value in result["parts"].items():
        out.print(f"  {escape(part):28} {percent(value)}")
    skip = {"parts", "game", "model", "rtp", "method", "ci99"}
    for key, value in flatten({k: v for k, v in result.items() if k not in skip}):
        out.print(f"{escape(key)}: {escape(describe(key, value))}")


@app.command(cls=Command)
def simulate(
    game: str = game_argument(),
    rounds_: int = typer.Option(1_000_000, "--rounds", "-n", min=1, max=MAX_ROUNDS, metavar="N",
                                help="rounds to simulate"),
    seed: int = typer.Option(0, "--seed", min=0, metavar="SEED",
                             help="the random seed; the same seed gives the same figures, whatever the workers"),
    workers: int = workers_option(),
    cluster: str | None = cluster_option(),
    bet: list[str] = bet_option(),
    strategy: str | None = strategy_option(),
    as_json: bool = json_option("the figures"),
    model: Path | None = model_option(),
) -> None:
    """Simulate complete rounds and report the RTP with its confidence intervals, the hit
    frequency and the features. Ctrl-C stops early and reports what was simulated."""
    the_game = guarded(lambda: load_game(game, model))
    the_bet = guarded(lambda: checked_bet(the_game, bet))
    guarded(lambda: the_game.strategy_index(strategy))
    checked_cluster(cluster)
    used = 1 if cluster else workers_to_use(workers)
    with interrupts_end_the_run() as run:
        result = run_simulation(the_game, game, rounds_, seed, used, the_bet, model, strategy, cluster)
        run["interrupted"] = result["interrupted"]
        if as_json:
            emit_json(result)
        else:
            print_simulation(the_game, result)


def run_simulation(game: Game, code: str, rounds_: int, seed: int, workers: int, bet: dict[str, Any] | None,
                   model: Path | None, strategy: str | None = None, cluster: str | None = None) -> dict[str, Any]:
    """Simulate with a progress bar: first while the round function compiles, then the rounds.

    Call it inside :func:`interrupts_end_the_run`."""
    from slotforge.maths.simulate import simulate as run

    where = f"the Dask cluster {cluster}" if cluster else f"{workers} worker(s)"
    loading = f"loading {game.spec.name}'s round function (compiled on the first run only: a minute or two)…"
    if cluster:
        reaching = "starting a local Dask cluster" if cluster.startswith("local:") else f"connecting to {cluster}"
        loading = f"{reaching}, loading {game.spec.name}'s round function on every worker…"
    with progress_bar("") as progress:
        task = progress.add_task(loading, total=None)
        log_line(loading)

        def compiled(_seconds: float) -> None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # from now on the simulator counts them
            progress.reset(task, total=rounds_, description=f"simulating {code}")
            log_line(f"simulating {code}: {rounds_:,} rounds on {where}…")

        try:
            return guarded(lambda: run(
                code, rounds_, seed=seed, workers=workers, model=model, bet=bet, strategy=strategy,
                progress=lambda n: progress.advance(task, n), on_compiled=compiled, cluster=cluster,
            ))
        except KeyboardInterrupt:
            err.print("interrupted while compiling the round function: nothing was simulated")
            raise typer.Exit(INTERRUPTED) from None


@contextmanager
def interrupts_end_the_run() -> Iterator[dict[str, bool]]:
    """Ctrl-C while the round function compiles stops the command (there is nothing to report
    yet); once rounds run, the simulator stops at the first and reports what ran.

    Set ``["interrupted"]`` on the yielded dict when the run was stopped: the command is then
    ending, and further Ctrl-C stay ignored until the process exits, however many arrive
    (restoring Python's handler would let a late one kill it with the figures half written).
    """
    previous = signal.getsignal(signal.SIGINT)
    run = {"interrupted": False}
    try:
        yield run
        sys.stdout.flush()
    finally:
        if not run["interrupted"]:
            signal.signal(signal.SIGINT, previous)


def print_simulation(game: Game, result: dict[str, Any]) -> None:
    note = " (interrupted: the figures are for the rounds played)" if result["interrupted"] else ""
    played = f", strategy {result['strategy']}" if result.get("strategy") else ""
    out.print(f"[bold]{escape(game.spec.name)}[/bold] ({escape(model_label(game))}), "
              f"bet {escape(json.dumps(result['bet']))}{played}, seed {result['seed']}: "
              f"{result['rounds']:,} rounds{note}")
    out.print(f"RTP {percent(result['rtp'])}  ± {points(result['ci95'])} (95%)  ± {points(result['ci99'])} (99%)")
    if "rtp_without_jackpot" in result:
        out.print(f"  the jackpot pool's share {percent(result['jackpot_pool']['total'])} is included (contribution "
                  f"and seed, paid by the pool); without it the rounds paid {percent(result['rtp_without_jackpot'])}")
    out.print(f"hit frequency {percent(result['hit_frequency'], 2)}   std per round {result['std']:.3f} x total bet"
              f"   max win {result['max_win']:,.2f} x total bet")
    for key, value in flatten(result["features"]):
        out.print(f"{escape(key)}: {escape(describe(key, value))}")
    where = f" of the Dask cluster {result['cluster']}" if result.get("cluster") else ""
    out.print(f"speed {result['rounds_per_second']:,.0f} rounds/s on {result['workers']} worker(s){where} "
              f"({result['seconds']:.2f} s); round function ready in {result['compile_seconds']:.1f} s "
              "(a first run compiles it, later runs load it from the cache)")


PAR_ROUNDS = 10_000_000
PAR_SEED = 1


@app.command(cls=Command)
def par(
    game: str | None = typer.Argument(None, metavar="GAME",
                                      help="the game (all shipped games with --shipped when omitted)"),
    shipped: bool = typer.Option(False, "--shipped", metavar="",
                                 help="regenerate the project's own sheet(s) in docs/par/ with their recorded "
                                      "round counts and seeds"),
    rounds_: int | None = typer.Option(None, "--rounds", "-n", min=1, metavar="N",
                                       help=f"rounds to simulate for the figures [default: {PAR_ROUNDS:,}]"),
    seed: int | None = typer.Option(None, "--seed", min=0, metavar="SEED",
                                    help=f"the random seed of the simulation [default: {PAR_SEED}]"),
    workers: int = workers_option(),
    cluster: str | None = cluster_option(),
    output: Path | None = typer.Option(None, "--out", metavar="FILE",
                                       help="write the sheet here (default: print it on standard output)"),
    force: bool = typer.Option(False, "--force", metavar="", help="overwrite --out when it exists"),
    model: Path | None = model_option(),
) -> None:
    """Write a PAR sheet: the RTP and its parts, simulated figures, the win distribution, volatility,
    the top award's odds, the RTP per bet configuration, paytable, paylines and strips.

    With --out the sheet's pictures (PNG) are written beside it; without --out the sheet goes to
    standard output, without pictures. --out never overwrites a file unless --force is given.
    The project's own sheets are regenerated with --shipped only."""
    from slotforge.maths.par import SHIPPED

    checked_cluster(cluster)
    used = 1 if cluster else workers_to_use(workers)
    if shipped:
        given = {"--rounds": rounds_, "--seed": seed, "--out": output, "--model": model}
        clash = [name for name, value in given.items() if value is not None]
        if clash:
            fail(f"--shipped: the shipped sheets use their recorded settings; drop {', '.join(clash)}")
        for code in [game] if game else list(SHIPPED):
            write_shipped_sheet(code, used, cluster)
        return
    if game is None:
        fail(f"GAME: expected one of {game_codes()} (or --shipped)")
    the_game = guarded(lambda: load_game(game, model))
    if output is not None:
        check_writable(output, force)
    sheet = build_sheet(the_game, game, rounds_ or PAR_ROUNDS, PAR_SEED if seed is None else seed, used, model,
                        cluster, output.parent if output is not None else None)
    if output is None:
        sys.stdout.write(sheet)
        return
    write_atomically(output, sheet)
    out.print(f"wrote {output}")


def write_shipped_sheet(code: str, workers: int, cluster: str | None = None) -> None:
    """Regenerate the project's PAR sheet of ``code`` with its recorded settings."""
    from slotforge.maths.par import SHIPPED, shipped_sheet_path

    if code not in SHIPPED:
        fail(f"GAME: {code!r} has no shipped PAR sheet; expected one of {sorted(SHIPPED)}")
    path = guarded(lambda: shipped_sheet_path(code))
    check_writable(path, force=True)
    settings = SHIPPED[code]
    sheet = build_sheet(guarded(lambda: load_game(code)), code, settings.rounds, settings.seed, workers, None,
                        cluster, path.parent)
    write_atomically(path, sheet)
    out.print(f"wrote {path} ({settings.rounds:,} rounds, seed {settings.seed})")


def build_sheet(game: Game, code: str, rounds_: int, seed: int, workers: int, model: Path | None,
                cluster: str | None = None, pictures: Path | None = None) -> str:
    """A PAR sheet: the RTP report, the simulation, and the win distribution with its pictures
    (drawn into the folder ``pictures``, beside the sheet; none for a sheet on standard output)."""
    from slotforge.maths.par import par_sheet, sheet_data

    with progress_bar(f"computing the RTP of {code}") as progress:
        task = progress.add_task(f"computing the RTP of {code}", total=None)
        options = RtpOptions(progress=lambda done, total: progress.update(task, completed=done, total=total),
                             cluster=cluster)
        report = guarded(lambda: maths_of(game).rtp_report(options))
    with interrupts_end_the_run() as run:
        simulation = run_simulation(game, code, rounds_, seed, workers, None, model, cluster=cluster)
        run["interrupted"] = simulation["interrupted"]
    if simulation["interrupted"]:
        err.print("interrupted: no sheet written (a PAR sheet holds complete runs only)")
        raise typer.Exit(INTERRUPTED)
    log_line(f"the win distribution of {code} and its pictures…")
    with progress_bar(f"the win distribution of {code}") as progress:
        progress.add_task(f"the win distribution of {code} and its pictures", total=None)
        data = sheet_data(game, rounds_, seed, pictures)
    return par_sheet(game, report, simulation, data)


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


# -- rounds -------------------------------------------------------------------------------------
@app.command(cls=Command)
def play(
    game: str = game_argument(),
    seed: int | None = typer.Option(None, "--seed", min=0, metavar="SEED",
                                    help="draw the round reproducibly from this seed (with --script: after "
                                         "the script's outcomes)"),
    script: Path | None = typer.Option(None, "--script", metavar="FILE",
                                       help="a script of forced outcomes (docs/scripts.md)"),
    choice: list[str] = typer.Option([], "--choice", metavar="CHOICE",
                                     help="the player's choice when the round asks, in order (repeatable)"),
    bet: list[str] = bet_option(),
    gamble_limit: str | None = typer.Option(None, "--gamble-limit", metavar="AMOUNT",
                                            help="the operator's gamble amount limit (default: the game's own)"),
    as_json: bool = json_option("the round record"),
    save: Path | None = typer.Option(None, "--save", metavar="FILE",
                                     help="also write the round record here (resume it with `slotforge resume`)"),
    model: Path | None = model_option(),
) -> None:
    """Play one round. Without --script or --seed it draws from the secure generator.

    A round that waits for a choice asks for it on a terminal, reads answers piped on standard
    input (one a line), or stops with status "awaiting" (continue it with `slotforge resume`)."""
    the_game = guarded(lambda: load_game(game, model))
    operator = Operator(gamble_limit=parse_gamble_limit(gamble_limit))
    if save is not None:
        check_writable(save, force=True)

    def first_round() -> dict[str, Any]:
        parsed = rounds.parse_script(the_game, read_json_file(script, "script")) if script else None
        return rounds.play(
            the_game, parse_bet_options(bet, amount_fields(the_game)), script=parsed,
            choices=rounds.parse_choices(the_game, choice), source=word_source(seed), operator=operator,
        )

    record = guarded(first_round)
    warn_unused_choices(record, choice)
    finish_round(the_game, record, seed, as_json, save)


def warn_unused_choices(record: dict[str, Any], given: list[str]) -> None:
    """Say so when --choice answers were given that the round never asked for."""
    scripted = len((record["inputs"]["script"] or {}).get("choices", []))
    used = max(0, len(record["inputs"]["choices"]) - scripted)
    if used < len(given):
        err.print(f"note: --choice {' '.join(given[used:])}: not used, the round did not ask for it")


def parse_gamble_limit(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        return parse_decimal(text, "--gamble-limit")
    except AmountError as error:
        fail(f"--gamble-limit: expected an amount of 0 or more, like 500.00; {error.reason}")


def word_source(seed: int | None, skip: int = 0) -> rounds.WordSource:
    """Random words: reproducible from ``seed`` (after the ``skip`` already used), else secure."""
    return rounds.seeded_words(seed, skip=skip) if seed is not None else rounds.rng.secure_words


def finish_round(game: Game, record: dict[str, Any], seed: int | None, as_json: bool, save: Path | None) -> None:
    """Show a round, asking for its choices while it waits (terminal or piped answers), and
    save its final record."""
    shown = 0 if as_json else print_round(record)
    answers = None if as_json else choice_answers()
    while record["status"] == "awaiting" and answers is not None:
        options = record["awaiting"]["options"]
        picked = next(answers(f"{record['awaiting']['decision']} ({'/'.join(options)})"), None)
        if picked is None:
            break
        if picked not in options:
            message = f"{record['awaiting']['decision']}: expected one of {', '.join(options)}; got {picked!r}"
            if not sys.stdin.isatty():
                fail(message)
            err.print(message)
            continue
        record = guarded(partial(rounds.resume, game, record, picked,
                                 source=word_source(seed, skip=len(record["inputs"]["random"]))))
        shown = print_round(record, shown)
    if save is not None:
        save.write_text(json.dumps(record, indent=2) + "\n")
        err.print(f"saved the round record to {save}")
    if as_json:
        emit_json(record)
    elif record["status"] == "awaiting":
        keep = (f"continue the saved record ({save}) with `slotforge resume`" if save is not None
                else "or --save the record and continue it with `slotforge resume`")
        err.print(f"the round waits for {record['awaiting']['decision']}: give --choice, pipe the answer on "
                  f"standard input, {keep}")


def choice_answers() -> Callable[[str], Iterator[str]]:
    """Where answers come from: a prompt on a terminal, else the lines piped on standard input."""
    if sys.stdin.isatty():
        return lambda question: iter([typer.prompt(question)])

    def piped(question: str) -> Iterator[str]:
        line = sys.stdin.readline()
        if line:
            out.print(f"{escape(question)}: {escape(line.strip())}")
            yield line.strip()

    return piped


def print_round(record: dict[str, Any], shown: int = 0) -> int:
    """Print a round's steps from step ``shown`` on; returns how many steps are shown."""
    if not shown:
        out.print(f"[bold]{record['game']}[/bold] bet {escape(json.dumps(record['bet']))} "
                  f"total bet {record['total_bet']}")
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
            out.print(f"  [yellow]{event['type']}[/yellow] {escape(fields)}")
    out.print(f"total win [bold]{record['total_win']}[/bold]  ({record['status']})")
    if record["awaiting"]:
        out.print(f"waiting for {record['awaiting']['decision']}: {', '.join(record['awaiting']['options'])}")
    return len(record["steps"])


def read_record(path: Path) -> tuple[Game, dict[str, Any]]:
    """A round record from a file, checked, with the game that played it."""
    record = read_json_file(path, "round record")
    rounds.check_record(record, str(path))
    game = load_game(record["game"])
    try:
        rounds.check_maker(game, record)
    except rounds.ForeignRecord as error:
        raise ValueError(f"{path}: {error}") from error
    return game, record


@app.command(cls=Command)
def replay(record_file: Path = typer.Argument(..., metavar="RECORD", help="a round record (JSON)")) -> None:
    """Re-run a recorded round from its inputs and say whether it matches: exit 0 on a match,
    1 on a mismatch (the first differences are shown), 2 on a record it cannot read."""

    def check() -> tuple[bool, dict[str, Any], dict[str, Any]]:
        game, record = read_record(record_file)
        matches, again = rounds.replay(game, record)
        return matches, record, again

    matches, record, again = guarded(check)
    if matches:
        out.print(f"[green]match[/green]: the round replays to the same record (total win {again['total_win']})")
        return
    err.print("[red]mismatch[/red]: replaying the recorded inputs gives a different record")
    for path, recorded, replayed in differences(record, again)[:5]:
        err.print(f"  {escape(path)}: recorded {escape(json.dumps(recorded))}, replayed {escape(json.dumps(replayed))}")
    raise typer.Exit(1)


@app.command(cls=Command)
def resume(
    record_file: Path = typer.Argument(..., metavar="RECORD", help="the record of a round that waits for a choice"),
    choice: list[str] = typer.Option([], "--choice", metavar="CHOICE",
                                     help="the next choice, then any later ones (repeatable)"),
    as_json: bool = json_option("the round record"),
    save: Path | None = typer.Option(None, "--save", metavar="FILE", help="write the new round record here"),
) -> None:
    """Continue a round that waits for a choice (a record saved by `play --save` or `play --json`).

    Without --choice it asks on a terminal or reads answers piped on standard input."""
    if save is not None:
        check_writable(save, force=True)
    game, record = guarded(lambda: read_record(record_file))
    if record["status"] != "awaiting":
        fail(f"{record_file}: status: the round is complete and waits for no choice")
    for picked in choice:
        if record["status"] != "awaiting":
            err.print(f"note: --choice {picked}: not used, the round is complete")
            break
        record = guarded(partial(rounds.resume, game, record, picked))
    finish_round(game, record, None, as_json, save)


rng_app = typer.Typer(cls=Group, help="the random number generator: evidence for a test lab", no_args_is_help=True)
app.add_typer(rng_app, name="rng")


@rng_app.command("report", cls=Command)
def rng_report(
    output: Path | None = typer.Option(None, "--out", metavar="FILE",
                                       help="where to write the report [default: docs/rng.md of the source checkout]"),
    dieharder: bool = typer.Option(True, "--dieharder/--no-dieharder",
                                   help="run the live generator's output through dieharder (about a minute)"),
    tests: str | None = typer.Option(None, "--dieharder-tests", metavar="N,N,...",
                                     help="dieharder test numbers to run (`dieharder -l` lists them) "
                                          "[default: those that take seconds to a minute]"),
) -> None:
    """Write the RNG report: dieharder on the live generator, chi-square tests of every mapped draw of
    every game, the mapping's proof of no bias, the seeding and re-seeding. Needs Debian's dieharder
    package (apt-get install dieharder) unless --no-dieharder."""
    from slotforge.maths import rng_report as rr

    path = output or guarded(lambda: rr.shipped_report_path())
    check_writable(path, force=output is None)
    chosen = guarded(lambda: rr.parse_tests(tests)) if tests else rr.DIEHARDER_TESTS
    battery = None
    if dieharder:
        guarded(rr.dieharder_path)
        log_line(f"running dieharder tests {', '.join(map(str, chosen))} on the live generator…")
        with progress_bar("dieharder") as progress:
            progress.add_task("running dieharder on the live generator", total=None)
            battery = rr.run_dieharder(chosen)
    log_line("chi-square tests of every mapped draw…")
    write_atomically(path, rr.report(battery, tests=chosen))
    out.print(f"wrote {path}")


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
    if workers > 1 and settings.database_url.startswith("sqlite"):
        err.print("note: several workers share one SQLite file; PostgreSQL serves them better")
    logs.configure()
    guarded(lambda: migrate(connect(settings.database_url)))  # once, before any worker starts
    # Each worker builds its app from the environment: pass the settings on that way.
    os.environ["SLOTFORGE_DATABASE_URL"] = settings.database_url
    if qa:
        os.environ["SLOTFORGE_QA"] = "true"
    if jackpot:
        os.environ["SLOTFORGE_JACKPOT_URL"] = jackpot
    if config is not None:
        os.environ["SLOTFORGE_CONFIG"] = str(config.resolve())
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    out.print(f"slotforge: play in a browser at http://{shown_host}:{port}/ (it answers at once; on a fresh "
              "machine the games compile in the background first, about 3 minutes on two cores, and each is "
              "playable as soon as the log says it is ready)", highlight=False)
    uvicorn.run("slotforge.rgs.app:app_from_environment", factory=True, host=host, port=port, workers=workers,
                log_level="info", timeout_graceful_shutdown=5, http=PROTOCOL, access_log=access_log)


operator_app = typer.Typer(cls=Group, help="operators of the game server", no_args_is_help=True)
app.add_typer(operator_app, name="operator")


@operator_app.command("add", cls=Command)
def operator_add(
    name: str = typer.Argument(..., help="the operator's name"),
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Create an operator and print its API key (shown once; only its hash is stored)."""
    import time

    from slotforge.db import connect
    from slotforge.rgs.api import access
    from slotforge.rgs.schema import migrate

    settings = server_settings(config, database)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    with engine.begin() as conn:
        key = guarded(lambda: access.add_operator(conn, name, int(time.time() * 1000)))
    sys.stdout.write(key + "\n")


@app.command(cls=Command)
def audit(
    database: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
    jackpot: str | None = typer.Option(None, "--jackpot", help="the jackpot service's URL: its books too"),
) -> None:
    """Check the books: every balance is its ledger's sum, every round paid once, every pool
    balanced (the jackpot service's too, with --jackpot or the setting). Exits 1 on any difference."""
    from slotforge.db import connect
    from slotforge.rgs.audit import audit as check
    from slotforge.rgs.audit import check_service, summary
    from slotforge.rgs.schema import migrate

    settings = server_settings(config, database, jackpot_url=jackpot)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    with engine.connect() as conn:
        problems = check(conn)
        counts = summary(conn)
        if settings.jackpot_url:
            problems += check_service(conn, settings.jackpot_url, settings.jackpot_server(), settings.jackpot_secret)
    checked = ", ".join(f"{n:,} {what}" for what, n in counts.items())
    if settings.jackpot_url:
        checked += f" and the jackpot service at {settings.jackpot_url}"
    report_audit(problems, checked)

jackpot_app = typer.Typer(cls=Group, help="the jackpot service: network progressive pools shared by game servers",
                          no_args_is_help=True)
app.add_typer(jackpot_app, name="jackpot")
JackpotDatabaseOpt = typer.Option("sqlite:///jackpot.db", "--database",
                                  help="the service's own database: sqlite:///FILE or postgresql+psycopg://...")


@jackpot_app.command("serve", cls=Command)
def jackpot_serve(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8100, "--port"),
    database: str = JackpotDatabaseOpt,
    secret: str | None = typer.Option(None, "--secret", envvar="SLOTFORGE_JACKPOT_SECRET",
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
    service = guarded(lambda: create_service(database, secret=secret))
    out.print(f"slotforge jackpot service on http://{host}:{port} (database {database})", highlight=False)
    uvicorn.run(service, host=host, port=port, log_level="info", timeout_graceful_shutdown=2, http=PROTOCOL)


def service_books(database: str) -> Books:
    """The jackpot service's books in ``database`` (a bad URL is a clear error, exit 2)."""
    from slotforge.db import connect
    from slotforge.jackpot.books import Books

    return Books(guarded(lambda: connect(database)), time.time)


def check_secret(secret: str) -> None:
    """A shared secret given on the command line is long enough (exit 2 if not)."""
    from slotforge.rgs.settings import SHORTEST_SECRET

    if len(secret) < SHORTEST_SECRET:
        fail(f"--secret: expected at least {SHORTEST_SECRET} characters")


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


def report_audit(problems: list[str], checked: str) -> None:
    """Print the differences (exit 1) or that the books balance."""
    if problems:
        for problem in problems:
            err.print(f"[red]difference[/red]: {problem}", highlight=False)
        err.print(f"{len(problems)} difference{'' if len(problems) == 1 else 's'} in {checked}")
        raise typer.Exit(1)
    out.print(f"[green]the books balance[/green]: {checked}")


wallet_demo_app = typer.Typer(
    cls=Group, help="the reference seamless wallet (for tests, demos and operators writing their own)",
    no_args_is_help=True)
app.add_typer(wallet_demo_app, name="wallet-demo")
WalletDatabaseOpt = typer.Option(Path("wallet-demo.db"), "--database", help="the wallet's SQLite file")


def probability(name: str) -> Any:
    return typer.Option(0.0, f"--{name}", min=0.0, max=1.0, help=f"chance of a {name} per call (see `serve --help`)")


@wallet_demo_app.command("serve", cls=Command)
def wallet_demo_serve(
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8100, "--port"),
    database: Path = WalletDatabaseOpt,
    secret: str = typer.Option(..., "--secret", envvar="SLOTFORGE_WALLET_SECRET",
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

    from slotforge.rgs.money import parse_amount
    from slotforge.rgs.wallets.demo import Faults, create_app

    check_secret(secret)
    opening = guarded(lambda: parse_amount(new_player_balance, "--new-player-balance")) if new_player_balance else None
    faults = guarded(lambda: Faults(fail=fail_chance, timeout=timeout_chance, late=late_chance,
                                   twice=twice_chance, hang_s=hang_s, seed=seed))
    wallet = create_app(database, secret, faults, opening)
    out.print(f"slotforge wallet-demo: http://{host}:{port} (books: GET /admin/books), database {database}")
    uvicorn.run(wallet, host=host, port=port, log_level="warning")


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


if __name__ == "__main__":
    app()
