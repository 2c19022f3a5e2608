"""The PostgreSQL server the tests use: the one at ``SLOTFORGE_TEST_POSTGRES`` (``HOST:PORT``,
default ``127.0.0.1:5432``, user postgres, no password) when it answers, else a throwaway
cluster this test session starts on that address and removes at its end.

A fresh machine needs no PostgreSQL service: the system's ``initdb`` and ``pg_ctl`` (Debian's
``postgresql`` package, which ``.ci/run`` installs where they are missing; found on the ``PATH``
or under ``/usr/lib/postgresql/*/bin``) make a cluster in a temporary folder, owned by the
``postgres`` user when the tests run as root (PostgreSQL refuses to run as root), with trust
authentication on the given address only, its socket in the same folder, and no flush to disk
(``fsync=off``: a throwaway cluster outlives no machine crash; the tests kill server processes,
never the machine). The session's
controller starts it before the test processes start, so they all share it
(``tests/conftest.py``).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psycopg

ADDRESS_VARIABLE = "SLOTFORGE_TEST_POSTGRES"
DEFAULT_ADDRESS = "127.0.0.1:5432"
START_TIMEOUT_S = 60


def address() -> tuple[str, int]:
    """``(host, port)`` of the tests' PostgreSQL, as ``SLOTFORGE_TEST_POSTGRES`` names it."""
    text = os.environ.get(ADDRESS_VARIABLE, DEFAULT_ADDRESS)
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"{ADDRESS_VARIABLE}: expected HOST:PORT (such as {DEFAULT_ADDRESS}), got {text!r}")
    return host, int(port)


def admin_dsn(database: str = "postgres") -> str:
    """A libpq connection string to ``database`` as the superuser postgres."""
    host, port = address()
    return f"host={host} port={port} user=postgres dbname={database}"


def url(database: str) -> str:
    """The SQLAlchemy URL of ``database`` on the tests' server."""
    host, port = address()
    return f"postgresql+psycopg://postgres@{host}:{port}/{database}"


def answers() -> str | None:
    """None when the tests' server answers; else why not."""
    try:
        with psycopg.connect(admin_dsn(), connect_timeout=3):
            return None
    except psycopg.OperationalError as error:
        return str(error).strip()


def tool(name: str) -> str | None:
    """A PostgreSQL server program: on the ``PATH``, or in the newest ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which(name)
    if found is not None:
        return found
    installed = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda path: int(path.parts[-3]))
    return str(installed[-1]) if installed else None


@dataclass
class Cluster:
    """A throwaway PostgreSQL cluster: its folder, the user that owns it and its ``pg_ctl``."""

    folder: Path
    owner: str | None  # the user the server runs as, when the tests run as root
    pg_ctl: str

    def run(self, *command: str) -> None:
        as_owner = ["runuser", "-u", self.owner, "--"] if self.owner else []
        subprocess.run([*as_owner, *command], check=True, capture_output=True, text=True, timeout=START_TIMEOUT_S)

    def stop(self) -> None:
        """Stop the server (fast: open sessions are ended) and remove its folder."""
        try:
            self.run(self.pg_ctl, "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster() -> Cluster:
    """A new cluster listening on the tests' address, started and waited for."""
    initdb, pg_ctl = tool("initdb"), tool("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError("initdb and pg_ctl not found: apt-get install postgresql (or start a PostgreSQL server "
                           f"at {DEFAULT_ADDRESS}, or name one in {ADDRESS_VARIABLE})")
    host, port = address()
    owner = server_user() if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="slotforge-postgres-"))
    if owner is not None:
        os.chown(folder, pwd.getpwnam(owner).pw_uid, pwd.getpwnam(owner).pw_gid)
    cluster = Cluster(folder, owner, pg_ctl)
    data = folder / "data"
    try:
        cluster.run(initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        settings = f"-c listen_addresses={host} -p {port} -k {folder} -c fsync=off"
        cluster.run(pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-o", settings, "-w",
                    "-t", str(START_TIMEOUT_S), "start")
    except subprocess.CalledProcessError as error:
        log = (folder / "log").read_text() if (folder / "log").exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"a throwaway PostgreSQL at {host}:{port} did not start: {error.stderr}{log}") from error
    return cluster


def server_user() -> str:
    """The user a cluster started by root runs as: postgres where it exists, else nobody."""
    try:
        pwd.getpwnam("postgres")
        return "postgres"
    except KeyError:
        return "nobody"
