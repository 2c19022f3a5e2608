"""How Golden Grimoire's reel strips and Mystery weights were designed.

Run ``python tools/design_golden_grimoire.py`` to lay the strips out again from the stack
counts below, compute the exact base game and the simulated free spins for every Mystery
symbol, solve the WILD weights so that the RTP is 96.44%, and write strips and weights into
the model file. The layout and the simulation are seeded, so the same counts always give the
same model. ``--layout-only`` writes the strips with the current weights and stops.

Design choices:
- Every paying symbol is fully stacked: stacks of 4, as tall as the reel, never two stacks of
  one symbol back to back. So a reel often shows one symbol from top to bottom, and a Mystery
  that matches reel 1 fills whole rows: many small wins, a hit on about every other spin.
- SCATTER (reels 1, 3, 5), MYSTERY (reels 3-5) and STICKY_MYSTERY (reels 2-5) are single
  stops, always between two stacks, so a window shows at most one of each per reel.
- Both games' RTP is linear in the Mystery weights (each spin's win is an average over the
  drawn symbol), so the design computes the win for every drawn symbol once and solves the
  base game's WILD weight directly; the free-spin figures come from a seeded simulation of
  the feature. Free spins draw WILD for half the Sticky Mysteries: they carry about a fifth
  of the RTP, triggered about once in 140 rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from slotforge.games.golden_grimoire.kernels import POOL  # noqa: E402
from slotforge.games.golden_grimoire.maths import base_by_draw, free_by_draw, trigger_chance  # noqa: E402
from slotforge.games.golden_grimoire.rules import GoldenGrimoire  # noqa: E402

MODEL = ROOT / "src/slotforge/games/golden_grimoire/model.json"
TARGET = 0.9644
STACK = 4
SINGLES = ("SCATTER", "MYSTERY", "STICKY_MYSTERY")
WEIGHT_TOTAL = 10_000  # weights are whole numbers out of this total

# Stacks of each paying symbol and single stops of the feature symbols, per reel. Reels 1-3
# lean on the low symbols (CLUB and SPADE in 7 stacks of 23) so that three-of-a-kind is common:
# the hit frequency. Reels 4-5 are more even, so that long wins come mostly from Mysteries.
LEAN = {"SPIDER": 1, "OCTOPUS": 1, "SNAKE": 1, "BEETLE": 1, "HEART": 3, "DIAMOND": 3, "CLUB": 7, "SPADE": 7}
EVEN = {"SPIDER": 1, "OCTOPUS": 1, "SNAKE": 2, "BEETLE": 2, "HEART": 3, "DIAMOND": 3, "CLUB": 6, "SPADE": 6}
SCATTERS = 5
MYSTERIES = 4
STICKIES = 3
BASE = [
    {**LEAN, "SCATTER": SCATTERS},
    {**LEAN},
    {**LEAN, "SCATTER": SCATTERS, "MYSTERY": MYSTERIES},
    {**EVEN, "MYSTERY": MYSTERIES},
    {**EVEN, "SCATTER": SCATTERS, "MYSTERY": MYSTERIES},
]
FREE = [{**EVEN}] + [{**EVEN, "STICKY_MYSTERY": STICKIES} for _ in range(4)]
# Relative weights of the non-WILD symbols a Mystery becomes (the cheaper, the likelier).
SHARES = {"SNAKE": 12, "BEETLE": 14, "HEART": 17, "DIAMOND": 17, "CLUB": 20, "SPADE": 20}
FREE_WILD = 0.5  # free spins: half the Sticky Mysteries become WILD
# Base game: the WILD weight is solved for the target RTP.


def layout(counts: dict[str, int], seed: int) -> list[str]:
    """A strip with the given counts: full stacks, singles between stacks, all shuffled."""
    stacks = [code for code, n in counts.items() if code not in SINGLES for _ in range(n)]
    singles = [code for code, n in counts.items() if code in SINGLES for _ in range(n)]
    if len(singles) > len(stacks):
        raise ValueError(f"more single stops than gaps between stacks: {counts}")
    chooser = random.Random(seed)
    for _ in range(100_000):
        chooser.shuffle(stacks)
        if all(stacks[i] != stacks[i - 1] for i in range(len(stacks))):
            break
    else:
        raise RuntimeError(f"no layout without back-to-back stacks for {counts}")
    gaps = chooser.sample(range(len(stacks)), len(singles))
    after = dict(zip(gaps, singles, strict=True))
    strip: list[str] = []
    for i, code in enumerate(stacks):
        strip += [code] * STACK
        if i in after:
            strip.append(after[i])
    return strip


def strips(counts: dict[str, list[dict[str, int]]]) -> dict[str, list[list[str]]]:
    return {
        mode: [layout(c, seed=11 * reel + len(mode)) for reel, c in enumerate(reels)]
        for mode, reels in counts.items()
    }


def weights(shares: dict[str, int], wild: float) -> dict[str, int]:
    """Whole-number weights out of WEIGHT_TOTAL: ``wild`` for WILD, the rest by ``shares``."""
    wild_weight = round(wild * WEIGHT_TOTAL)
    rest = WEIGHT_TOTAL - wild_weight
    total = sum(shares.values())
    result = {code: rest * shares[code] // total for code in shares}
    result[min(shares, key=shares.get)] += rest - sum(result.values())
    return {"WILD": wild_weight, **{code: result[code] for code in POOL if code != "WILD"}}


def load(raw: dict) -> GoldenGrimoire:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(raw, handle)
    return GoldenGrimoire(Path(handle.name))


def rtp_for(base: dict, free: dict, trigger: float, base_w: dict[str, int], free_w: dict[str, int]) -> float:
    """RTP from the per-draw figures (x total bet) and the weights."""
    def mix(parts: dict, w: dict[str, int]) -> float:
        return parts["plain"] + sum(parts["by_draw"][code] * w[code] for code in POOL) / sum(w.values())

    return mix(base, base_w) + trigger * mix(free, free_w)


def solve(base: dict, free: dict, trigger: float) -> tuple[dict[str, int], dict[str, int], float]:
    """The base-game WILD weight that brings the RTP closest to TARGET (free weights fixed)."""
    free_w = weights(SHARES, FREE_WILD)
    best = min(
        (abs(rtp_for(base, free, trigger, weights(SHARES, w / WEIGHT_TOTAL), free_w) - TARGET), w)
        for w in range(WEIGHT_TOTAL + 1)
    )
    base_w = weights(SHARES, best[1] / WEIGHT_TOTAL)
    return base_w, free_w, rtp_for(base, free, trigger, base_w, free_w)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout-only", action="store_true", help="write the strips, keep the weights")
    args = parser.parse_args()
    raw = json.loads(MODEL.read_text())
    counts = {"base": BASE, "free": FREE}
    raw["reels"] = strips(counts)
    raw["design"] = {
        "method": "tools/design_golden_grimoire.py: stack counts per reel, seeded layout, WILD weight solved "
        "on the exact base game and the simulated free spins",
        "stack": STACK,
        "counts": counts,
    }
    if not args.layout_only:
        game = load(raw)
        base, free, trigger = base_by_draw(game), free_by_draw(game), trigger_chance(game)
        print(f"base {base}\nfree {free}\ntrigger 1 in {1 / trigger:.1f}", flush=True)
        base_w, free_w, value = solve(base, free, trigger)
        raw["features"]["mystery"]["weights"] = base_w
        raw["features"]["sticky_mystery"]["weights"] = free_w
        print(f"weights base {base_w} free {free_w}: RTP {value:.6f}")
    MODEL.write_text(json.dumps(raw, indent=1) + "\n")
    print(f"wrote {MODEL}")


if __name__ == "__main__":
    main()
