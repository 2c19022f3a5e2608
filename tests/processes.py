"""Waiting on a command-line process by what it says, not by the clock."""

from __future__ import annotations

import subprocess

SIMULATED = "rounds done"  # what `slotforge simulate` logs on standard error as chunks finish


def wait_until_rounds_are_done(process: subprocess.Popen) -> None:
    """Read the simulation's standard error (a log, not a terminal) until it reports a finished
    chunk: from then on an interrupted run has rounds to report, however slow the machine.
    Reading blocks only while the process lives; its end (a crash) fails the wait."""
    while SIMULATED not in (line := process.stderr.readline()):
        assert line, f"the simulation ended before any rounds were done (exit {process.poll()})"
    assert process.poll() is None
