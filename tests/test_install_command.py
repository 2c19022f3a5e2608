"""The README's test command installs what the suite needs both as root (a container: no sudo)
and as a user (through sudo): its install lines run here against stand-ins for ``apt-get``,
``sudo`` and ``id`` that record what was asked, on a PATH without Chromium, dieharder or npm."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def install_lines() -> list[str]:
    """The README's test command, less its last line (the venv and pytest)."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"Install and run the tests.*?```sh\n(.*?)```", readme, re.S)
    assert block, "the README's test command is gone"
    lines = block.group(1).strip().splitlines()
    assert "python -m pytest" in lines[-1]
    return lines[:-1]


def stand_in(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


@pytest.mark.parametrize(("uid", "through_sudo"), [("0", False), ("1000", True)])
def test_the_readme_installs_what_is_missing_as_root_and_as_a_user(tmp_path, uid, through_sudo):
    calls = tmp_path / "calls"
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    stand_in(bin_, "id", f'echo {uid}')
    stand_in(bin_, "apt-get", f'echo "apt-get $*" >> {calls}')
    if through_sudo:
        stand_in(bin_, "sudo", f'echo "sudo" >> {calls}; "$@"')
    script = "\n".join(["set -e", *install_lines()])
    done = subprocess.run(["/bin/bash", "-c", script], env={"PATH": str(bin_)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    asked = calls.read_text().splitlines()
    installs = [line for line in asked if line.startswith("apt-get install")]
    packages = [line.split(" -q ", 1)[1].split() for line in installs]
    assert packages == [["chromium", "dieharder"], ["nodejs", "npm"], ["postgresql"], ["jq", "curl", "openssl", "iproute2"]]
    assert any(line.startswith("apt-get update") for line in asked)  # a fresh container's lists are empty
    assert ("sudo" in asked) == through_sudo
