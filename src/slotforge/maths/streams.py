"""How simulated work is cut and seeded: fixed chunks, chunk ``i`` drawing from its own
xoshiro256** stream seeded by ``(seed, i)``.

The maths core below the games: the simulator, the win distribution and the games' own RTP
reports cut their work here, so that a figure depends only on the seed and the number of
rounds, never on how many workers shared the chunks.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from slotforge.engine import rng

CHUNK = 1 << 20  # rounds per chunk: the unit of work, of seeding and of progress


def chunk_stream(seed: int, chunk: int) -> np.ndarray:
    """The random words of chunk ``chunk`` of a run seeded by ``seed``."""
    return rng.xoshiro_stream([seed, chunk])


def plan(rounds: int, chunk: int = CHUNK) -> Iterator[int]:
    """Rounds per chunk: full chunks and a last partial one, produced lazily (a run of 10^15
    rounds must not build its task list first)."""
    for _ in range(rounds // chunk):
        yield chunk
    if rounds % chunk:
        yield rounds % chunk
