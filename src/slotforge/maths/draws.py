"""Every mapped draw of every game, and chi-square tests of each against its design.

A round turns random words into outcomes only through two compiled kernels of
:mod:`slotforge.engine.rng`: ``bounded(stream, n)`` (a uniform integer below ``n``: a reel's
stop, a card, a pick, a cell) and ``weighted(stream, cumulative)`` (an index drawn in
proportion to a table of weights). The draws of a game are therefore its model's tables, found
here by walking the model file, not listed per game, so that a new game is covered as soon as it
ships:

* ``reels.MODE[i]``: each reel strip; its stop is uniform over the strip's length.
* ``cell_weights.MODE[i]``: each cell's symbol weights (independent-reel grids).
* under ``features``: every table of whole-number weights (an object of name: weight, or a
  list) whose key names weights (contains ``weight``) or one of the game's named draws
  (``Game.draw_names``, e.g. ``mystery``; a key ending in ``values`` holds amounts, not
  weights); and every ``[hits, out_of]`` pair whose key names a
  chance (drawn as ``bounded(out_of) < hits``).
* the engine's own draws a game uses: the gamble's card (a suit, uniform over 4) for a game
  offering the card gamble, the pick (1 of 2) for one offering the pick gamble, and a cell
  picked uniformly among the free cells for a game with a named ``cell`` draw.

Each draw is sampled through the same compiled kernels the rounds use, and its counts tested
against the design with Pearson's chi-square (scipy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel
from scipy.stats import chisquare

from slotforge.engine import rng
from slotforge.engine.game import Game
from slotforge.engine.jit import entry
from slotforge.engine.model import load_json

UNIFORM = "uniform"
WEIGHTED = "weighted"


@dataclass(frozen=True)
class Draw:
    """One mapped draw: where it is in the model, how it is drawn, and its design weights."""

    game: str
    where: str  # the model path, or the engine's draw
    kind: str  # UNIFORM (``bounded``) or WEIGHTED (``weighted``)
    weights: tuple[int, ...]  # the designed relative frequency of each outcome
    labels: tuple[str, ...] = ()

    @property
    def outcomes(self) -> int:
        return len(self.weights)


@dataclass(frozen=True)
class ChiSquare:
    """A chi-square test of one draw."""

    draw: Draw
    samples: int
    statistic: float
    dof: int
    p_value: float
    counts: tuple[int, ...]


def game_draws(game: Game) -> list[Draw]:
    """Every mapped draw of ``game``, found in its model file (see the module's rules)."""
    raw = load_json(game.path)
    draws = [
        Draw(game.code, f"reels.{mode}[{i}] (reel {i + 1} stop)", UNIFORM, (1,) * len(strip))
        for mode, strips in raw.get("reels", {}).items()
        for i, strip in enumerate(strips)
    ]
    for mode, tables in raw.get("cell_weights", {}).items():
        draws += [_table(game.code, f"cell_weights.{mode}[{i}]", table) for i, table in enumerate(tables)]
    features = getattr(game, "features", None)
    draws += _feature_tables(game, features if isinstance(features, BaseModel) else raw.get("features", {}), "features")
    return draws + _engine_draws(game)


def _table(code: str, where: str, table: dict[Any, int] | list[int] | tuple[int, ...]) -> Draw:
    if isinstance(table, dict):
        return Draw(code, where, WEIGHTED, tuple(table.values()), tuple(str(k) for k in table))
    return Draw(code, where, WEIGHTED, tuple(table))


def _whole_numbers(value: Any) -> bool:
    values = value.values() if isinstance(value, dict) else value if isinstance(value, list | tuple) else None
    return values is not None and len(values) > 1 and all(type(v) is int and v >= 0 for v in values)


def _names_weights(key: str, description: str, draw_names: tuple[str, ...]) -> bool:
    """A field of weights: its name or its description says so, or it is named after one of the
    game's draws (a name ending in ``values`` holds amounts, never weights)."""
    if "weight" in key or "weight" in description:
        return True
    return not key.endswith("values") and any(key.startswith(name) or name.startswith(key) for name in draw_names)


def _fields(node: Any) -> list[tuple[str, str, Any]]:
    """(name, description, value) of a validated model's fields, an object's keys or a list's items."""
    if isinstance(node, BaseModel):
        return [(name, info.description or "", getattr(node, name)) for name, info in type(node).model_fields.items()]
    if isinstance(node, dict):
        return [(str(key), "", value) for key, value in node.items()]
    if isinstance(node, list | tuple):
        return [(f"[{i}]", "", value) for i, value in enumerate(node)]
    return []


def _feature_tables(game: Game, node: Any, where: str) -> list[Draw]:
    """Weight tables, equal choices and chances under ``node`` (the game's validated ``features``,
    or the model file's), depth first."""
    found: list[Draw] = []
    for name, description, value in _fields(node):
        path = f"{where}{name}" if name.startswith("[") else f"{where}.{name}"
        weights = not name.startswith("[") and _names_weights(name, description, game.draw_names)
        if "equally" in description and isinstance(value, list | tuple) and len(value) > 1:
            found.append(Draw(game.code, f"{path} (one of {len(value)}, equally)", UNIFORM, (1,) * len(value),
                              tuple(str(v) for v in value)))
        elif weights and _whole_numbers(value):
            found.append(_table(game.code, path, value))
        elif weights and isinstance(value, list | tuple) and value and all(_whole_numbers(row) for row in value):
            found += [_table(game.code, f"{path}[{i}]", row) for i, row in enumerate(value)]
        elif "chance" in name and _whole_numbers(value) and len(value) == 2 and 0 < value[0] <= value[1]:
            hits, out_of = value
            found.append(Draw(game.code, f"{path} ({hits} in {out_of})", WEIGHTED, (hits, out_of - hits),
                              ("hit", "miss")))
        else:
            found += _feature_tables(game, value, path)
    return found


def _engine_draws(game: Game) -> list[Draw]:
    """The engine's draws that ``game`` makes: gamble cards or picks, and cell picks."""
    options = {option for decision in game.decisions for option in decision.options}
    draws = []
    if {"red", "black"} <= options:
        draws.append(
            Draw(
                game.code,
                "gamble card (suit; engine.gamble.card_result)",
                UNIFORM,
                (1,) * 4,
                ("hearts", "diamonds", "clubs", "spades"),
            )
        )
    if any(d.name == "gamble" for d in game.decisions) and not {"red", "black"} <= options:
        draws.append(Draw(game.code, "gamble pick (1 of 2; engine.gamble.pick_gamble)", UNIFORM, (1, 1)))
    if any("cell" in name for name in game.draw_names):
        rows, reels = game.grid
        draws += [
            Draw(game.code, f"cell pick among {n} free cells", UNIFORM, (1,) * n) for n in range(2, rows * reels + 1)
        ]
    return draws


# -- sampling through the round's own kernels -------------------------------------------------
@entry
def _count_bounded(stream, n, samples, counts):
    for _ in range(samples):
        counts[rng.bounded(stream, n)] += 1


@entry
def _count_weighted(stream, cumulative, samples, counts):
    for _ in range(samples):
        counts[rng.weighted(stream, cumulative)] += 1


def sample(draw: Draw, samples: int, stream: np.ndarray) -> np.ndarray:
    """Counts of each outcome over ``samples`` draws from ``stream``, through the round's kernels."""
    counts = np.zeros(draw.outcomes, dtype=np.int64)
    if draw.kind == UNIFORM:
        _count_bounded(stream, np.int64(draw.outcomes), samples, counts)
    else:
        _count_weighted(stream, np.cumsum(np.array(draw.weights, dtype=np.int64)), samples, counts)
    return counts


def chi_square(draw: Draw, counts: np.ndarray) -> ChiSquare:
    """Pearson's chi-square of ``counts`` against the draw's weights. Outcomes of weight 0 must
    never occur (any count there is a p-value of 0); they take no part in the statistic."""
    weights = np.array(draw.weights, dtype=float)
    possible = weights > 0
    samples = int(counts.sum())
    if counts[~possible].any():
        return ChiSquare(draw, samples, float("inf"), int(possible.sum()) - 1, 0.0, tuple(int(c) for c in counts))
    expected = weights[possible] / weights[possible].sum() * samples
    if possible.sum() < 2:
        return ChiSquare(draw, samples, 0.0, 0, 1.0, tuple(int(c) for c in counts))
    statistic, p_value = chisquare(counts[possible], expected)
    dof = int(possible.sum()) - 1
    return ChiSquare(draw, samples, float(statistic), dof, float(p_value), tuple(int(c) for c in counts))


def samples_for(draw: Draw, per_outcome: int) -> int:
    """Enough draws for ``per_outcome`` expected in the rarest possible outcome (at most 10^7)."""
    weights = [w for w in draw.weights if w > 0]
    return int(min(10**7, max(10_000, per_outcome * sum(weights) / min(weights))))


def check_draws(draws: list[Draw], seed: int | list[int], per_outcome: int = 50) -> list[ChiSquare]:
    """Sample and test every draw; draw ``i`` uses its own stream seeded by ``(*seed, i)``."""
    parts = seed if isinstance(seed, list) else [seed]
    return [
        chi_square(d, sample(d, samples_for(d, per_outcome), rng.xoshiro_stream([*parts, i])))
        for i, d in enumerate(draws)
    ]
