"""PAR sheets: one Markdown page per game with its model, its RTP and simulated figures.

A sheet holds nothing that changes from run to run with the same maths (no timings): given
the model, the round count and the seed, it is the same file. The project's own sheets in
``docs/par/`` are written only by ``slotforge par --shipped``, with the settings in
:data:`SHIPPED`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from slotforge.engine.game import Game
from slotforge.engine.model import paylines
from slotforge.figures import describe, flatten, model_label, percent, points
from slotforge.games import REGISTRY, SheetRun, maths_of
from slotforge.reports.par_figures import (
    FINGERPRINT,
    SheetData,
    configuration_section,
    distribution_section,
    sheet_fingerprint,
    top_award_section,
    volatility_section,
)

# The project's own sheets (docs/par/GAME.md) and the simulation behind each, as the games'
# registrations name them.
SHIPPED = {code: entry.sheet for code, entry in REGISTRY.items() if entry.sheet is not None}

# Figures that describe a run rather than the maths; a sheet leaves them out.
RUN_FIGURES = {"seconds", "rounds_per_second", "workers", "compile_seconds", "cluster"}

# Rounds behind a sheet's win distribution and pictures (at most the sheet's own simulation), and
# behind each bet configuration's figures when a game's RTP differs between configurations.
PICTURE_ROUNDS = 20_000_000
CONFIGURATION_ROUNDS = 2_000_000


def sheet_data(game: Game, rounds: int, seed: int, folder: Path | None) -> SheetData:
    """The win distribution (and each RTP configuration's) behind a sheet, with its pictures drawn
    into ``folder`` (none when the sheet goes to standard output)."""
    from slotforge.maths.distribution import distribution
    from slotforge.reports.plots import draw_all

    dist = distribution(game, min(rounds, PICTURE_ROUNDS), seed)
    bets = maths_of(game).rtp_configurations()
    configurations = [(bets[0], dist)] if len(bets) == 1 else [
        (bet, distribution(game, min(rounds, CONFIGURATION_ROUNDS), seed, bet)) for bet in bets]
    pictures: dict[str, str] = {}
    if folder is not None:
        paths = draw_all(game.code, game.spec.name, dist, float(game.spec.rtp), folder)
        pictures = {kind: path.name for kind, path in paths.items()}
    return SheetData(dist, configurations, pictures)


def shipped_sheet_path(code: str) -> Path:
    """Where the project keeps the sheet of ``code``: ``docs/par/`` of the source checkout."""
    folder = Path(__file__).resolve().parents[3] / "docs" / "par"
    if not folder.is_dir():
        raise ValueError(f"--shipped: {folder} not found; the shipped sheets live in a source checkout of slotforge")
    return folder / f"{code}.md"


def strip_table(game: Game, mode: str) -> list[str]:
    """Symbol counts per reel of one mode's strips."""
    strips = game.spec.reels[mode]
    counts = [Counter(strip) for strip in strips]
    header = "| symbol | " + " | ".join(f"reel {i + 1}" for i in range(len(strips))) + " |"
    lines = [header, "|---" * (len(strips) + 1) + "|"]
    for code in game.codes:
        if any(code in c for c in counts):
            lines.append(f"| {code} | " + " | ".join(str(c.get(code, 0)) for c in counts) + " |")
    lines.append("| **stops** | " + " | ".join(str(len(s)) for s in strips) + " |")
    return lines


def pays_table(pays: dict[str, dict[int, int]]) -> list[str]:
    """A pay table: one row per symbol, one column per count."""
    counts = sorted({c for p in pays.values() for c in p})
    lines = ["| symbol | " + " | ".join(str(c) for c in counts) + " |", "|---" * (len(counts) + 1) + "|"]
    for code, by_count in pays.items():
        lines.append(f"| {code} | " + " | ".join(str(by_count.get(c, "")) for c in counts) + " |")
    return lines


def payline_table(game: Game) -> list[str]:
    """The payline shapes: for each line, the row it crosses on each reel (1 = top)."""
    shapes = paylines(game.spec.paylines)
    reels = game.spec.grid.reels
    lines = ["| line | " + " | ".join(f"reel {i + 1}" for i in range(reels)) + " |", "|---" * (reels + 1) + "|"]
    for number, shape in enumerate(shapes, start=1):
        lines.append(f"| {number} | " + " | ".join(str(row + 1) for row in shape) + " |")
    return lines


def figure_rows(data: dict[str, Any]) -> list[str]:
    """A report's nested figures as table rows, each in its unit (see :mod:`slotforge.figures`)."""
    return [f"| {name} | {describe(name, value)} |" for name, value in flatten(data)
            if name.rsplit(".", 1)[-1] not in RUN_FIGURES]


def rtp_section(rtp: dict[str, Any]) -> list[str]:
    interval = f" ± {points(rtp['ci99'])} (99%)" if "ci99" in rtp else ""
    return [
        f"## RTP: {rtp['method']}",
        "",
        "From `slotforge rtp`. RTPs are percent of the total bet.",
        "",
        "| part | RTP |",
        "|---|---|",
        *[f"| {part} | {percent(value)} |" for part, value in rtp["parts"].items()],
        f"| **total** | **{percent(rtp['rtp'])}{interval}** |",
        "",
        "Other figures of the report:",
        "",
        "| figure | value |",
        "|---|---|",
        *figure_rows({k: v for k, v in rtp.items() if k not in ("parts", "rtp", "method", "game", "model", "ci99")}),
        "",
    ]


def simulation_section(simulation: dict[str, Any]) -> list[str]:
    hit = simulation["hit_frequency"]
    return [
        "## Simulation",
        "",
        f"{simulation['rounds']:,} complete rounds through the round function that pays players, "
        f"seed {simulation['seed']}, bet `{json.dumps(simulation['bet'])}`. RTPs are percent of the "
        "total bet; frequencies are shares of rounds (0.5 = one round in two).",
        "",
        "| figure | value |",
        "|---|---|",
        *rtp_rows(simulation),
        f"| hit frequency | {percent(hit, 2)} (1 in {1 / hit:.2f}) |" if hit else "| hit frequency | 0 |",
        f"| standard deviation per round | {simulation['std']:.3f} x total bet |",
        f"| largest win | {simulation['max_win']:,.2f} x total bet |",
        *figure_rows(simulation["features"]),
        "",
    ]


def rtp_rows(simulation: dict[str, Any]) -> list[str]:
    """The simulated RTP; for a jackpot game, with the pool's share and without it."""
    interval = f"± {points(simulation['ci99'])} (99%)"
    if "rtp_without_jackpot" not in simulation:
        return [f"| RTP | {percent(simulation['rtp'])} {interval} |"]
    return [
        f"| RTP, the jackpot pool's share included (what players get back) | {percent(simulation['rtp'])} {interval} |",
        f"| RTP without the jackpot pool (what the rounds pay) | {percent(simulation['rtp_without_jackpot'])} |",
        f"| the jackpot pool's share (contribution and seed) | {percent(simulation['jackpot_pool']['total'])} |",
    ]


def par_sheet(game: Game, rtp: dict[str, Any], simulation: dict[str, Any], data: SheetData | None = None) -> str:
    """The PAR sheet of ``game`` as Markdown; with ``data``, its win distribution, pictures and the
    figures of :mod:`slotforge.reports.par_figures`."""
    spec = game.spec
    command = f"slotforge par {game.code} --rounds {simulation['rounds']} --seed {simulation['seed']}"
    if SHIPPED.get(game.code) == SheetRun(simulation["rounds"], simulation["seed"]):
        command = f"slotforge par --shipped {game.code}"
    lines = [
        f"# {spec.name} — PAR sheet",
        "",
        f"Model `{game.model_id}` ({model_label(game)}: a hash of the model file); "
        f"published RTP {percent(float(spec.rtp), 2)}.",
        f"Generated by `{command}`.",
        "",
        f"{FINGERPRINT}{sheet_fingerprint(game)}. A test fails when this differs from the game's (the sheet is "
        "then stale: regenerate it).",
        "",
        *rtp_section(rtp),
        *simulation_section(simulation),
    ]
    if data is not None:
        lines += [*distribution_section(game, data), *volatility_section(data.distribution),
                  *top_award_section(game, data, rtp), *configuration_section(game, data, rtp)]
    if spec.line_pays:
        lines += ["## Paytable: line pays (coins per coin bet on the line)", "", *pays_table(spec.line_pays), ""]
    if spec.scatter_pays:
        lines += ["## Scatter pays (x total bet, anywhere on the screen)", "", *pays_table(spec.scatter_pays), ""]
    if spec.count_pays:
        lines += ["## Count pays (anywhere on the screen)", "", *pays_table(spec.count_pays), ""]
    if spec.paylines:
        lines += [f"## Paylines ({spec.paylines})", "", *payline_table(game), ""]
    lines += maths_of(game).par_sections()
    for mode in spec.reels:
        lines += [f"## Reel strips: {mode}", "", *strip_table(game, mode), ""]
    if spec.cell_weights:
        lines += ["## Cell weights (every cell, by mode)", "", *cell_weights_table(game), ""]
    return "\n".join(lines)


def cell_weights_table(game: Game) -> list[str]:
    """Independent reels: each mode's symbol weights (of cell 1; per-cell tables noted)."""
    modes = game.spec.cell_weights
    lines = ["| symbol | " + " | ".join(modes) + " |", "|---" * (len(modes) + 1) + "|"]
    for code in game.codes:
        if any(code in tables[0] for tables in modes.values()):
            lines.append(f"| {code} | " + " | ".join(str(t[0].get(code, 0)) for t in modes.values()) + " |")
    lines.append("| **total** | " + " | ".join(str(sum(t[0].values())) for t in modes.values()) + " |")
    if any(len(t) > 1 for t in modes.values()):
        lines += ["", "Modes with one table per cell show cell 1's."]
    return lines
