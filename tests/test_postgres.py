"""A fresh machine runs the PostgreSQL tests too: where no server answers at the tests' address,
the session starts a throwaway cluster there, the tests use it, and it is gone afterwards
(``tests/postgres.py``). Both tests point the discovery at a port where nothing listens."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import postgres
import psycopg
import pytest
from services import require
from sqlalchemy import inspect

from slotforge.db import connect
from slotforge.rgs.schema import migrate

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def nothing_listens(monkeypatch) -> str:
    """The tests' PostgreSQL address turned to a free port of the loopback address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    monkeypatch.setenv(postgres.ADDRESS_VARIABLE, address)
    assert postgres.answers() is not None, f"something answers at {address}"
    return address


def server_tools_present() -> None:
    require(postgres.tool("initdb") is not None and postgres.tool("pg_ctl") is not None,
            "initdb and pg_ctl not found: apt-get install postgresql")


def test_a_throwaway_cluster_is_started_used_and_stopped(nothing_listens):
    server_tools_present()
    cluster = postgres.start_cluster()
    try:
        assert postgres.answers() is None
        with psycopg.connect(postgres.admin_dsn(), autocommit=True) as admin:
            admin.execute('CREATE DATABASE "throwaway"')
        engine = connect(postgres.url("throwaway"))
        try:
            migrate(engine)  # the game server's own schema, as the PostgreSQL tests build it
            assert {"players", "rounds", "ledger"} <= set(inspect(engine).get_table_names())
        finally:
            engine.dispose()
    finally:
        cluster.stop()
    assert postgres.answers() is not None, "the cluster still answers after stop()"
    assert not cluster.folder.exists()


def test_a_session_without_postgresql_runs_its_tests_on_a_cluster_of_its_own(nothing_listens, tmp_path):
    """A whole pytest session (as the README's command runs it, under CI so that a skip fails):
    the cluster is announced, the PostgreSQL test passes on it, and nothing is left afterwards."""
    server_tools_present()
    session = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "t"),
         "tests/rgs/test_migrations.py::test_the_migrated_schema_is_the_declared_schema"],
        cwd=ROOT, env={**os.environ, "CI": "true"}, capture_output=True, text=True, timeout=900)
    assert session.returncode == 0, session.stdout + session.stderr
    announced = f"PostgreSQL: none at {nothing_listens}; a throwaway cluster started there ("
    assert announced in session.stdout, session.stdout
    folder = Path(session.stdout.split(announced, 1)[1].split(")", 1)[0])
    assert "2 passed" in session.stdout  # SQLite and PostgreSQL
    assert postgres.answers() is not None, "the session's cluster outlived it"
    assert not folder.exists()
