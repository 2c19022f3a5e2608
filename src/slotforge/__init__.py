"""slotforge: slot games that follow their published rules, with exact maths and fast simulation."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"

# The subpackages whose modules numba compiles (directly or by inlining).
COMPILED_PACKAGES = ("engine", "games", "maths")


def _cache_per_source_version() -> None:
    """Give numba's disk cache one folder per version of the package's source.

    numba invalidates a cached function only when the file it is defined in changes, not when
    a helper it inlines from another file does. Keying the cache folder on every source file of
    the packages that hold compiled code (the engine, the games, the maths) makes any edit there
    start from a clean cache, while an edit to the command line or the server keeps it. An
    explicit NUMBA_CACHE_DIR is left alone.
    """
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = Path(__file__).parent
    digest = hashlib.sha256()
    compiled = [path for package in COMPILED_PACKAGES for path in (root / package).rglob("*.py")]
    for path in sorted(compiled):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    os.environ["NUMBA_CACHE_DIR"] = str(base / "slotforge" / "numba" / digest.hexdigest()[:16])


_cache_per_source_version()
