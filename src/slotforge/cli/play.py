"""Rounds on the command line: ``play``, ``replay`` and ``resume``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import typer

from slotforge.amounts import AmountError, parse_decimal
from slotforge.cli.common import (
    Command,
    amount_fields,
    app,
    bet_option,
    check_writable,
    chosen_model,
    emit_json,
    err,
    escape,
    fail,
    game_argument,
    guarded,
    json_option,
    model_option,
    out,
    parse_bet_options,
    version_option,
)
from slotforge.engine import round as rounds
from slotforge.engine.game import Game, Operator
from slotforge.engine.model import read_json_file
from slotforge.engine.record import differences
from slotforge.games import load_game


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
    version: str | None = version_option(),
) -> None:
    """Play one round. Without --script or --seed it draws from the secure generator.

    A round that waits for a choice asks for it on a terminal, reads answers piped on standard
    input (one a line), or stops with status "awaiting" (continue it with `slotforge resume`)."""
    model = chosen_model(game, model, version)
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
