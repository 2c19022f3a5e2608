"""How compiled code is declared.

Hot-path helpers are inlined into their callers at numba's IR level (``inline="always"``).
Besides saving the call, this lets numba drop the reference-count updates it would otherwise
make for every array of every tuple passed across a call: on a round of a few hundred
nanoseconds those updates cost more than the game itself. Entry points (a game's round
function, the simulator's loop, the exact calculators) are compiled as ordinary functions.
All compiled code is cached on disk, and with ``NUMBA_DISABLE_JIT=1`` it all runs as plain
Python for debugging.

The simulator's loops allocate nothing (every work array is passed in), so they are compiled
without numba's runtime (``_nrt=False``): no reference counting at all, which is what lets a
complete round take well under a hundred nanoseconds.

A rare feature (free spins, a bonus game) is compiled as a function of its own, ``feature``,
so that it is not inlined into the hot loop (its code there would cost compile time and crowd
the base game's registers). It allocates nothing either, and is compiled without numba's
runtime too: compiled with it (as ``entry``), every array it reads out of a tuple costs
reference-count updates, on every spin of the feature.
"""

import warnings

from numba import njit
from numba.core import config

if config.DISABLE_JIT:
    # As plain Python, the random generator's uint64 arithmetic wraps around modulo 2**64
    # exactly as the compiled code does, which is what xoshiro256** needs; numpy would warn
    # at every wrap.
    warnings.filterwarnings("ignore", r"overflow encountered in scalar", RuntimeWarning)

kernel = njit(cache=True, inline="always")
entry = njit(cache=True)
loop = njit(cache=True, _nrt=False)
feature = njit(cache=True, _nrt=False)
