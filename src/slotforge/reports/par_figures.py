"""The figures test labs ask of a PAR sheet beyond the RTP: the win distribution with its
pictures, the volatility index, what a player's RTP looks like after n rounds, the odds of the
top award per bet option and the RTP per bet configuration; and the fingerprint that says which
maths a sheet describes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from slotforge.engine.game import Game
from slotforge.engine.model import paylines
from slotforge.figures import percent, points
from slotforge.maths.distribution import Distribution, class_labels, player_intervals, volatility_index

FINGERPRINT = "Fingerprint (model + code): "


def sheet_fingerprint(game: Game) -> str:
    """What a sheet's figures depend on: the model (its id names a hash of the file) and the code
    that plays its rounds (a hash of the engine's and the game's own source, as round records
    carry). A sheet whose fingerprint differs from the game's is stale."""
    return f"`{game.model_id}` + `{game.code_id}`"


@dataclass
class SheetData:
    """What the picture and figure sections are drawn from."""

    distribution: Distribution
    configurations: list[tuple[dict[str, Any], Distribution]]
    pictures: dict[str, str]  # kind -> file name beside the sheet (none when the sheet is printed)


# -- the top award ------------------------------------------------------------------------------
def top_line_award(game: Game) -> tuple[str, int, int] | None:
    """The paytable's top line award: (symbol, count, pay per line coin), or None."""
    pays = game.spec.line_pays
    if not pays:
        return None
    symbol, by_count = max(pays.items(), key=lambda item: max(item[1].values()))
    count = max(by_count, key=by_count.get)
    return symbol, count, by_count[count]


def exact_top_line_odds(game: Game) -> list[float]:
    """P(a base-game spin shows the top line award on at least one of the first L paylines), for
    L = 1, 2, ... every payline, counting wilds as the symbol; exact by enumeration.

    For each reel the chance of each set of rows showing the symbol (or a wild for it) comes
    from the strip; reels are independent, so the chance of every combination of sets is a
    product, and a combination wins when a played line crosses a matching row on each of the
    award's reels."""
    symbol, count, _ = top_line_award(game)
    wild = game.spec.wild
    matching = {symbol} | ({wild.symbol} if wild and symbol not in wild.substitutes_except else set())
    rows = game.grid[0]
    per_reel = []
    for strip in game.spec.reels["base"][:count]:
        masks = np.zeros(1 << rows)
        for stop in range(len(strip)):
            masks[sum(1 << row for row in range(rows) if strip[(stop + row) % len(strip)] in matching)] += 1
        per_reel.append(masks / len(strip))
    combinations = np.array(list(itertools.product(range(1 << rows), repeat=count)), dtype=np.int64)
    chance = np.prod([per_reel[r][combinations[:, r]] for r in range(count)], axis=0)
    won = np.zeros(len(combinations), dtype=bool)
    odds = []
    for shape in paylines(game.spec.paylines):
        won |= np.all([(combinations[:, r] >> shape[r]) & 1 for r in range(count)], axis=0)
        odds.append(float(chance[won].sum()))
    return odds


def top_award_section(game: Game, data: SheetData, rtp: dict[str, Any]) -> list[str]:
    lines = ["## The top award", ""]
    award = top_line_award(game)
    exact = rtp.get("method") == "exact" and award is not None and "lines" in game.parse_bet({}).fields
    if exact:
        symbol, count, pay = award
        offered = game.bet_options.lines
        lines += [
            f"The paytable's top award is {count} x {symbol} on a played line ({pay:,} coins per line coin; wilds "
            "count as the symbol). Its exact chance per base-game spin, by the number of lines played (enumerated "
            "over every reel window; free spins add to it):",
            "",
            "| lines played | chance per spin | 1 in |",
            "|---|---|---|",
        ]
        odds = exact_top_line_odds(game)
        for n in range(offered.min, offered.max + 1):
            p = odds[n - 1]
            lines.append(f"| {n} | {p:.3e} | {1 / p:,.0f} |" if p else f"| {n} | 0 | never |")
        lines.append("")
    lines += [
        "The largest win class each simulated bet configuration reached, and how often (simulated; the "
        "classes are those of the win distribution):",
        "",
        "| bet | largest win class reached | rounds in it | 1 in | largest win |",
        "|---|---|---|---|---|",
    ]
    labels = class_labels()
    for bet, dist in data.configurations:
        top = int(np.flatnonzero(dist.counts)[-1])
        hits = int(dist.counts[top])
        largest = _largest_win(dist)
        lines.append(f"| {_bet_text(bet)} | {labels[top]} | {hits:,} | {dist.rounds / hits:,.0f} | {largest} |")
    return lines + [""]


def _largest_win(dist: Distribution) -> str:
    return f"{dist.largest / dist.units:,.2f}x" if dist.largest else "0"


def _bet_text(bet: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in bet.items()) or "the default bet"


# -- RTP per configuration, volatility, the win distribution ---------------------------------------
def configuration_section(game: Game, data: SheetData, rtp: dict[str, Any]) -> list[str]:
    lines = ["## RTP per bet configuration", ""]
    if "rtp_by_stake" in rtp:
        lines += [
            "From the RTP report (exact given the simulated chances; see the RTP section):",
            "",
            "| stake | RTP |",
            "|---|---|",
            *[f"| {stake} | {percent(value)} |" for stake, value in rtp["rtp_by_stake"].items()],
            "",
        ]
    if "rtp_by_stake" in rtp:
        lines += ["The simulation at the default bet:", ""]
    elif len(data.configurations) == 1:
        lines += [
            "Every bet has the same RTP (the RTP report above says why: wins scale with the bet); the "
            "simulation at the default bet:",
            "",
        ]
    else:
        lines += ["Each configuration simulated on its own (same seed):", ""]
    lines += ["| bet | simulated RTP (99%) | hit frequency | volatility index (90%) |", "|---|---|---|---|"]
    for bet, dist in data.configurations:
        hit = 1 - dist.counts[0] / dist.rounds
        lines.append(
            f"| {_bet_text(bet)} | {percent(dist.rtp)} ± {points(dist.ci99)} | {percent(hit, 2)} | "
            f"{index_text(dist.std)} |"
        )
    return lines + [""]


def std_text(std: float) -> str:
    """The standard deviation of one round (x total bet) as a sheet states it."""
    return f"{std:.3f}"


def index_text(std: float, confidence: float = 0.90) -> str:
    """The volatility index at ``confidence`` as a sheet states it."""
    return f"{volatility_index(std, confidence):.2f}"


def volatility_figures(data: SheetData) -> dict[str, Any]:
    """The volatility a sheet states, from the data the sheet is made from: ``{"std", "index",
    "by_bet"}`` (``std`` x total bet, ``index`` at 90%, as the sheet writes them; ``by_bet`` lists
    ``{"bet", "index"}`` where the sheet simulates several bet configurations). The game server
    ships them with the package: ``slotforge par --shipped`` writes them into
    ``rgs/volatility.json`` with each sheet."""
    std = data.distribution.std
    by_bet = [{"bet": _bet_text(bet), "index": index_text(dist.std)} for bet, dist in data.configurations]
    return {"std": std_text(std), "index": index_text(std), "by_bet": by_bet if len(by_bet) > 1 else []}


def volatility_section(dist: Distribution) -> list[str]:
    std = dist.std
    return [
        "## Volatility and what a player sees",
        "",
        f"Standard deviation of one round: {std_text(std)} x total bet. Volatility index (z x standard deviation): "
        f"**{index_text(std)}** at 90% confidence, {index_text(std, 0.95)} at 95%.",
        "",
        "A player's own RTP after n rounds lies within these bounds of the game's RTP with 95% confidence "
        "(normal approximation; over few rounds the distribution is skewed, most sessions below the RTP and a "
        "few far above):",
        "",
        "| rounds | 95% interval of the player's RTP |",
        "|---|---|",
        *[f"| {n:,} | ± {points(half)} |" for n, half in player_intervals(std)],
        "",
    ]


def distribution_section(game: Game, data: SheetData) -> list[str]:
    dist = data.distribution
    lines = [
        "## Win distribution",
        "",
        f"{dist.rounds:,} rounds at the default bet, seed {dist.seed} (the simulator's chunks and seeding: "
        f"the same rounds as `slotforge simulate {game.code} -n {dist.rounds} --seed {dist.seed}`).",
        "",
        "| round win (x total bet) | share of rounds | 1 in | RTP returned |",
        "|---|---|---|---|",
    ]
    for label, count, wins in zip(class_labels(), dist.counts, dist.wins, strict=True):
        share = count / dist.rounds
        one_in = f"{1 / share:,.1f}" if count else "-"
        lines.append(f"| {label} | {percent(share, 6)} | {one_in} | {percent(wins / dist.rounds / dist.units)} |")
    lines.append("")
    titles = {
        "win-distribution": "Win distribution (log scale)",
        "rtp-convergence": "RTP converging, 99% band",
        "hit-frequency": "Hit frequency and RTP by win size",
    }
    for kind, file in data.pictures.items():
        lines += [f"![{titles[kind]}]({file})", ""]
    return lines
