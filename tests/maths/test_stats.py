"""The statistics of simulated returns (:mod:`slotforge.maths.stats`): the normal quantile every
confidence interval of the project is built on, and the summary of a simulation.

The quantile comes from the standard library; SciPy, which the maths tools use elsewhere, is the
reference it is checked against.
"""

from __future__ import annotations

import math
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm

from slotforge.maths.stats import summarise, z


@given(st.floats(min_value=1e-9, max_value=1 - 1e-12))
def test_the_quantile_is_scipys_to_the_last_places(confidence: float) -> None:
    assert math.isclose(z(confidence), float(norm.ppf(0.5 + confidence / 2)), rel_tol=1e-12, abs_tol=1e-12)


def test_the_quantiles_of_the_usual_levels() -> None:
    # Published values of the standard normal distribution's two-sided quantiles.
    assert round(z(0.95), 6) == 1.959964
    assert round(z(0.99), 6) == 2.575829
    assert round(z(0.999), 6) == 3.290527


def test_a_summary_is_the_sample_mean_and_its_normal_interval() -> None:
    # Four rounds at a stake of 10 units: wins 0, 0, 10 and 30 units.
    wins = [0, 0, 10, 30]
    summary = summarise(len(wins), sum(wins), float(sum(w * w for w in wins)), 10)
    mean = sum(wins) / 4
    sample_std = math.sqrt(sum((w - mean) ** 2 for w in wins) / 3)
    assert summary["rtp"] == 1.0
    assert math.isclose(summary["std"], sample_std / 10)
    assert math.isclose(summary["ci95"], 1.959963984540054 * sample_std / 10 / 2)
    assert math.isclose(summary["ci99"], 2.5758293035489004 * sample_std / 10 / 2)


def test_no_rounds_summarise_to_zeros() -> None:
    assert summarise(0, 0, 0.0, 10) == {"rtp": 0.0, "std": 0.0, "ci95": 0.0, "ci99": 0.0}


def test_the_game_server_starts_without_scipys_statistics() -> None:
    # scipy.stats costs 0.6 s of import, paid by every server start and every restart after a crash.
    imported = subprocess.run([sys.executable, "-c", "import sys, slotforge.rgs.app; "
                               "print('scipy.stats' in sys.modules)"], capture_output=True, text=True, check=True)
    assert imported.stdout.strip() == "False"
