"""``slotforge design``: a target RTP (and optionally a hit rate and a volatility index) to a
version's model file.

For each shape the game's designer offers (how a change is spread: base or feature strips),
every part's levers are bisected on the RTP (:class:`~.search.Search`); the shapes' results
are then compared on the secondary targets by a seeded simulation (common random numbers), and
the closest wins. Without secondary targets the first shape alone is searched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from slotforge.design.designers import Designer, designer_for
from slotforge.design.figures import RoundFigures, round_figures, rtp_figures
from slotforge.design.search import Search, Unreachable, Values
from slotforge.engine.game import Game

# The search stops within this of the target; a version's label must hold within LABEL_TOLERANCE.
SEARCH_TOLERANCE = 0.00004
LABEL_TOLERANCE = 0.0001
DESIGN_ROUNDS = 200_000
DESIGN_SEED = 1
SWEEPS = 4  # passes over the parts of a game designed part by part


@dataclass(frozen=True)
class Targets:
    """What the designer asks for: RTP (a fraction), hit rate (a fraction) and volatility index."""

    rtp: float
    hit_rate: float | None = None
    volatility: float | None = None

    def distance(self, figures: RoundFigures) -> float:
        """How far ``figures`` are from the secondary targets, each relative to its target."""
        far = 0.0
        if self.hit_rate is not None:
            far += ((figures.hit_rate - self.hit_rate) / self.hit_rate) ** 2
        if self.volatility is not None:
            far += ((figures.volatility_index - self.volatility) / self.volatility) ** 2
        return far


@dataclass
class Candidate:
    shape: float
    values: Values
    game: Game
    rtp: float
    figures: RoundFigures | None = None


@dataclass
class Design:
    """A designed version: its model (to write), the game, and the figures against the targets."""

    raw: dict[str, Any]
    game: Game
    chosen: Candidate
    reached: dict[str, Any]
    published: dict[str, Any]


def design(code: str, targets: Targets, name: str, keep_feature_rate: bool = False,
           progress: Callable[[str], None] = lambda _text: None, rounds: int = DESIGN_ROUNDS) -> Design:
    """Search a version of ``code`` for ``targets``; raises :class:`Unreachable` when the RTP
    cannot be reached within the rules or the levers stop short of the label's tolerance."""
    designer = designer_for(code, keep_feature_rate)
    secondary = targets.hit_rate is not None or targets.volatility is not None
    shapes = designer.shapes() if secondary else designer.shapes()[:1]
    candidates = []
    for shape in shapes:
        progress(f"shape {shape:g}: searching the levers")
        candidate = solve_shape(designer, targets.rtp, shape, progress)
        if secondary:
            progress(f"shape {shape:g}: simulating {rounds:,} rounds for the hit rate and volatility")
            candidate.figures = round_figures(candidate.game, rounds, DESIGN_SEED)
        candidates.append(candidate)
    chosen = min(candidates, key=lambda c: targets.distance(c.figures) if c.figures else 0.0)
    if abs(chosen.rtp - targets.rtp) > LABEL_TOLERANCE:
        raise Unreachable(f"--rtp: the closest the levers reach is {chosen.rtp:.4%}, not within "
                          f"{LABEL_TOLERANCE * 100:.2f} points of {targets.rtp:.2%}: no version written")
    raw = labelled(designer, chosen, targets, name)
    game = designer.load(raw)
    progress(f"simulating {rounds:,} rounds of the version and of the published model")
    published_rtp = max((designer.rtp(designer.published, part) for part in designer.parts()),
                        key=lambda rtp: abs(rtp - float(designer.published.spec.rtp)))
    return Design(raw, game, chosen, summary(designer, game, chosen.rtp, rounds),
                  summary(designer, designer.published, published_rtp, rounds))


def solve_shape(designer: Designer, target: float, shape: float, progress: Callable[[str], None],
                start: Values | None = None) -> Candidate:
    """Every part's levers searched in turn, for one shape, from ``start`` (the published values
    when None). Parts may share a little (one configuration's weights can touch another's
    RTP), so the sweep over the parts repeats, from where it ended, until every part is within
    the tolerance (at most ``SWEEPS`` times)."""
    values: Values = dict(start or {})
    for _ in range(SWEEPS):
        for part in designer.parts():
            values.update(solve_part(designer, target, shape, part, values, progress))
        game = designer.load(designer.build(values, shape))
        rtps = [designer.rtp(game, part) for part in designer.parts()]
        farthest = max(rtps, key=lambda rtp: abs(rtp - target))
        if abs(farthest - target) <= SEARCH_TOLERANCE or len(rtps) == 1:
            break
        progress(f"shape {shape:g}: a part moved to {farthest:.4%} as the others were set: sweeping again")
    return Candidate(shape, values, game, farthest)


def solve_part(designer: Designer, target: float, shape: float, part: str, values: Values,
               progress: Callable[[str], None]) -> Values:
    """The levers of one part searched from their current values, the other parts held."""
    def rtp(trial: Values) -> float:
        return designer.rtp_of({**values, **trial}, shape, part)

    levers = [replace(lever, start=values.get(lever.name, lever.start)) for lever in designer.levers(part, shape)]
    where = f"{part}: " if part else ""
    search = Search(levers, rtp, target, SEARCH_TOLERANCE,
                    progress=lambda text: progress(f"shape {shape:g}: {where}{text}"))
    return search.run()


def labelled(designer: Designer, chosen: Candidate, targets: Targets, name: str) -> dict[str, Any]:
    """The chosen model with the version's name, label and design notes."""
    raw = designer.build(chosen.values, chosen.shape)
    raw["version"] = name
    raw["rtp"] = str(Decimal(f"{targets.rtp:.6f}").normalize())
    designer.label(raw, chosen.game)
    raw["design"] = {
        **raw.get("design", {}),
        "version": {
            "command": f"slotforge design {designer.code} --rtp {targets.rtp * 100:g}",
            "targets": {k: v for k, v in vars(targets).items() if v is not None},
            "levers": chosen.values,
            "shape": chosen.shape,
        },
    }
    return raw


def summary(designer: Designer, game: Game, rtp: float, rounds: int) -> dict[str, Any]:
    """The RTP as the search priced it (the farthest from the label of every part), hit rate and
    volatility (seeded simulation), and the feature rates the game's report states where that
    report is exact (a simulated one is left to ``slotforge certify``)."""
    figures = round_figures(game, rounds, DESIGN_SEED)
    features = rtp_figures(game)["features"] if designer.report_is_exact else {}
    return {"rtp": rtp, "hit_rate": figures.hit_rate, "volatility_index": figures.volatility_index, **features}
