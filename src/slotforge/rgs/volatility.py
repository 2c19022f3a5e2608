"""A game's volatility as its shipped PAR sheet states it (``docs/par/GAME.md`` of a source
checkout): the standard deviation of one round, the volatility index and a word for it, and the
index of each bet configuration where the sheet simulates several. The lobby, the intro and the
paytable show it; nothing is written by hand in the client."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

SHEETS = Path(__file__).resolve().parents[3] / "docs" / "par"
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


@cache
def volatility(code: str, sheets: Path = SHEETS) -> dict[str, Any] | None:
    """``{"word", "std", "index", "by_bet"}`` from the game's PAR sheet (``std`` x total bet,
    ``index`` at 90%; ``by_bet`` lists ``{"bet", "index", "word"}`` where the sheet simulates
    several configurations), or None where no sheet is at hand (an installed package)."""
    sheet = sheets / f"{code}.md"
    if not sheet.is_file():
        return None
    text = sheet.read_text()
    found = ROUND.search(text)
    if found is None:
        return None
    std, index = found.groups()
    section = text.split(CONFIGURATIONS, 1)[1].split("\n## ", 1)[0] if CONFIGURATIONS in text else ""
    rows = CONFIGURATION.findall(section)
    by_bet = [{"bet": bet, "index": value, "word": word(value)} for bet, value in rows] if len(rows) > 1 else []
    return {"word": word(index), "std": std, "index": index, "by_bet": by_bet}
