"""Every shipped version certifies: its RTP against its label and every figure of the manifest.

The suite certifies with small budgets: 20,000 simulated rounds for the win distribution and
the features, and for the RTPs that are partly simulated the budgets of ``RTP_BUDGET`` (the
99% intervals they reach are in each check's ``ci99``: about 0.1 points for Golden Grimoire
and Divine Fortune here, where the shipped manifests in docs/versions/ use the reports'
default budgets). Exact RTPs are held to 0.01 points whatever the budget."""

from __future__ import annotations

import pytest

from slotforge.design.certify import EXACT_TOLERANCE, certify, rtp_check
from slotforge.engine.roles import RtpOptions
from slotforge.games import game_codes, load_game, maths_of, versions_of

SHIPPED = [(code, info.name) for code in game_codes() for info in versions_of(code)]
ROUNDS = 20_000
RTP_BUDGET = {"golden-grimoire": 200_000, "divine-fortune": 4_000_000, "moon-of-fortune": 100_000}


@pytest.mark.parametrize(("code", "name"), SHIPPED)
def test_every_shipped_version_certifies(code: str, name: str) -> None:
    manifest = certify(code, name, rounds=ROUNDS, seed=1, rtp_rounds=RTP_BUDGET.get(code))
    assert manifest["version"] == name
    assert manifest["model"]["id"].startswith(f"{code}/{name}:")
    assert len(manifest["model"]["sha256"]) == 64
    assert manifest["code"].startswith("slotforge ")
    for check in manifest["rtp_checks"]:
        assert check["allowed"] <= EXACT_TOLERANCE + check["ci99"], check
        assert abs(check["reached"] - float(check["label"])) <= check["allowed"], check
        assert check["pass"], check
    figures = manifest["figures"]
    assert figures["rounds"] == ROUNDS
    assert 0 < figures["below_stake"] < figures["hit_rate"] < 1
    assert figures["volatility_index"] > 0
    assert figures["max_win"] > 1 and 0 < figures["max_win_class_frequency"] <= figures["hit_rate"]
    assert manifest["feature_frequencies"]
    assert manifest["pass"]


def test_golden_grimoires_rtp_report_holds_the_published_rtp_within_its_99_percent_interval() -> None:
    """The published model's report with no tolerance beyond its interval (the certification
    above allows a hundredth of a point more). Here, rather than in tests/maths/test_published_rtp.py,
    because its exact base game is the one the certifications enumerate, once per process."""
    game = load_game("golden-grimoire")
    report = maths_of(game).rtp_report(RtpOptions(rounds=1 << 17))
    assert report["free_spins_simulated"] == 1 << 17
    assert report["ci99"] < 0.0015  # tight enough to see a wrong weight
    assert abs(report["rtp"] - float(game.spec.rtp)) < report["ci99"], "99%"


def figures(rtp: float, ci99: float) -> dict:
    return {"rtp": rtp, "ci99": ci99, "exact": ci99 == 0, "method": "test"}


def test_an_exact_rtp_passes_within_a_hundredth_of_a_point_only() -> None:
    from decimal import Decimal

    assert rtp_check("rtp", Decimal("0.94"), figures(0.94009, 0))["pass"]
    assert not rtp_check("rtp", Decimal("0.94"), figures(0.94011, 0))["pass"]
    assert not rtp_check("rtp", Decimal("0.94"), figures(0.93989, 0))["pass"]


def test_an_exact_rtp_with_a_simulated_correction_passes_within_a_hundredth_of_a_point_of_its_interval() -> None:
    from decimal import Decimal

    hybrid = {"rtp": 0.940105, "ci99": 0.00001, "exact": False, "method": "exact: chain; the cap simulated"}
    assert rtp_check("rtp", Decimal("0.94"), hybrid)["pass"]
    assert not rtp_check("rtp", Decimal("0.94"), {**hybrid, "rtp": 0.940115})["pass"]
    assert not rtp_check("rtp", Decimal("0.94"), {**hybrid, "method": "simulated"})["pass"]


def test_a_simulated_rtp_passes_when_its_interval_covers_the_label() -> None:
    from decimal import Decimal

    assert rtp_check("rtp", Decimal("0.94"), figures(0.9415, 0.0016))["pass"]
    assert not rtp_check("rtp", Decimal("0.94"), figures(0.9415, 0.0014))["pass"]
