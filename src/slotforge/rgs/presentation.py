"""What the browser client shows that only the game knows: a bet's stake as a rule the client
can apply to any bet it offers (so no stake formula is repeated in TypeScript), and the resting
screen shown before a player's first spin (a real screen of the game's own reels, not a win).

Both are derived from the game itself (its bet parser, its reels and pays) and published with the
game's model (``GET /v1/games/{code}``) and the session's games; ``tests/rgs/test_presentation.py``
checks the stake rule against the game's own stake for every bet it offers.
"""

from __future__ import annotations

import itertools
import math
import random
from decimal import Decimal
from typing import Any

from slotforge.engine.game import Game
from slotforge.engine.model import paylines

PLAIN_KINDS = {"high", "medium", "low"}  # symbols that only pay in lines or counts


def stake_rule(game: Game) -> dict[str, Any]:
    """``{"amount": field, "times": [fields], "factor": n}``: a bet's stake is the ``amount``
    field's value times each ``times`` field's times ``factor`` (Dynasty: coin value x lines x
    coins per line; Golden Grimoire: coin value x bet level x 20)."""
    bet = game.parse_bet(None)
    amounts = [name for name, value in bet.fields.items() if isinstance(value, Decimal)]
    counts = [name for name, value in bet.fields.items() if isinstance(value, int) and not isinstance(value, bool)]
    if len(amounts) != 1:
        raise ValueError(f"{game.code}: a stake rule needs one amount field, found {amounts}")
    product = bet.fields[amounts[0]] * math.prod(bet.fields[name] for name in counts)
    factor = bet.total_bet / product
    if factor != factor.to_integral_value():
        raise ValueError(f"{game.code}: the stake {bet.total_bet} is no whole multiple of {product}")
    return {"amount": amounts[0], "times": counts, "factor": int(factor)}


_resting: dict[str, list[list[str]]] = {}


def resting_screen_of(game: Game) -> list[list[str]]:
    """The game's resting screen, found once per model."""
    if game.model_id not in _resting:
        _resting[game.model_id] = resting_screen(game)
    return _resting[game.model_id]


def resting_screen(game: Game, tries: int = 2000) -> list[list[str]]:
    """A screen cut from the game's base reels (stops drawn from a fixed seed, so every page shows
    the same) with only plain symbols on it and nothing that pays or looks like a win: no paying
    run on a payline, no three alike starting a row, no count that pays."""
    rows, reels = game.grid
    kinds = {symbol.code: symbol.kind for symbol in game.spec.symbols}
    strips = base_reels(game, reels)
    draw = random.Random(f"resting {game.code}")
    for _ in range(tries):
        columns = [window(strip, draw, rows) for strip in strips]
        screen = [[columns[reel][row] for reel in range(reels)] for row in range(rows)]
        plain = all(kinds.get(code) in PLAIN_KINDS for line in screen for code in line)
        if plain and not looks_like_a_win(game, screen):
            return screen
    raise ValueError(f"{game.code}: no resting screen without a win in {tries} draws")


def base_reels(game: Game, reels: int) -> list[list[str] | dict[str, Any]]:
    """Each reel's base strip (a list of symbols), or its cells' weights (Moon of Fortune's
    independent cells: one table for every cell)."""
    spec = game.spec
    weights = getattr(spec, "cell_weights", None)
    if weights:
        table = next(iter(weights.values()))[0]
        return [table] * reels
    return list(spec.reels["base"])


def window(strip: list[str] | dict[str, Any], draw: random.Random, rows: int) -> list[str]:
    """A reel's symbols from top to bottom: consecutive symbols of its strip from a drawn stop, or
    cells drawn one by one by their weights."""
    if isinstance(strip, dict):
        return draw.choices([code for code in strip], weights=[strip[code] for code in strip], k=rows)
    stop = draw.randrange(len(strip))
    return [strip[(stop + row) % len(strip)] for row in range(rows)]


def looks_like_a_win(game: Game, screen: list[list[str]]) -> bool:
    spec = game.spec
    line_pays = getattr(spec, "line_pays", None) or {}
    if spec.paylines:
        for line in paylines(spec.paylines):
            symbols = [screen[row][reel] for reel, row in enumerate(line)]
            first = symbols[0]
            run = len(list(itertools.takewhile(first.__eq__, symbols)))
            if run >= min(line_pays.get(first, {run + 1: 0})):
                return True
    if any(line[0] == line[1] == line[2] for line in screen):
        return True
    columns = [{line[reel] for line in screen} for reel in range(3)]
    if columns[0] & columns[1] & columns[2]:  # a symbol on each of the first three reels reads as a win
        return True
    count_pays = getattr(spec, "count_pays", None) or {}
    counts = {code: sum(line.count(code) for line in screen) for code in count_pays}
    return any(counts[code] >= min(pays) for code, pays in count_pays.items())
