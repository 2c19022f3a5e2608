"""Does the suite catch what it claims to? Deliberate one-line errors, each applied in turn to the
source, the test files named for it run against it, the file restored; a table of which tests
failed (an error no test catches is marked ``NOT CAUGHT``).

    python tools/mutation_check.py                  # every mutation
    python tools/mutation_check.py --only seed-jump --only stake-not-taken
    python tools/mutation_check.py --list           # what each one changes, and where

Each mutation names its line by its text (and, where that text occurs more than once, by the line
just before it), so that the check keeps working while the code around it moves; a line that is
no longer found stops the check with the mutation's name, to be brought up to date here.

The file is restored whatever happens: after the tests, on an error, on Ctrl-C or SIGTERM. A copy
of the original is kept beside it (``<file>.unmutated``) while it is changed, so that even a run
killed outright is undone by the next run, which restores any copy it finds before it starts.

A change to code numba compiles runs its tests against a scratch compile cache (the games those
tests play are compiled first, a few minutes); a change elsewhere reuses the clean source's cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BACKUP_SUFFIX = ".unmutated"


@dataclass(frozen=True)
class Mutation:
    """One deliberate error: ``line`` (its text, without indentation) in ``path`` becomes
    ``mutated``; ``tests`` are the files to run against it."""

    name: str
    error: str
    path: str
    line: str
    mutated: str
    tests: tuple[str, ...]
    compiled: bool = False  # numba compiles the line: the tests need a fresh compile
    games: tuple[str, ...] = ()  # the games the tests play (compiled before they run)
    after: str | None = None  # the line just before, where ``line`` occurs more than once


MUTATIONS = (
    Mutation(
        name="pay-off-by-one",
        error="a line pay off by one coin",
        path="src/slotforge/engine/evaluate.py",
        line="pay = table.pair_pay[pair]",
        mutated="pay = table.pair_pay[pair] + 1",
        tests=("tests/engine/test_evaluate.py", "tests/games/test_dynasty.py"),
        compiled=True,
        games=("dynasty",),
    ),
    Mutation(
        name="scatter-wrong-reel",
        error="a wrong reel in a scatter count",
        path="src/slotforge/engine/evaluate.py",
        line="total += counts[reel, stops[reel], symbol]",
        mutated="total += counts[reel, stops[reel - 1], symbol]",
        tests=("tests/engine/test_evaluate.py", "tests/maths/test_dynasty_maths.py"),
        compiled=True,
        games=("dynasty",),
    ),
    Mutation(
        name="seed-jump",
        error="a wrong seed jump between the simulator's chunks",
        path="src/slotforge/maths/streams.py",
        line="return rng.xoshiro_stream([seed, chunk])",
        mutated="return rng.xoshiro_stream([seed, chunk + 1])",
        tests=("tests/engine/test_rng.py", "tests/maths/test_dynasty_maths.py"),
        games=("dynasty",),
    ),
    Mutation(
        name="stake-not-taken",
        error="a round's stake not taken",
        path="src/slotforge/rgs/rounds/service.py",
        line="self.take_stake(conn, row, debit, now)",
        after="self.insert_round(conn, row, result.encoded, awaiting=not result.complete)",
        mutated="pass",
        tests=("tests/rgs/test_round_route.py", "tests/rgs/test_player_api.py"),
        games=("dynasty",),
    ),
    Mutation(
        name="rollback-skipped",
        error="a failed seamless round's debit not rolled back",
        path="src/slotforge/rgs/rounds/at_wallet.py",
        line="await server.transaction.run(lambda conn: server.seamless.debits.roll_back_now(conn, intent))",
        mutated="pass",
        tests=("tests/rgs/test_seamless.py", "tests/rgs/test_held_debits.py"),
        games=("dynasty",),
    ),
)


class MutationOutOfDate(Exception):
    """A mutation's line is not (or not once) in its file any more."""


def line_number(text: str, mutation: Mutation) -> int:
    """The 0-based index of the mutation's line in ``text``."""
    lines = text.splitlines()
    found = [i for i, line in enumerate(lines) if line.strip() == mutation.line
             and (mutation.after is None or (i > 0 and lines[i - 1].strip() == mutation.after))]
    if len(found) != 1:
        where = f" after {mutation.after!r}" if mutation.after else ""
        raise MutationOutOfDate(f"{mutation.name}: {mutation.line!r}{where} is in {mutation.path} "
                                f"{len(found)} times, expected once; bring the mutation up to date")
    return found[0]


def mutated_text(text: str, mutation: Mutation) -> tuple[str, int]:
    """The file's text with the mutation applied, and the changed line's 1-based number."""
    lines = text.splitlines(keepends=True)
    index = line_number(text, mutation)
    original = lines[index]
    indent = original[: len(original) - len(original.lstrip())]
    ending = original[len(original.rstrip("\r\n")):]
    lines[index] = f"{indent}{mutation.mutated}{ending}"
    return "".join(lines), index + 1


def restore_leftovers() -> None:
    """Put back any file a killed run left mutated (its original is kept beside it)."""
    for backup in ROOT.joinpath("src").rglob(f"*{BACKUP_SUFFIX}"):
        original = backup.with_name(backup.name[: -len(BACKUP_SUFFIX)])
        os.replace(backup, original)
        print(f"restored {original.relative_to(ROOT)} from a run that was stopped", file=sys.stderr)


@contextmanager
def applied(mutation: Mutation) -> Iterator[int]:
    """The mutation applied for the duration of the block (yields the changed line's number);
    the original bytes and times are back afterwards, whatever ended the block."""
    path = ROOT / mutation.path
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    text = path.read_text()
    changed, number = mutated_text(text, mutation)
    shutil.copy2(path, backup)  # first, so that a run killed from here on is undone by the next
    try:
        path.write_text(changed)
        yield number
    finally:
        os.replace(backup, path)


def failed_tests(report: Path) -> list[str]:
    """The tests a JUnit XML report says failed or errored, as ``file::name``."""
    if not report.exists():
        return []
    failed = []
    for case in ElementTree.parse(report).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            module = case.get("classname", "").replace(".", "/")
            failed.append(f"{module}.py::{case.get('name')}")
    return failed


def run_tests(mutation: Mutation, clean_cache: str, workers: str) -> tuple[list[str], int]:
    """Run the mutation's test files: (the tests that failed, pytest's exit code)."""
    env = {**os.environ, "SLOTFORGE_WARM_UP": ",".join(mutation.games)}
    with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
        env["NUMBA_CACHE_DIR"] = str(Path(scratch) / "numba") if mutation.compiled else clean_cache
        report = Path(scratch) / "report.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-n", workers, "-p", "no:cacheprovider",
                   f"--junitxml={report}", "-o", "junit_family=xunit1", *mutation.tests]
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        failed = failed_tests(report)
        if done.returncode not in (0, 1):  # 0: all passed, 1: some failed; else pytest itself could not run
            print(done.stdout[-3000:], file=sys.stderr)
        return failed, done.returncode


def check(mutation: Mutation, clean_cache: str, workers: str) -> tuple[int, list[str], int]:
    """Apply, test, restore: (the changed line, the failed tests, pytest's exit code)."""
    print(f"{mutation.name}: {mutation.error} ({mutation.path}); running {' '.join(mutation.tests)}…",
          file=sys.stderr, flush=True)
    with applied(mutation) as number:
        failed, code = run_tests(mutation, clean_cache, workers)
    return number, failed, code


def interrupt(signum: int, _frame: object) -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does: through every ``finally`` (the restore)."""
    raise KeyboardInterrupt(f"signal {signum}")


def clean_compile_cache() -> str:
    """The compile cache of the unmutated source (importing slotforge names it)."""
    sys.path.insert(0, str(ROOT / "src"))
    import slotforge  # noqa: F401  (sets NUMBA_CACHE_DIR from the source it reads)

    return os.environ["NUMBA_CACHE_DIR"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=[m.name for m in MUTATIONS], help="run only these")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--workers", default="0", help="pytest-xdist workers for each run (default 0: one process)")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.name}: {m.path}: {m.line!r} -> {m.mutated!r}; tests {', '.join(m.tests)}")
        return 0
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)
    restore_leftovers()
    for m in chosen:  # every line is found before anything changes
        line_number((ROOT / m.path).read_text(), m)
    clean_cache = clean_compile_cache()
    rows, missed = [], []
    for m in chosen:
        number, failed, code = check(m, clean_cache, args.workers)
        caught = "; ".join(failed) if failed else f"NOT CAUGHT (pytest exit {code})"
        rows.append(f"| {m.error} | {m.path}:{number} | {caught} |")
        if not failed:
            missed.append(m.name)
    print("| error | file:line changed | tests that failed |\n|---|---|---|\n" + "\n".join(rows))
    if missed:
        print(f"not caught: {', '.join(missed)}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: every changed file is restored", file=sys.stderr)
        sys.exit(130)
