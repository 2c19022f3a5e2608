"""The pictures of a PAR sheet (matplotlib, PNG files beside the sheet).

Each picture is drawn from a :class:`~slotforge.maths.distribution.Distribution` alone, with
fixed sizes and no timestamps, so that the same maths draws the same picture.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display is needed or wanted

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from slotforge.maths.distribution import CLASS_EDGES, Distribution, class_labels  # noqa: E402

SIZE = (8, 4.5)
DPI = 100
METADATA = {"Software": None}  # no matplotlib version in the file: the same picture for the same maths


def picture_names(code: str) -> dict[str, str]:
    """The file names of a game's pictures, by what they show."""
    return {kind: f"{code}-{kind}.png" for kind in ("win-distribution", "rtp-convergence", "hit-frequency")}


def draw_all(code: str, name: str, dist: Distribution, published: float, folder: Path) -> dict[str, Path]:
    """Draw the three pictures of ``code`` into ``folder``; their paths by kind."""
    names = picture_names(code)
    paths = {kind: folder / file for kind, file in names.items()}
    win_distribution(name, dist, paths["win-distribution"])
    rtp_convergence(name, dist, published, paths["rtp-convergence"])
    hit_frequency(name, dist, paths["hit-frequency"])
    return paths


def _save(figure: plt.Figure, path: Path) -> None:
    figure.tight_layout()
    figure.savefig(path, dpi=DPI, metadata=METADATA)
    plt.close(figure)


def win_distribution(name: str, dist: Distribution, path: Path) -> None:
    """Share of rounds in each win class, log scale."""
    labels, shares = class_labels(), dist.counts / dist.rounds
    figure, axes = plt.subplots(figsize=SIZE)
    shown = np.where(shares > 0, shares, np.nan)
    axes.bar(range(len(labels)), shown, color="#3b6ea5")
    axes.set_yscale("log")
    axes.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=8)
    axes.set_ylabel("share of rounds (log scale)")
    axes.set_xlabel("round win, x total bet")
    axes.set_title(f"{name}: win distribution ({dist.rounds:,} rounds, seed {dist.seed})")
    axes.grid(axis="y", which="both", alpha=0.3)
    _save(figure, path)


def rtp_convergence(name: str, dist: Distribution, published: float, path: Path) -> None:
    """The simulated RTP after n rounds with its 99% band, and the published RTP."""
    rounds = np.array([p[0] for p in dist.path])
    rtp = np.array([p[1] for p in dist.path]) * 100
    band = np.array([p[2] for p in dist.path]) * 100
    figure, axes = plt.subplots(figsize=SIZE)
    axes.fill_between(rounds, rtp - band, rtp + band, color="#3b6ea5", alpha=0.25, label="99% confidence band")
    axes.plot(rounds, rtp, color="#3b6ea5", label="simulated RTP")
    axes.axhline(published * 100, color="#b5443b", linestyle="--", label=f"published RTP {published:.2%}")
    axes.set_xscale("log")
    low, high = published * 100 - 15, published * 100 + 15
    axes.set_ylim(max(low, float(np.min(rtp - band)) - 1), min(high, float(np.max(rtp + band)) + 1))
    axes.set_xlabel("rounds (log scale)")
    axes.set_ylabel("RTP, %")
    axes.set_title(f"{name}: RTP converging (seed {dist.seed})")
    axes.legend(loc="upper right", fontsize=8)
    axes.grid(alpha=0.3)
    _save(figure, path)


def hit_frequency(name: str, dist: Distribution, path: Path) -> None:
    """How often a round wins at least each size (1 in N), and each class's share of the RTP."""
    labels = class_labels()[1:]
    at_least = dist.counts[1:][::-1].cumsum()[::-1] / dist.rounds
    share = dist.wins[1:] / dist.rounds / dist.units * 100
    figure, (left, right) = plt.subplots(1, 2, figsize=(SIZE[0] * 1.3, SIZE[1]))
    left.bar(range(len(labels)), np.where(at_least > 0, at_least, np.nan), color="#3b6ea5")
    left.set_yscale("log")
    thresholds = ["> 0", *[f">= {edge:,}x" for edge in CLASS_EDGES]]
    left.set_xticks(range(len(labels)), thresholds, rotation=45, ha="right", fontsize=8)
    left.set_ylabel("chance per round of a win this size or more")
    left.set_title("hit frequency by win size")
    left.grid(axis="y", which="both", alpha=0.3)
    right.bar(range(len(labels)), share, color="#6a9a4a")
    right.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=8)
    right.set_ylabel("RTP returned, % of the total bet")
    right.set_title("RTP by win size")
    right.grid(axis="y", alpha=0.3)
    figure.suptitle(f"{name} ({dist.rounds:,} rounds, seed {dist.seed})")
    _save(figure, path)
