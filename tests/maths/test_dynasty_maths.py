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

# The reference for the brute force: Dynasty's rules as docs/games/dynasty.md states them,
# written here apart from the engine's evaluator. Line pays in coins per coin on the line,
# the EMPEROR's pays x total bet, and the 20 lines as the row shown on each reel (0 = top).
LINE_PAYS = {
    "DRAGON": {2: 2, 3: 50, 4: 250, 5: 1000}, "PHOENIX": {3: 40, 4: 150, 5: 500},
    "TIGER": {3: 30, 4: 100, 5: 400}, "KOI": {3: 25, 4: 75, 5: 250}, "ACE": {3: 15, 4: 50, 5: 150},
    "KING": {3: 15, 4: 40, 5: 125}, "QUEEN": {3: 10, 4: 30, 5: 100}, "JACK": {3: 5, 4: 25, 5: 100},
    "TEN": {3: 5, 4: 20, 5: 75}, "NINE": {3: 5, 4: 15, 5: 75},
}
EMPEROR_PAYS = {2: 1, 3: 5, 4: 20, 5: 100}
LINES = [[int(row) for row in line] for line in (
    "11111 00000 22222 01210 21012 00100 22122 12221 10001 10101 "
    "12121 01010 21212 11011 11211 01110 21112 02020 20202 02220").split()]
OUTER = ["EMPEROR", "DRAGON", "ACE", "NINE", "KOI"]
INNER = ["SEAL", "DRAGON", "EMPEROR", "TEN", "ACE", "SEAL"]
SMALL_STRIPS = [OUTER, INNER, INNER[::-1], INNER, OUTER[::-1]]


def reference_line_pay(symbols: list[str]) -> int:
    """Coins per coin a line pays: the symbol on reel 1 and the run of it (or SEAL) from there."""
    first = symbols[0]
    run = 1
    while run < len(symbols) and symbols[run] in (first, "SEAL"):
        run += 1
    return LINE_PAYS.get(first, {}).get(run, 0)


def reference_screens(strips: list[list[str]]):
    """Every screen of the strips (reel ``r`` stopped at ``s`` shows ``strip[s], strip[s+1], ...``
    from the top), as columns of three symbols."""
    for stops in itertools.product(*(range(len(strip)) for strip in strips)):
        yield [[strip[(stop + row) % len(strip)] for row in range(3)] for strip, stop in zip(strips, stops, strict=True)]


def reference_expectation(strips: list[list[str]], lines: int) -> tuple[float, float]:
    """Expected pay per spin (x total bet) with 1 coin on each of the first ``lines`` lines, and
    the chance of 3 or more EMPEROR, over every screen."""
    total = triggers = screens = 0
    for columns in reference_screens(strips):
        line_coins = sum(reference_line_pay([columns[reel][row] for reel, row in enumerate(line)])
                         for line in LINES[:lines])
        emperors = sum(column.count("EMPEROR") for column in columns)
        total += line_coins + EMPEROR_PAYS.get(emperors, 0) * lines
        triggers += emperors >= 3
        screens += 1
    return total / screens / lines, triggers / screens


def small_model(tmp_path) -> Dynasty:
    """Dynasty's paytable on short strips, small enough to enumerate every screen."""
    raw = json.loads(Dynasty.model_file.read_text())
    raw["reels"] = {mode: SMALL_STRIPS for mode in ("base", "free")}
    path = tmp_path / "small.json"
    path.write_text(json.dumps(raw))
    return Dynasty(path)


@pytest.mark.parametrize("lines", [1, 20])
def test_exact_screen_maths_equals_brute_force(tmp_path, lines):
    game = small_model(tmp_path)
    figures = exact.screen_maths(game.tables.pay, game.tables.base, len(game.codes))
    expected, trigger = reference_expectation(SMALL_STRIPS, lines)
    assert expected > 0 and trigger > 0  # the strips show both line and scatter wins
    assert figures.line_rtp + figures.scatter_rtp == pytest.approx(expected, rel=1e-12)
    assert figures.at_least(3) == pytest.approx(trigger, rel=1e-12)


def test_the_engine_pays_every_screen_as_the_reference(tmp_path):
    """Screen by screen, all 20 lines: the engine's line and scatter pays are the reference's."""
    game = small_model(tmp_path)
    pay, reelset = game.tables.pay, game.tables.base
    found = np.zeros(MAX_SCATTERS, dtype=np.int64)
    all_lines = np.uint64((1 << 20) - 1)
    stops_of = itertools.product(*(range(len(strip)) for strip in SMALL_STRIPS))
    for stops, columns in zip(stops_of, reference_screens(SMALL_STRIPS), strict=True):
        win, _ = pay_screen(pay, reelset.masks, reelset.counts, np.array(stops, dtype=np.int64), all_lines,
                            20, 1, events.off(), found)
        lines = sum(reference_line_pay([columns[reel][row] for reel, row in enumerate(line)]) for line in LINES)
        emperors = sum(column.count("EMPEROR") for column in columns)
        assert win == lines + 20 * EMPEROR_PAYS.get(emperors, 0), (stops, columns)


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
