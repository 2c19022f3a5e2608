"""Every command the documents mark as runnable runs as written.

A fenced ``sh`` block in README.md or docs/**/*.md runs when the line before it is a marker (an
HTML comment, invisible on the rendered page):

    <!-- runnable -->                                  the block runs as it stands
    <!-- runnable with a server -->                    ... with a fresh `slotforge serve` at
                                                       localhost:8000 (started before it)

A document's runnable blocks run in order in one shell (``bash -e -o pipefail``: a variable set
in one block serves the next), in a scratch folder with the checkout's ``examples/`` and ``tools/``, inside a
network namespace of their own (``unshare -n``), so that ports 8000 and 8100 are theirs whatever
else runs on the machine. The shell's background jobs (servers a block starts) are stopped at the
end. Blocks that run for long (``slotforge serve`` itself, a billion rounds) are left unmarked.

A command that fails fails its document; so does an HTTP answer of 404, 405 or 500 to ``curl``
(a route gone, a server error), whose exit status alone would say nothing. Other refusals (a 401,
a 422, a 503) are what some examples show on purpose.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from services import require

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
MARKERS = {"<!-- runnable -->": False, "<!-- runnable with a server -->": True}
BLOCK = re.compile(r"^(<!-- runnable[^>]*-->)\n```sh\n(.*?)^```$", re.M | re.S)
DOCUMENT_TIMEOUT_S = 900

# A fresh server for the blocks that need one, ready once its games are (a first start compiles
# them; later starts load them from the disk cache).
START_SERVER = """slotforge serve > serve.log 2>&1 &
until curl -sf localhost:8000/v1/health | jq -e .ready > /dev/null; do
  kill -0 $! || { echo "slotforge serve stopped:"; cat serve.log; exit 1; } >&2
  sleep 1
done
"""


@dataclass
class Block:
    """A runnable block of a document: where it starts, whether it needs a server, its commands."""

    line: int
    with_server: bool
    commands: str


def runnable_blocks(text: str, name: str = "") -> list[Block]:
    """The blocks of ``text`` marked runnable, in order (an unknown marker is an error)."""
    blocks = []
    for found in BLOCK.finditer(text):
        marker, commands = found.groups()
        if marker not in MARKERS:
            raise ValueError(f"{name}: {marker!r}: expected one of {sorted(MARKERS)}")
        blocks.append(Block(text.count("\n", 0, found.start()) + 2, MARKERS[marker], commands))
    return blocks


# curl as the documents call it, failing on the answers no example shows on purpose.
CURL = r"""curl() {
  local answer status
  answer=$(command curl -w '\n%{http_code}' "$@") || return
  status=${answer##*$'\n'}
  printf '%s\n' "${answer%$'\n'*}"
  case "$status" in 404|405|500) echo "curl $*: HTTP $status" >&2; return 1;; esac
}
"""


def script(blocks: list[Block], name: str) -> str:
    """One shell script: the blocks in order, a server started before the first that needs one."""
    parts = ["set -e -o pipefail",
             "trap 'kill $(jobs -p) 2> /dev/null || true; wait' EXIT",
             "ip link set lo up",
             CURL]
    started = False
    for block in blocks:
        if block.with_server and not started:
            parts.append(START_SERVER)
            started = True
        parts.append(f"echo '>>> {name}, the block of line {block.line}'\n{block.commands}")
    return "\n".join(parts) + "\n"


def documents_with_runnable_blocks() -> list[Path]:
    return [path for path in DOCUMENTS if runnable_blocks(path.read_text(), path.name)]


def test_the_marked_blocks_are_found():
    text = ("# A\n\n<!-- runnable -->\n```sh\necho one\n```\n\n```sh\necho not marked\n```\n\n"
            "<!-- runnable with a server -->\n```sh\ncurl -s localhost:8000/v1/health\necho two\n```\n")
    assert runnable_blocks(text) == [Block(4, False, "echo one\n"),
                                     Block(13, True, "curl -s localhost:8000/v1/health\necho two\n")]
    assert script(runnable_blocks(text), "A").index("slotforge serve") > script(runnable_blocks(text), "A").index(
        "echo one")
    with pytest.raises(ValueError, match="runnable later"):
        runnable_blocks("<!-- runnable later -->\n```sh\necho\n```\n", "A")
    assert {path.name for path in documents_with_runnable_blocks()} >= {"README.md", "server.md", "wallet.md"}


@pytest.mark.parametrize("document", documents_with_runnable_blocks(), ids=lambda path: path.name)
def test_the_runnable_commands_of_a_document_run_as_written(document, tmp_path):
    require(shutil.which("unshare") is not None and os.geteuid() == 0,
            "the documents' commands run in a network namespace of their own: unshare, as root")
    for command in ("curl", "jq", "openssl"):
        require(shutil.which(command) is not None, f"{command} is not installed: apt-get install {command}")
    for folder in ("examples", "tools"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    (tmp_path / "run.sh").write_text(script(runnable_blocks(document.read_text(), document.name), document.name))
    environment = {name: value for name, value in os.environ.items() if not name.startswith("SLOTFORGE_")}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    run = subprocess.run(["unshare", "-n", "bash", "run.sh"], cwd=tmp_path, env=environment, text=True,
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=DOCUMENT_TIMEOUT_S)
    server_log = (tmp_path / "serve.log").read_text()[-3000:] if (tmp_path / "serve.log").exists() else ""
    assert run.returncode == 0, (f"{document.name}: exit {run.returncode}\n{run.stdout[-6000:]}\n{run.stderr[-4000:]}"
                                 f"\n{server_log}")
