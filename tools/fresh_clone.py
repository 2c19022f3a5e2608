"""The test suite cold from a fresh clone, install included: the README's one figure of it.

    python tools/fresh_clone.py [--source PATH_OR_URL] [--keep]

Clones the repository (by default the committed HEAD of the checkout this file is in) into a
scratch folder and runs ``.ci/run`` there, which is the README's install and test command (a
virtual environment, ``pip install -e '.[test]'``, ``python -m pytest -q``), with an empty numba
cache, so that every game compiles as on a fresh machine. Its output streams through as it runs.
When the suite passes, the figure between the README's ``fresh-clone`` markers is rewritten with
the wall time, the tests passed and the machine's cores; commit it when it has moved. A run that
fails rewrites nothing and exits 1.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START, END = "<!-- fresh-clone -->", "<!-- /fresh-clone -->"
PASSED = re.compile(r"(\d+) passed")  # pytest's last line: "== 1208 passed, 3 skipped in 650.1s =="


def run_suite(source: str, folder: Path) -> tuple[float, str]:
    """Clone ``source`` into ``folder`` and run its ``.ci/run``; the wall time in seconds and the
    output's last line (pytest's summary). Raises SystemExit when either step fails."""
    started = time.monotonic()
    subprocess.run(["git", "clone", "--quiet", source, str(folder)], check=True)
    environment = {**os.environ, "CI": "true", "NUMBA_CACHE_DIR": str(folder / ".numba-cache")}
    environment.pop("VIRTUAL_ENV", None)
    last = ""
    with subprocess.Popen(["bash", ".ci/run"], cwd=folder, env=environment, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as ci:
        assert ci.stdout is not None
        for line in ci.stdout:
            sys.stdout.write(line)
            last = line.strip() or last
    if ci.returncode != 0:
        raise SystemExit(f"fresh clone: .ci/run exited {ci.returncode}; the README is left as it was")
    return time.monotonic() - started, last


def figure(seconds: float, summary: str, cores: int) -> str:
    """The README's figure: ``14 min 8 s in all for 1,208 tests passed on 2 cores``."""
    found = PASSED.search(summary)
    if found is None:
        raise SystemExit(f"fresh clone: no count of passed tests in pytest's last line {summary!r}")
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s in all for {int(found.group(1)):,} tests passed on {cores} cores"


def rewrite(text: str, new: str) -> str:
    """``text`` with the figure between the fresh-clone markers replaced by ``new``."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise SystemExit(f"README.md: expected one {START} ... {END} around the figure")
    before, rest = text.split(START)
    return before + START + new + END + rest.split(END, 1)[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(ROOT), help="the repository to clone (this checkout by default)")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="slotforge-fresh-clone-")) / "slotforge"
    try:
        seconds, summary = run_suite(options.source, folder)
    finally:
        if options.keep:
            print(f"the clone: {folder}")
        else:
            shutil.rmtree(folder.parent, ignore_errors=True)
    new = figure(seconds, summary, os.cpu_count() or 1)
    README.write_text(rewrite(README.read_text(), new))
    print(f"README.md: {new}")


if __name__ == "__main__":
    main()
