"""Games and their maths: ``games``, ``rtp``, ``simulate`` and ``par``."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from slotforge.cli.common import (
    INTERRUPTED,
    MAX_ROUNDS,
    Command,
    app,
    bet_option,
    check_writable,
    checked_bet,
    checked_cluster,
    chosen_model,
    cluster_option,
    emit_json,
    err,
    escape,
    fail,
    game_argument,
    guarded,
    json_option,
    log_line,
    logged_progress,
    model_option,
    out,
    progress_bar,
    strategy_option,
    version_option,
    workers_option,
    workers_to_use,
    write_atomically,
)
from slotforge.engine.game import Game, as_percent
from slotforge.engine.roles import RtpOptions
from slotforge.figures import describe, flatten, model_label, percent, points
from slotforge.games import game_codes, load_game, maths_of, versions_of
from slotforge.games.versions import VersionInfo

if TYPE_CHECKING:
    from slotforge.reports.par_figures import SheetData


# -- games and their maths -----------------------------------------------------------------------
@app.command(cls=Command)
def games(as_json: bool = json_option("the games and their versions")) -> None:
    """List the games: code, name, published RTP (the range, with the strategy giving each end,
    where the player's strategy moves it), the model they run, and their RTP versions (the
    published one, marked *, is the default; `--version NAME` picks another)."""
    loaded = [(code, guarded(lambda code=code: load_game(code))) for code in game_codes()]
    listed = {code: guarded(lambda code=code: versions_of(code)) for code, _ in loaded}
    if as_json:
        emit_json([{"code": code, "name": game.spec.name, "model": game.model_id, **game.published_rtp(),
                    "versions": [info.as_json() for info in listed[code]]} for code, game in loaded])
        return
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
        out.print(f"{'':{code_width}}  versions: {escape(versions_text(listed[code]))}")
    out.print("(the fingerprint is a hash of the model file: records and reports name it, so every figure "
              "traces to the exact data that produced it; * marks the published version, the default)")


def versions_text(versions: list[VersionInfo]) -> str:
    """A game's versions on one line: "95.00* (95.00%), 94.00 (94.00%)"; a range's ends joined."""

    def label(info: VersionInfo) -> str:
        if info.rtp_range:
            return f"{as_percent(info.rtp_range[0])} to {as_percent(info.rtp_range[1])}"
        return as_percent(info.rtp)

    return ", ".join(f"{info.name}{'*' if info.published else ''} ({label(info)})" for info in versions)


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
    version: str | None = version_option(),
) -> None:
    """The game's RTP: exact where the maths allows, simulated with a 99% interval where it
    does not, with every part of the game."""
    if rounds_ is not None and seconds is not None:
        fail("--rounds and --seconds: give one or the other")
    model = chosen_model(game, model, version)
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
    version: str | None = version_option(),
) -> None:
    """Simulate complete rounds and report the RTP with its confidence intervals, the hit
    frequency and the features. Ctrl-C stops early and reports what was simulated."""
    model = chosen_model(game, model, version)
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
    from slotforge.reports.simulate import simulate as run

    where = f"the Dask cluster {cluster}" if cluster else local_workers(rounds_, workers)
    loading = f"loading {game.spec.name}'s round function (compiled on the first run only: a minute or two)…"
    if cluster:
        reaching = "starting a local Dask cluster" if cluster.startswith("local:") else f"connecting to {cluster}"
        loading = f"{reaching}, loading {game.spec.name}'s round function on every worker…"
    logged = logged_progress(rounds_, "rounds")
    with progress_bar("") as progress:
        task = progress.add_task(loading, total=None)
        log_line(loading)

        def compiled(_seconds: float) -> None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # from now on the simulator counts them
            progress.reset(task, total=rounds_, description=f"simulating {code}")
            log_line(f"simulating {code}: {rounds_:,} rounds on {where}…")

        def advance(rounds_done: int) -> None:
            progress.advance(task, rounds_done)
            logged(rounds_done)

        try:
            return guarded(lambda: run(
                code, rounds_, seed=seed, workers=workers, model=model, bet=bet, strategy=strategy,
                progress=advance, on_compiled=compiled, cluster=cluster,
            ))
        except KeyboardInterrupt:
            err.print("interrupted while compiling the round function: nothing was simulated")
            raise typer.Exit(INTERRUPTED) from None


def local_workers(rounds_: int, workers: int) -> str:
    """The workers a local run will use, in words, with the reason where it is fewer than asked."""
    from slotforge.reports.simulate import CHUNK, workers_used

    used = workers_used(rounds_, workers)
    if used == workers:
        return f"{used} worker(s)"
    chunks = -(-rounds_ // CHUNK)
    return f"{used} worker(s) ({rounds_:,} rounds make {chunks} chunk(s) of {CHUNK:,}; a worker takes whole chunks)"


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
    version: str | None = version_option(),
) -> None:
    """Write a PAR sheet: the RTP and its parts, simulated figures, the win distribution, volatility,
    the top award's odds, the RTP per bet configuration, paytable, paylines and strips.

    With --out the sheet's pictures (PNG) are written beside it; without --out the sheet goes to
    standard output, without pictures. --out never overwrites a file unless --force is given.
    The project's own sheets are regenerated with --shipped only."""
    from slotforge.reports.par import SHIPPED

    checked_cluster(cluster)
    used = 1 if cluster else workers_to_use(workers)
    if shipped:
        given = {"--rounds": rounds_, "--seed": seed, "--out": output, "--model": model, "--version": version}
        clash = [name for name, value in given.items() if value is not None]
        if clash:
            fail(f"--shipped: the shipped sheets use their recorded settings; drop {', '.join(clash)}")
        for code in [game] if game else list(SHIPPED):
            write_shipped_sheet(code, used, cluster)
        return
    if game is None:
        fail(f"GAME: expected one of {game_codes()} (or --shipped)")
    model = chosen_model(game, model, version)
    the_game = guarded(lambda: load_game(game, model))
    if output is not None:
        check_writable(output, force)
    sheet, _ = build_sheet(the_game, game, rounds_ or PAR_ROUNDS, PAR_SEED if seed is None else seed, used, model,
                           cluster, output.parent if output is not None else None)
    if output is None:
        sys.stdout.write(sheet)
        return
    write_atomically(output, sheet)
    out.print(f"wrote {output}")


def write_shipped_sheet(code: str, workers: int, cluster: str | None = None) -> None:
    """Regenerate the project's PAR sheet of ``code`` with its recorded settings, and the
    volatility the package ships from the same data."""
    from slotforge.reports.par import SHIPPED, shipped_sheet_path
    from slotforge.reports.par_figures import volatility_figures
    from slotforge.rgs.volatility import record

    if code not in SHIPPED:
        fail(f"GAME: {code!r} has no shipped PAR sheet; expected one of {sorted(SHIPPED)}")
    path = guarded(lambda: shipped_sheet_path(code))
    check_writable(path, force=True)
    settings = SHIPPED[code]
    sheet, data = build_sheet(guarded(lambda: load_game(code)), code, settings.rounds, settings.seed, workers, None,
                              cluster, path.parent)
    write_atomically(path, sheet)
    record(code, volatility_figures(data))
    out.print(f"wrote {path} ({settings.rounds:,} rounds, seed {settings.seed})")


def build_sheet(game: Game, code: str, rounds_: int, seed: int, workers: int, model: Path | None,
                cluster: str | None = None, pictures: Path | None = None) -> tuple[str, SheetData]:
    """A PAR sheet: the RTP report, the simulation, and the win distribution with its pictures
    (drawn into the folder ``pictures``, beside the sheet; none for a sheet on standard output);
    with the data its figures are made from."""
    from slotforge.reports.par import par_sheet, sheet_data

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
    return par_sheet(game, report, simulation, data), data



