"""The figures a designer targets and a certificate states, measured the same way for both.

The RTP comes from the game's own report (exact where its maths is, else simulated with its 99%
interval); the figures that need the whole win distribution (hit rate, the chance of a win
below the stake, the volatility index, the largest win and how often its class comes) from a
seeded simulation of complete rounds (:func:`slotforge.maths.distribution.distribution`), the
same seed for every model compared: common random numbers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from slotforge.engine.game import Game
from slotforge.engine.roles import RtpOptions
from slotforge.games import maths_of
from slotforge.maths.distribution import class_labels, distribution, volatility_index

# Win class 0 is "no win", class 1 is a win below the stake (CLASS_EDGES starts at 1x).
NO_WIN, BELOW_STAKE = 0, 1


@dataclass(frozen=True)
class RoundFigures:
    """What a seeded simulation of complete rounds shows (wins in multiples of the total bet)."""

    rounds: int
    seed: int
    hit_rate: float
    below_stake: float
    volatility_index: float
    std: float
    max_win: float
    max_win_class: str
    max_win_class_frequency: float

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def round_figures(game: Game, rounds: int, seed: int) -> RoundFigures:
    """Hit rate, wins below the stake, volatility (90% index) and the largest win of ``rounds``
    simulated rounds of ``game`` at its simulation bet."""
    found = distribution(game, rounds, seed=seed)
    top = max(k for k, count in enumerate(found.counts) if count)
    return RoundFigures(
        rounds=rounds,
        seed=seed,
        hit_rate=1.0 - float(found.counts[NO_WIN]) / rounds,
        below_stake=float(found.counts[BELOW_STAKE]) / rounds,
        volatility_index=volatility_index(found.std),
        std=found.std,
        max_win=found.largest / found.units,
        max_win_class=class_labels()[top],
        max_win_class_frequency=float(found.counts[top]) / rounds,
    )


def rtp_figures(game: Game, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
    """The RTP report's headline: ``rtp``, ``method``, ``ci99`` (0 where exact) and the feature
    frequencies it states (its keys ending in ``_frequency``)."""
    report = maths_of(game).rtp_report(options)
    return {
        "rtp": float(report["rtp"]),
        "method": report["method"],
        "exact": not report.get("ci99"),
        "ci99": float(report.get("ci99") or 0.0),
        "features": {k: v for k, v in report.items() if k.endswith("_frequency") and isinstance(v, float)},
        "report": report,
    }
