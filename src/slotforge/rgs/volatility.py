"""A game's volatility as its shipped PAR sheet states it: the standard deviation of one round,
the volatility index and a word for it, and the index of each bet configuration where the sheet
simulates several. The lobby, the intro and the paytable show it; nothing is written by hand in
the client.

The sheets live in ``docs/par/`` of a source checkout, which an installed package does not have;
their figures are shipped beside this module in ``volatility.json`` (package data), read from
the sheets by ``python -m slotforge.rgs.volatility`` (run it after regenerating the sheets: a test
fails while the file differs from them).
"""

from __future__ import annotations

import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

SHEETS = Path(__file__).resolve().parents[3] / "docs" / "par"
FIGURES = Path(__file__).with_name("volatility.json")
ROUND = re.compile(r"Standard deviation of one round: ([\d.]+) x total bet\. "
                   r"Volatility index \(z x standard deviation\): \*\*([\d.]+)\*\* at 90% confidence")
CONFIGURATIONS = "## RTP per bet configuration"
# A row of that section: | bet | simulated RTP (99%) | hit frequency | volatility index (90%) |
CONFIGURATION = re.compile(r"^\| ([^|]+?) \| [\d.]+% ± [^|]+ \| [\d.]+% \| ([\d.]+) \|$", re.M)
# Words for the volatility index at 90% (the usual bands: below 5 low, 5 to 10 medium, ...).
BANDS = ((5.0, "low"), (10.0, "medium"), (15.0, "medium-high"))


def word(index: str) -> str:
    """The word for a volatility index."""
    return next((name for limit, name in BANDS if float(index) < limit), "high")


def sheet_figures(text: str) -> dict[str, Any] | None:
    """``{"std", "index", "by_bet"}`` as a PAR sheet's text states them (``std`` x total bet,
    ``index`` at 90%; ``by_bet`` lists ``{"bet", "index"}`` where the sheet simulates several
    configurations), or None where the sheet states no volatility."""
    found = ROUND.search(text)
    if found is None:
        return None
    std, index = found.groups()
    section = text.split(CONFIGURATIONS, 1)[1].split("\n## ", 1)[0] if CONFIGURATIONS in text else ""
    rows = CONFIGURATION.findall(section)
    by_bet = [{"bet": bet, "index": value} for bet, value in rows] if len(rows) > 1 else []
    return {"std": std, "index": index, "by_bet": by_bet}


def read_sheets(sheets: Path = SHEETS) -> dict[str, dict[str, Any]]:
    """The figures of every sheet in ``sheets`` that states them, by game code."""
    found = {path.stem: sheet_figures(path.read_text()) for path in sorted(sheets.glob("*.md"))}
    return {code: figures for code, figures in found.items() if figures is not None}


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


def write(sheets: Path = SHEETS, figures: Path = FIGURES) -> dict[str, dict[str, Any]]:
    """Write the sheets' figures into the file the package ships."""
    found = read_sheets(sheets) if sheets.is_dir() else {}
    if not found:
        raise SystemExit(f"no PAR sheet with a volatility in {sheets}: the sheets live in a source checkout")
    figures.write_text(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    return found


if __name__ == "__main__":
    written = write(Path(sys.argv[1]) if len(sys.argv) > 1 else SHEETS)
    print(f"{FIGURES}: the volatility of {', '.join(written)}")
