"""The designer's commands: ``design`` (a target to a version's model file) and ``certify``
(a version's figures checked against its label, written as a manifest)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer

from slotforge.cli.common import (
    Command,
    app,
    check_writable,
    escape,
    game_argument,
    guarded,
    log_line,
    out,
    progress_bar,
    write_atomically,
)
from slotforge.figures import percent


@app.command(cls=Command)
def design(
    game: str = game_argument(),
    rtp: float = typer.Option(..., "--rtp", min=50.0, max=120.0, metavar="PERCENT",
                              help="the version's RTP, in percent (e.g. 94.0): its label"),
    hit_rate: float | None = typer.Option(None, "--hit-rate", min=0.1, max=100.0, metavar="PERCENT",
                                          help="a hit rate to come close to, in percent of rounds"),
    volatility: float | None = typer.Option(None, "--volatility", min=0.01, metavar="INDEX",
                                            help="a volatility index (90%) to come close to"),
    keep_feature_rate: bool = typer.Option(False, "--keep-feature-rate", metavar="",
                                           help="move only levers that keep the main feature's frequency"),
    name: str | None = typer.Option(None, "--name", metavar="NAME",
                                    help="the version's name [default: the RTP, e.g. 94.00]"),
    output: Path = typer.Option(..., "--out", "-o", metavar="FILE", help="write the version's model file here"),
    force: bool = typer.Option(False, "--force", metavar="", help="overwrite --out when it exists"),
) -> None:
    """Find an RTP version of a game: move only what the rules leave to the designer (strip
    composition, weights) until the RTP is the target, exactly where the game's maths is exact,
    and report every figure against its target and the published model. Nothing is written
    when the target cannot be reached within the rules."""
    from slotforge.design.run import Targets
    from slotforge.design.run import design as run_design

    check_writable(output, force)
    targets = Targets(rtp / 100, hit_rate / 100 if hit_rate is not None else None, volatility)
    started = time.monotonic()
    with progress_bar(f"designing {game}") as progress:
        task = progress.add_task(f"designing {game} at {rtp:g}%", total=None)

        def say(text: str) -> None:
            progress.update(task, description=escape(text))
            log_line(text)

        found = guarded(lambda: run_design(game, targets, name or f"{rtp:.2f}", keep_feature_rate, say))
    write_atomically(output, json.dumps(found.raw, indent=1) + "\n")
    print_design(found.reached, found.published, vars(targets))
    out.print(f"levers {escape(json.dumps(found.chosen.values))} (shape {found.chosen.shape:g}); "
              f"{time.monotonic() - started:.0f} s")
    out.print(f"wrote {output} (version {escape(found.raw['version'])}); ship it as the game's "
              f"versions/{escape(found.raw['version'])}.json, then `slotforge certify {game} --version "
              f"{escape(found.raw['version'])}`")


def print_design(reached: dict[str, Any], published: dict[str, Any], targets: dict[str, Any]) -> None:
    """Every figure: target, reached, published."""
    out.print(f"{'figure':28} {'target':>10} {'reached':>10} {'published':>10}")
    wanted = {"rtp": targets["rtp"], "hit_rate": targets["hit_rate"], "volatility_index": targets["volatility"]}
    for key, value in reached.items():
        target = wanted.get(key)
        shown = (lambda v: f"{v:.3f}") if key == "volatility_index" else (lambda v: percent(v))
        out.print(f"{escape(key):28} {shown(target) if target is not None else '-':>10} {shown(value):>10} "
                  f"{shown(published[key]) if key in published else '-':>10}")




@app.command(cls=Command)
def certify(
    game: str = game_argument(),
    version: str = typer.Option(..., "--version", metavar="NAME", help="the version (`slotforge games` lists them)"),
    rounds_: int = typer.Option(2_000_000, "--rounds", "-n", min=1_000, metavar="N",
                                help="rounds simulated for the win distribution and the features"),
    rtp_rounds: int | None = typer.Option(None, "--rtp-rounds", min=1, metavar="N",
                                          help="where the RTP report simulates: its budget (the game's default "
                                               "when omitted)"),
    seed: int = typer.Option(1, "--seed", min=0, metavar="SEED", help="the simulations' seed"),
    output: Path | None = typer.Option(None, "--out", "-o", metavar="FILE", help="write the manifest (JSON) here"),
    force: bool = typer.Option(False, "--force", metavar="", help="overwrite --out when it exists"),
) -> None:
    """Certify an RTP version: its RTP (exact where possible, else simulated with its 99%
    interval) in every configuration, checked against its label, and its hit rate, wins below
    the stake, volatility, largest win and feature frequencies; exit 1 when a check fails."""
    from slotforge.design.certify import certify as run_certify

    if output is not None:
        check_writable(output, force)
    with progress_bar(f"certifying {game} {version}") as progress:
        task = progress.add_task(f"certifying {game} {version}", total=None)

        def say(text: str) -> None:
            progress.update(task, description=escape(text))
            log_line(text)

        manifest = guarded(lambda: run_certify(game, version, rounds_, seed, rtp_rounds, say))
    print_manifest(manifest)
    if output is not None:
        write_atomically(output, json.dumps(manifest, indent=1) + "\n")
        out.print(f"wrote {output}")
    if not manifest["pass"]:
        raise typer.Exit(1)


def print_manifest(manifest: dict[str, Any]) -> None:
    """The manifest for a person: what was certified, each RTP check, each figure."""
    out.print(f"[bold]{escape(manifest['name'])}[/bold] version {escape(manifest['version'])} "
              f"(label {escape(manifest['label']['rtp_text'])}; model {escape(manifest['model']['id'])}, "
              f"code {escape(manifest['code'])})")
    for check in manifest["rtp_checks"]:
        verdict = "[green]pass[/green]" if check["pass"] else "[red]FAIL[/red]"
        interval = f" ± {check['ci99'] * 100:.4f} points (99%)" if check["ci99"] else ""
        out.print(f"{verdict} {escape(check['figure'])}: {percent(check['reached'])}{interval} against "
                  f"{percent(float(check['label']))} ({escape(check['rule'])})")
    figures = manifest["figures"]
    out.print(f"{figures['rounds']:,} rounds, seed {figures['seed']}: hit rate {percent(figures['hit_rate'])}, "
              f"win below the stake {percent(figures['below_stake'])}, volatility index "
              f"{figures['volatility_index']:.2f} (90%), largest win {figures['max_win']:,.2f}x (class "
              f"{escape(figures['max_win_class'])}: {percent(figures['max_win_class_frequency'])} of rounds)")
    for key, value in manifest["feature_frequencies"].items():
        out.print(f"  {escape(key)}: {percent(value)}")
    out.print("[green]certified[/green]" if manifest["pass"] else "[red]not certified[/red]: a check failed")
