"""A game's volatility as its shipped PAR sheet states it: the standard deviation of one round,
the volatility index and a word for it, and the index of each bet configuration where the sheet
simulates several. The lobby, the intro and the paytable show it; nothing is written by hand in
the client.

The figures are shipped beside this module in ``volatility.json`` (package data: an installed
package has no ``docs/par``). ``slotforge par --shipped`` writes each game's entry with its sheet,
from the data the sheet is made from (:func:`slotforge.reports.par_figures.volatility_figures`).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

FIGURES = Path(__file__).with_name("volatility.json")
# Words for the volatility index at 90% (the usual bands: below 5 low, 5 to 10 medium, ...).
BANDS = ((5.0, "low"), (10.0, "medium"), (15.0, "medium-high"))


def word(index: str) -> str:
    """The word for a volatility index."""
    return next((name for limit, name in BANDS if float(index) < limit), "high")


@cache
def shipped(figures: Path = FIGURES) -> dict[str, dict[str, Any]]:
    """The figures shipped with the package (empty where the file is missing)."""
    return json.loads(figures.read_text()) if figures.is_file() else {}


def volatility(code: str, figures: Path = FIGURES) -> dict[str, Any] | None:
    """``{"word", "std", "index", "by_bet"}`` of a game (``by_bet`` with a word for each
    configuration), from the figures shipped with the package; None for a game without them."""
    found = shipped(figures).get(code)
    if found is None:
        return None
    by_bet = [{**row, "word": word(row["index"])} for row in found["by_bet"]]
    return {"word": word(found["index"]), "std": found["std"], "index": found["index"], "by_bet": by_bet}


def record(code: str, figures: dict[str, Any], path: Path | None = None) -> None:
    """Ship ``figures`` (``{"std", "index", "by_bet"}``) as the volatility of ``code``, the other
    games' kept as they are (in :data:`FIGURES` unless ``path`` names another file)."""
    path = FIGURES if path is None else path
    found = json.loads(path.read_text()) if path.is_file() else {}
    found[code] = figures
    path.write_text(json.dumps(dict(sorted(found.items())), indent=2, ensure_ascii=False) + "\n")
    shipped.cache_clear()
