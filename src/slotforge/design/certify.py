"""``slotforge certify``: a version's figures, checked against its label, as a manifest.

The manifest names what was certified (the game, the version, the model file's SHA-256 and
fingerprint, the code fingerprint that records and replays check) and states every figure:
the RTP in every configuration whose RTP may differ, and at the range's low end where the
player's strategy moves it; the hit rate, the chance of a win below the stake, the volatility
index, the largest win and how often its class comes, and the features' frequencies, from a
seeded simulation. An RTP passes when it is exact and within 0.01 points of the label, or
simulated and its 99% interval covers the label.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from slotforge.design.figures import round_figures, rtp_figures
from slotforge.engine.game import Game
from slotforge.engine.roles import RtpOptions
from slotforge.figures import flatten
from slotforge.games import load_game, maths_of

EXACT_TOLERANCE = 0.0001  # 0.01 percentage points
CERTIFY_ROUNDS = 2_000_000
CERTIFY_SEED = 1


def rtp_check(what: str, label: Decimal, figures: dict[str, Any]) -> dict[str, Any]:
    """One RTP against its label: exact within 0.01 points; simulated with its 99% interval
    covering it; exact but for a simulated correction (Moon of Fortune's win cap) within 0.01
    points of the interval (the label is a rounded figure, the interval a narrow one)."""
    gap = figures["rtp"] - float(label)
    rule, allowed = rtp_rule(figures)
    return {
        "figure": what,
        "label": str(label),
        "reached": figures["rtp"],
        "method": figures["method"],
        "rule": rule,
        "ci99": figures["ci99"],
        "allowed": allowed,
        "gap": gap,
        "pass": abs(gap) <= allowed,
    }


def rtp_rule(figures: dict[str, Any]) -> tuple[str, float]:
    """How far from its label an RTP figure may be, and the rule in words."""
    if figures["exact"]:
        return "exact, within 0.01 points", EXACT_TOLERANCE
    if figures["method"].startswith("exact"):
        return "exact with a simulated correction: within 0.01 points of its 99% interval", \
            EXACT_TOLERANCE + figures["ci99"]
    return "simulated: the 99% interval covers the label", figures["ci99"]


def rtp_checks(game: Game, rtp_rounds: int | None, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """The RTP in every configuration the game's maths names, and at the range's low end."""
    checks = []
    for bet in maths_of(game).rtp_configurations():
        what = "rtp" + "".join(f" {k}={v}" for k, v in bet.items())
        say(f"computing {what}")
        checks.append(rtp_check(what, game.spec.rtp, rtp_figures(game, RtpOptions(bet=bet or None, rounds=rtp_rounds))))
    spread = game.spec.rtp_range
    if spread is not None:
        say(f"computing the RTP with strategy {spread.min_strategy}")
        options = RtpOptions(strategy=spread.min_strategy, rounds=rtp_rounds)
        checks.append(rtp_check(f"rtp strategy={spread.min_strategy}", spread.min, rtp_figures(game, options)))
    return checks


def feature_frequencies(game: Game, rounds: int, seed: int) -> dict[str, float]:
    """Every frequency the game's feature report states, from a seeded simulation."""
    from slotforge.reports.simulate import simulate

    result = simulate(game.code, rounds, seed=seed, workers=1, model=game.path)
    return {key: value for key, value in flatten(result["features"])
            if key.endswith("frequency") and isinstance(value, float)}


def certify(code: str, version: str, rounds: int = CERTIFY_ROUNDS, seed: int = CERTIFY_SEED,
            rtp_rounds: int | None = None, say: Callable[[str], None] = lambda _text: None) -> dict[str, Any]:
    """The manifest of version ``version`` of ``code`` (``pass``: every RTP check passed)."""
    game = load_game(code, version=version)
    checks = rtp_checks(game, rtp_rounds, say)
    say(f"simulating {rounds:,} rounds for the win distribution")
    figures = round_figures(game, rounds, seed)
    say(f"simulating {rounds:,} rounds for the features")
    features = feature_frequencies(game, rounds, seed)
    return {
        "game": code,
        "name": game.spec.name,
        "version": game.spec.version,
        "label": game.published_rtp(),
        "model": {"file": game.path.name, "id": game.model_id,
                  "sha256": hashlib.sha256(game.path.read_bytes()).hexdigest()},
        "code": game.code_id,
        "certified_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "rtp_checks": checks,
        "figures": figures.as_json(),
        "feature_frequencies": features,
        "pass": all(check["pass"] for check in checks),
    }
