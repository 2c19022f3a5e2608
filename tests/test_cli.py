"""The command line: machine-readable output, clean interruption, one-line errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from typer.testing import CliRunner

from slotforge.cli import app

runner = CliRunner()


def test_rtp_json_has_method_and_parts():
    result = runner.invoke(app, ["rtp", "dynasty", "--json"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["method"] == "exact" and abs(report["rtp"] - 0.95) < 0.0001
    assert set(report["parts"]) == {"base_lines", "base_scatter", "free_spins"}


def test_simulate_json_fields():
    result = runner.invoke(app, ["simulate", "dynasty", "--rounds", "300000", "--seed", "4", "--json"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    for key in ("rtp", "ci95", "ci99", "rounds", "rounds_per_second", "std", "hit_frequency", "max_win", "features"):
        assert key in report
    assert report["rounds"] == 300_000 and 0 < report["ci95"] < report["ci99"]
    assert report["features"]["free_spins"]["triggered"] > 0


def test_unknown_game_and_bad_bet_are_one_line_errors():
    unknown = runner.invoke(app, ["rtp", "pachinko"])
    assert unknown.exit_code == 2 and "game: unknown game 'pachinko'" in unknown.output
    bad = runner.invoke(app, ["play", "dynasty", "--bet", "lines=21"])
    assert bad.exit_code == 2
    assert "bet.lines: expected a whole number from 1 to 20, got 21" in bad.output


def test_ctrl_c_stops_a_simulation_and_prints_what_ran():
    command = [sys.executable, "-m", "slotforge.cli", "simulate", "dynasty", "-n", "100000000000", "--json"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(8)  # past start-up and at least one chunk
    process.send_signal(signal.SIGINT)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    report = json.loads(stdout)
    assert report["interrupted"] is True
    assert 0 < report["rounds"] < 100_000_000_000 and report["rounds"] % (1 << 20) == 0
