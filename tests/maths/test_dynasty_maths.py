"""Dynasty's maths: the exact RTP against brute force and against the simulator."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from slotforge.engine import events
from slotforge.engine.evaluate import line_wins
from slotforge.engine.model import MAX_SCATTERS
from slotforge.engine.spin import pay_screen
from slotforge.games import maths_of
from slotforge.games.dynasty.rules import Dynasty
from slotforge.maths import exact
from slotforge.reports.simulate import simulate, simulate_chunk

# Statistical tests use fixed seeds (never flaky) and a stated confidence: a correct RTP lies
# outside the simulator's 99% interval in at most 1% of seeds.
Z99 = 2.5758

def small_model(tmp_path) -> Dynasty:
    """Dynasty's paytable on short strips, small enough to enumerate every screen."""
    raw = json.loads(Dynasty.model_file.read_text())
    outer = ["EMPEROR", "DRAGON", "ACE", "NINE", "KOI"]
    inner = ["SEAL", "DRAGON", "EMPEROR", "TEN", "ACE", "SEAL"]
    raw["reels"] = {mode: [outer, inner, inner[::-1], inner, outer[::-1]] for mode in ("base", "free")}
    path = tmp_path / "small.json"
    path.write_text(json.dumps(raw))
    return Dynasty(path)

def brute_force(game: Dynasty, reelset, lines_mask) -> tuple[float, float]:
    """Expected pay per spin (x total bet) and trigger chance, over every stop combination."""
    pay, lengths = game.tables.pay, reelset.lengths
    total, triggers, screens = 0, 0, 0
    found = np.zeros(MAX_SCATTERS, dtype=np.int64)
    for stops in itertools.product(*(range(n) for n in lengths)):
        stops = np.array(stops, dtype=np.int64)
        win, scatters = pay_screen(pay, reelset.masks, reelset.counts, stops, lines_mask, 1, 1, events.off(), found)
        total += win
        triggers += scatters >= 3
        screens += 1
    return total / screens, triggers / screens

def test_exact_screen_maths_equals_brute_force(tmp_path):
    game = small_model(tmp_path)
    figures = exact.screen_maths(game.tables.pay, game.tables.base, len(game.codes))
    # One line, one unit staked: line expectation plus scatter pays (x total bet = 1 unit).
    expected, trigger = brute_force(game, game.tables.base, np.uint64(1))
    assert figures.line_rtp + figures.scatter_rtp == pytest.approx(expected, rel=1e-12)
    assert figures.at_least(3) == pytest.approx(trigger, rel=1e-12)

def test_every_line_pays_the_same_on_average(tmp_path):
    """So the RTP is the same whatever number of lines is enabled."""
    game = small_model(tmp_path)
    per_line = []
    for line in range(20):
        mask = np.uint64(1 << line)
        pay, lengths = game.tables.pay, game.tables.base.lengths
        total = 0
        for stops in itertools.product(*(range(n) for n in lengths)):
            stops = np.array(stops, dtype=np.int64)
            total += line_wins(pay, game.tables.base.masks, stops, mask, 1, events.off())
        per_line.append(total)
    assert len(set(per_line)) == 1 and per_line[0] > 0

def test_retrigger_closed_form_matches_the_branching_process():
    chance, award, retrigger = 0.03, 10, 10
    closed = exact.retrigger_spins(award, chance, retrigger)
    generator = np.random.default_rng(5)
    spins = []
    for _ in range(20_000):
        left, played = award, 0
        while left:
            left -= 1
            played += 1
            left += retrigger * (generator.random() < chance)
        spins.append(played)
    spins = np.array(spins)
    assert abs(spins.mean() - closed) < Z99 * spins.std() / np.sqrt(len(spins))

def test_free_spins_that_never_end_are_refused():
    with pytest.raises(ValueError, match="never end"):
        exact.retrigger_spins(10, 0.1, 10)

def test_shipped_rtp_is_95_percent(dynasty):
    report = maths_of(dynasty).rtp_report()
    assert report["method"] == "exact"
    assert report["rtp"] == pytest.approx(0.95, abs=0.0001)
    assert sum(report["parts"].values()) == pytest.approx(report["rtp"], rel=1e-12)

@pytest.mark.parametrize("bet", [None, {"lines": 7, "coins_per_line": 3, "coin_value": "0.25"}])
def test_simulation_agrees_with_the_exact_rtp(dynasty, bet):
    exact_rtp = maths_of(dynasty).rtp_report()["rtp"]
    result = simulate("dynasty", 8_000_000, seed=20261202, bet=bet)
    assert abs(result["rtp"] - exact_rtp) < result["ci99"]
    free = result["features"]["free_spins"]
    assert free["frequency"] == pytest.approx(maths_of(dynasty).rtp_report()["free_spins_frequency"], rel=0.05)

def test_same_seed_same_figures_whatever_the_workers():
    one = simulate("dynasty", 300_000, seed=9, workers=1, chunk=50_000)
    two = simulate("dynasty", 300_000, seed=9, workers=2, chunk=50_000)
    other = simulate("dynasty", 300_000, seed=10, workers=1, chunk=50_000)
    keys = ("rounds", "total_win_units", "hit_frequency", "max_win", "std", "features")
    assert {k: one[k] for k in keys} == {k: two[k] for k in keys}
    assert one["total_win_units"] != other["total_win_units"]

def test_interrupted_simulation_reports_what_ran():
    seen = []

    def progress(rounds):
        seen.append(rounds)
        if len(seen) == 2:
            raise KeyboardInterrupt

    result = simulate("dynasty", 500_000, seed=1, chunk=100_000, progress=progress)
    assert result["interrupted"] and result["rounds"] == 200_000
    assert 0.5 < result["rtp"] < 1.5

def test_plain_python_runs_the_same_rounds():
    """The compiled round and the same code as plain Python give identical results."""
    code = (
        "import json, warnings; warnings.simplefilter('ignore');"
        "from slotforge.reports.simulate import simulate_chunk;"
        "p = simulate_chunk('dynasty', 3, 0, 3000);"
        "print(json.dumps([p.win_units, p.hits, p.max_units, [int(x) for x in p.tally]]))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    plain = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                      text=True, check=True).stdout)
    compiled = simulate_chunk("dynasty", 3, 0, 3000)
    assert plain == [compiled.win_units, compiled.hits, compiled.max_units, [int(x) for x in compiled.tally]]
