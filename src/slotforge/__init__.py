"""slotforge: slot games that follow their published rules, with exact maths and fast simulation."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _cache_per_source_version() -> None:
    """Give numba's disk cache one folder per version of the package's source.

    numba invalidates a cached function only when the file it is defined in changes, not when
    a helper it inlines from another file does. Keying the cache folder on every source file
    makes any edit start from a clean cache. An explicit NUMBA_CACHE_DIR is left alone.
    """
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    os.environ["NUMBA_CACHE_DIR"] = str(base / "slotforge" / "numba" / digest.hexdigest()[:16])


_cache_per_source_version()
