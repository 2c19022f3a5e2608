"""The simulator on a Dask cluster: the same chunk function, the same figures to the last bit, and
Ctrl-C as locally (a real local cluster of two worker processes, real signals)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from processes import wait_until_rounds_are_done
from typer.testing import CliRunner

from slotforge.cli import MAX_ROUNDS, app
from slotforge.engine.roles import RtpOptions
from slotforge.games import load_game
from slotforge.maths.cluster import parse_address
from slotforge.reports.simulate import simulate

FIGURES = ("rounds", "total_win_units", "hit_frequency", "max_win", "std", "rtp", "features")


def test_a_local_cluster_of_two_workers_gives_the_figures_of_one_process():
    # 7 chunks of 40,000 rounds (the last one short): the cluster's two workers share them unevenly.
    one = simulate("dynasty", 262_144, seed=31, workers=1, chunk=40_000)
    cluster = simulate("dynasty", 262_144, seed=31, cluster="local:2", chunk=40_000)
    assert {k: cluster[k] for k in FIGURES} == {k: one[k] for k in FIGURES}
    assert cluster["workers"] == 2 and cluster["cluster"] == "local:2"
    other_seed = simulate("dynasty", 262_144, seed=32, workers=1, chunk=40_000)
    assert other_seed["total_win_units"] != one["total_win_units"]


def test_a_report_that_simulates_in_batches_gives_the_same_figures_on_a_cluster(monkeypatch):
    from slotforge.games.golden_grimoire import maths

    monkeypatch.setattr(maths, "FREE_FEATURES", 3_000)  # 3 batches, the last one short
    game = load_game("golden-grimoire")
    here = maths.free_by_draw(game, options=RtpOptions(rounds=7_000))
    there = maths.free_by_draw(game, options=RtpOptions(rounds=7_000, cluster="local:2"))
    assert here == there and here["features"] == 7_000


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("local:3", ("local", 3)),
        ("tcp://10.0.0.5:8786", ("scheduler", "tcp://10.0.0.5:8786")),
        ("sim-1:8786", ("scheduler", "sim-1:8786")),
    ],
)
def test_cluster_addresses(address, expected):
    assert parse_address(address) == expected


@pytest.mark.parametrize("address", ["local:0", "local:two", "local:", "nowhere", ""])
def test_a_bad_cluster_address_is_bad_input_before_any_work(address):
    result = CliRunner().invoke(app, ["simulate", "dynasty", "--cluster", address])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: --cluster: expected a Dask scheduler's address (tcp://HOST:8786) or local:N (N worker processes "
        f"here); got {address!r}"
    ]


def test_a_scheduler_that_does_not_answer_is_named(monkeypatch):
    from slotforge.maths import cluster

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)
    result = CliRunner().invoke(app, ["simulate", "dynasty", "-n", "1000", "--cluster", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith("error: --cluster: no Dask scheduler answers at tcp://127.0.0.1:9")


def test_ctrl_c_on_a_terminal_stops_a_cluster_run_and_prints_what_ran():
    """Ctrl-C on a terminal signals the whole process group, the cluster's workers included:
    they ignore it, the command counts it. Four presses, as an impatient user would."""
    command = [
        sys.executable,
        "-m",
        "slotforge.cli",
        "simulate",
        "dynasty",
        "-n",
        str(MAX_ROUNDS),
        "--cluster",
        "local:2",
        "--json",
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        wait_until_rounds_are_done(process)
        for _ in range(4):
            os.killpg(process.pid, signal.SIGINT)
            time.sleep(0.05)  # the pace of the presses, not a wait for anything
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0, stderr
    report = json.loads(stdout)
    assert report["interrupted"] is True and report["workers"] == 2
    assert 0 < report["rounds"] < MAX_ROUNDS and report["rounds"] % (1 << 20) == 0
    assert 0.5 < report["rtp"] < 1.5


def test_an_exact_rtp_says_the_cluster_is_not_used():
    result = CliRunner().invoke(app, ["rtp", "dynasty", "--cluster", "local:2", "--json"])
    assert result.exit_code == 0, result.output
    assert "dynasty's RTP is exact: --rounds/--seconds/--cluster are not used" in result.stderr
    assert json.loads(result.stdout)["method"] == "exact"
