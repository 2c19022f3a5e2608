"""Random numbers behind one interface, for live play and for simulation.

A random stream is a single ``uint64`` array so that it crosses the boundary between Python
and numba-compiled round functions without wrapping. Its header says where the words come from:

* ``BUFFER``: a list of words drawn in advance, in live play from the operating system's
  cryptographically secure source (:func:`secure_stream`), in replay from a round record.
  When a round needs more words than the buffer holds, the stream keeps answering (from a
  fallback generator, so that no loop can spin on a dead source) and raises its
  ``EXHAUSTED`` flag; the caller then extends the buffer and plays the round again.
* ``XOSHIRO``: xoshiro256** (Blackman and Vigna), a fast generator for simulation, seeded
  through numpy's ``SeedSequence`` so that streams for different chunks are independent.

Bounded integers use Lemire's multiply-and-reject method on the upper 32 bits of a word: no
modulo bias, and a rejection only for the rare low products. Weighted draws map a bounded
integer onto cumulative weights.
"""

from __future__ import annotations

import secrets
from functools import lru_cache

import numpy as np

from slotforge.engine.jit import kernel

MODE = 0
CURSOR = 1
LENGTH = 2
EXHAUSTED = 3
STATE = 4  # four words of xoshiro state (also the fallback of a buffer)
HEADER = 8

XOSHIRO = 0
BUFFER = 1

_U32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1) << np.uint64(32)


def seeded_state(entropy: int | list[int]) -> np.ndarray:
    """Four xoshiro state words from a seed (or a list of seed parts), never all zero."""
    state = np.random.SeedSequence(entropy).generate_state(4, dtype=np.uint64)
    if not state.any():
        state[0] = 1
    return state


@lru_cache(maxsize=64)
def _fallback_state(length: int) -> np.ndarray:
    """A buffer's fallback state, seeded from its length: the same for every buffer of a length,
    so made once per length (seeding costs more than the rest of a live round's stream)."""
    state = seeded_state(length)
    state.flags.writeable = False
    return state


def xoshiro_stream(seed: int | list[int]) -> np.ndarray:
    """A fast simulation stream: xoshiro256** seeded from ``seed``."""
    stream = np.zeros(HEADER, dtype=np.uint64)
    stream[MODE] = XOSHIRO
    stream[STATE : STATE + 4] = seeded_state(seed)
    return stream


def buffer_stream(words: np.ndarray | list[int]) -> np.ndarray:
    """A stream that replays ``words`` in order (recorded or drawn in advance)."""
    words = np.asarray(words, dtype=np.uint64)
    stream = np.zeros(HEADER + len(words), dtype=np.uint64)
    stream[MODE] = BUFFER
    stream[LENGTH] = len(words)
    stream[STATE : STATE + 4] = _fallback_state(len(words))
    stream[HEADER:] = words
    return stream


def secure_words(count: int) -> np.ndarray:
    """``count`` words from the operating system's cryptographically secure source."""
    return np.frombuffer(secrets.token_bytes(8 * count), dtype=np.uint64).copy()


def secure_stream(count: int = 1024) -> np.ndarray:
    """A live-play stream of ``count`` cryptographically secure words."""
    return buffer_stream(secure_words(count))


def consumed_words(stream: np.ndarray) -> np.ndarray:
    """The buffered words a round actually used (what a round record keeps for replay)."""
    return stream[HEADER : HEADER + int(min(stream[CURSOR], stream[LENGTH]))].copy()


def is_exhausted(stream: np.ndarray) -> bool:
    """True when a buffered stream ran past its words during the last round."""
    return bool(stream[EXHAUSTED])


@kernel
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel
def _xoshiro_step(s0, s1, s2, s3):
    """One step of xoshiro256** on a state in four words: (the word drawn, the state after)."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@kernel
def _xoshiro_next(stream):
    word, s0, s1, s2, s3 = _xoshiro_step(stream[STATE], stream[STATE + 1], stream[STATE + 2], stream[STATE + 3])
    stream[STATE] = s0
    stream[STATE + 1] = s1
    stream[STATE + 2] = s2
    stream[STATE + 3] = s3
    return word


@kernel
def next_word(stream):
    """The next 64-bit word of the stream."""
    if stream[MODE] == XOSHIRO:
        return _xoshiro_next(stream)
    cursor = stream[CURSOR]
    stream[CURSOR] = cursor + np.uint64(1)
    if cursor < stream[LENGTH]:
        return stream[HEADER + cursor]
    stream[EXHAUSTED] = np.uint64(1)
    return _xoshiro_next(stream)


@kernel
def bounded(stream, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32``, without modulo bias."""
    bound = np.uint64(n)
    product = (next_word(stream) >> np.uint64(32)) * bound
    low = product & _U32
    if low < bound:
        threshold = (_TWO32 - bound) % bound
        while low < threshold:
            product = (next_word(stream) >> np.uint64(32)) * bound
            low = product & _U32
    return np.int64(product >> np.uint64(32))


# Many draws in a row: a loop that draws on every pass keeps a simulation stream's state in
# registers instead of loading and storing it on every draw:
#
#     in_registers, state = holds(stream), hold(stream)
#     for ...:
#         value, state = bounded_on(stream, in_registers, state, n)
#     release(stream, in_registers, state)
#
# The words and the values are those of ``bounded``; a buffered stream is never held.
@kernel
def holds(stream):
    """Whether the stream's state can be held in registers: a simulation stream."""
    return stream[MODE] == XOSHIRO


@kernel
def hold(stream):
    """The xoshiro state of a simulation stream, to draw on in registers."""
    return stream[STATE], stream[STATE + 1], stream[STATE + 2], stream[STATE + 3]


@kernel
def release(stream, in_registers, state):
    """Store a held state back into its stream (when it was held)."""
    if in_registers:
        stream[STATE], stream[STATE + 1], stream[STATE + 2], stream[STATE + 3] = state


@kernel
def bounded_on(stream, in_registers, state, n):
    """:func:`bounded`, on the held ``state`` when ``in_registers``: (the value, the state after)."""
    if in_registers:
        return bounded_held(state, n)
    return bounded(stream, n), state


@kernel
def bounded_held(held, n):
    """:func:`bounded` on a held state: (the same value, the state after)."""
    bound = np.uint64(n)
    word, s0, s1, s2, s3 = _xoshiro_step(held[0], held[1], held[2], held[3])
    product = (word >> np.uint64(32)) * bound
    low = product & _U32
    if low < bound:
        threshold = (_TWO32 - bound) % bound
        while low < threshold:
            word, s0, s1, s2, s3 = _xoshiro_step(s0, s1, s2, s3)
            product = (word >> np.uint64(32)) * bound
            low = product & _U32
    return np.int64(product >> np.uint64(32)), (s0, s1, s2, s3)


@kernel
def weighted(stream, cumulative):
    """An index drawn with probability proportional to its weight.

    ``cumulative`` holds the running sums of the weights (its last entry is the total).
    """
    pick = bounded(stream, cumulative[-1])
    index = 0
    while cumulative[index] <= pick:
        index += 1
    return index
