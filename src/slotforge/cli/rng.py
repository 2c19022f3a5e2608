"""The random number generator's evidence for a test lab: ``rng report``."""

from __future__ import annotations

from pathlib import Path

import typer

from slotforge.cli.common import (
    Command,
    Group,
    check_writable,
    guarded,
    log_line,
    out,
    progress_bar,
    write_atomically,
)

rng_app = typer.Typer(cls=Group, help="the random number generator: evidence for a test lab", no_args_is_help=True)


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
    from slotforge.reports import rng_report as rr

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
