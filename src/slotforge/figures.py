"""How figures are shown to a person, in the command line and the PAR sheets alike.

One unit per kind of figure: an RTP (a return as a fraction of the total bet) shows as a
percent, an interval around one as percentage points, a count as a whole number with
thousands separators, any other ratio with six significant digits (never
``139.19062499999998``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def percent(value: float, places: int = 4) -> str:
    """A fraction as a percent: 0.95 -> "95.0000%"."""
    return f"{value * 100:.{places}f}%"


def points(value: float, places: int = 4) -> str:
    """A half-width around a percent, in percentage points: 0.0004 -> "0.0400 percentage points"."""
    return f"{value * 100:.{places}f} percentage points"


def number(value: Any) -> str:
    """A count with thousands separators, a ratio with six significant digits."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.6g}" if abs(value) < 1e15 else f"{value:.6g}"
    return str(value)


def is_rtp(key: str) -> bool:
    """Whether a figure named ``key`` is a return to player (shown as a percent)."""
    last = key.rsplit(".", 1)[-1]
    return "rtp" in last.split("_") or last.startswith("rtp") or last.endswith("rtp")


def describe(key: str, value: Any) -> str:
    """A figure as a person reads it, by its name: RTPs in percent, the rest as numbers."""
    last = key.rsplit(".", 1)[-1]
    if isinstance(value, list):
        if last.startswith("interval") and all(isinstance(v, float) for v in value):
            return " to ".join(percent(float(v)) for v in value)
        return ", ".join(number(v) for v in value)
    if isinstance(value, float) and is_rtp(key):
        return percent(value)
    if isinstance(value, float) and last.startswith("ci"):
        return points(value)
    if isinstance(value, int) and (last == "seed" or last.endswith("_seed")):
        return str(value)  # a name for a stream, not a quantity
    return number(value)


def flatten(data: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """A report's nested figures as (dotted name, value) pairs, in order."""
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from flatten(value, f"{name}.")
        elif value is not None:
            yield name, value


def model_label(game: Any) -> str:
    """A game's model as "model golden-grimoire 96.44, fingerprint ae818e5a50ef"."""
    version_and_hash = game.model_id.split("/", 1)[-1]
    version, _, fingerprint = version_and_hash.partition(":")
    return f"model version {version}, fingerprint {fingerprint}"
