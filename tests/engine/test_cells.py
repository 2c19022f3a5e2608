"""Independent-reel grids and count-anywhere pays with "only the highest win": a 4x4 test model
of sixteen one-cell reels, against a plain reading of the rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from slotforge.engine import events, rng
from slotforge.engine.evaluate import (
    compile_cells,
    compile_count_table,
    count_wins,
    shown_count_wins,
    window_masks,
)
from slotforge.engine.model import LineGameSpec, ModelError, validate
from slotforge.engine.outcomes import make_outcomes
from slotforge.engine.spin import land_cells

CODES = ["WILD", "ACE", "KING", "JACK", "COIN"]
RAW = {
    "game": "cells-test",
    "name": "Cells test",
    "version": "1",
    "rtp": "0.9",
    "grid": {"reels": 4, "rows": 4},
    "symbols": [
        {"code": "WILD", "kind": "wild"},
        {"code": "ACE", "kind": "high"},
        {"code": "KING", "kind": "low"},
        {"code": "JACK", "kind": "low"},
        {"code": "COIN", "kind": "bonus"},
    ],
    "wild": {"symbol": "WILD", "substitutes_except": ["COIN"], "needs_paying_symbol": True},
    # Paytable order ACE, KING, JACK: of two equal wins, the one listed first is paid.
    "count_pays": {"ACE": {"10": "2", "12": "5"}, "KING": {"10": "2", "11": "3"}, "JACK": {"10": "0.4"}},
    "count_rule": "highest",
    "pay_scale": 10,
    "cell_weights": {"base": [{"WILD": 1, "ACE": 3, "KING": 4, "JACK": 6, "COIN": 2}]},
    "bet": {},
}
SPEC = LineGameSpec.model_validate(RAW)
TABLE = compile_count_table(SPEC)
CELLS = compile_cells(SPEC, "base")
ID = {code: i for i, code in enumerate(CODES)}


def screen(*runs: tuple[str, int]) -> np.ndarray:
    """A 4x4 screen filled in reading order with runs of (symbol, how many)."""
    cells = [ID[code] for code, n in runs for _ in range(n)]
    assert len(cells) == 16
    return np.array(cells, dtype=np.int64).reshape(4, 4)


def shown_of(window: np.ndarray) -> np.ndarray:
    return np.bincount(window.ravel(), minlength=len(CODES)).astype(np.int64)


def paid(window: np.ndarray) -> tuple[int, list[tuple[str, int, int]]]:
    """The win in units and the count wins logged, through the fast (shown) evaluator."""
    log = events.new_log(16)
    total = shown_count_wins(TABLE, shown_of(window), 1, log)
    wins = [(CODES[int(r[1])], int(r[2]), int(r[3])) for r in events.rows(log) if r[0] == events.COUNT_WIN]
    return int(total), wins


def paid_by_stops(window: np.ndarray) -> int:
    """The same screen through the per-stop evaluator, as one-cell reels at stop 0."""
    masks = np.zeros((4, 1, len(CODES)), dtype=np.uint64)
    counts = np.zeros((4, 1, len(CODES)), dtype=np.int64)
    window_masks(window, np.zeros((1, 4), dtype=np.int64), TABLE.counts_as, masks, counts)
    return int(count_wins(TABLE, counts, np.zeros(4, dtype=np.int64), 1, events.off()))


def test_only_the_highest_win_is_paid():
    # 5 WILD, 5 ACE, 6 KING: ACE counts 10 (2x = 20 units), KING 11 (3x = 30 units): KING only.
    assert paid(screen(("WILD", 5), ("ACE", 5), ("KING", 6))) == (30, [("KING", 11, 30)])


def test_of_two_equal_wins_the_symbol_higher_in_the_paytable():
    # 4 WILD, 6 ACE, 6 KING: both count 10 and pay 2x; ACE is listed first.
    assert paid(screen(("WILD", 4), ("ACE", 6), ("KING", 6))) == (20, [("ACE", 10, 20)])
    # Listed the other way round, KING wins the tie.
    reordered = {**RAW, "count_pays": {"KING": RAW["count_pays"]["KING"], "ACE": RAW["count_pays"]["ACE"],
                                       "JACK": RAW["count_pays"]["JACK"]}}
    table = compile_count_table(LineGameSpec.model_validate(reordered))
    log = events.new_log(4)
    assert shown_count_wins(table, shown_of(screen(("WILD", 4), ("ACE", 6), ("KING", 6))), 1, log) == 20
    assert [int(r[1]) for r in events.rows(log)] == [ID["KING"]]


def test_a_fraction_of_the_bet_is_exact_in_units():
    # 10 JACK pay 0.4x: 4 units at 10 units per paytable unit.
    assert paid(screen(("JACK", 10), ("COIN", 6))) == (4, [("JACK", 10, 4)])


def test_wilds_pay_only_with_a_paying_symbol():
    assert paid(screen(("WILD", 16))) == (0, [])
    assert paid(screen(("WILD", 12), ("COIN", 4))) == (0, [])
    # One ACE makes the wilds count: 13 ACE pay as 12 or more (5x).
    assert paid(screen(("WILD", 12), ("ACE", 1), ("COIN", 3))) == (50, [("ACE", 13, 50)])


def test_a_fraction_that_is_not_whole_in_units_is_refused():
    broken = {**RAW, "count_pays": {**RAW["count_pays"], "JACK": {"10": "0.45"}}}
    with pytest.raises(ModelError, match="count_pays.JACK: pay 0.45 for 10 is not a whole number of units"):
        validate(LineGameSpec, broken, "cells.json")


def test_cell_weights_must_fit_the_grid():
    broken = {**RAW, "cell_weights": {"base": [{"ACE": 1}] * 3}}
    with pytest.raises(ModelError, match="cell_weights.base: expected 1 or 16 weight tables, got 3"):
        validate(LineGameSpec, broken, "cells.json")


def plain_reading(window: np.ndarray) -> tuple[int, str | None]:
    """The rules read plainly: each paying symbol counts itself and the wilds, needs one of its
    own, pays its highest listed count; the highest pay wins, ties to the earlier symbol."""
    cells = [CODES[c] for c in window.ravel()]
    best, winner = 0, None
    for code, pays in SPEC.count_pays.items():
        own = cells.count(code)
        n = own + cells.count("WILD")
        pay = int(max([p for c, p in pays.items() if c <= n], default=0) * 10) if own else 0
        if pay > best:
            best, winner = pay, code
    return best, winner


screens = st.lists(st.sampled_from(range(len(CODES))), min_size=16, max_size=16).map(
    lambda cells: np.array(cells, dtype=np.int64).reshape(4, 4)
)
# Screens crowded with few symbols, so that wins (and ties) are common.
crowded = st.lists(st.sampled_from([ID["WILD"], ID["ACE"], ID["KING"]]), min_size=16, max_size=16).map(
    lambda cells: np.array(cells, dtype=np.int64).reshape(4, 4)
)


@settings(max_examples=300, deadline=None)
@given(window=st.one_of(screens, crowded))
def test_count_wins_match_the_plain_reading(window):
    expected, winner = plain_reading(window)
    total, wins = paid(window)
    assert total == expected
    assert [w[0] for w in wins] == ([winner] if winner else [])
    assert paid_by_stops(window) == expected


@settings(max_examples=200, deadline=None)
@given(window=crowded, cell=st.integers(0, 15))
def test_a_wild_never_lowers_the_win(window, cell):
    """A WILD never lowers the win, unless it takes the last cell of the symbol it replaces (wilds
    need a paying symbol)."""
    before = paid(window)[0]
    changed = window.copy()
    replaced = changed.ravel()[cell]
    if replaced == ID["WILD"] or (changed == replaced).sum() == 1:
        return
    changed.ravel()[cell] = ID["WILD"]
    assert paid(changed)[0] >= before


def test_held_cells_keep_their_symbol_and_the_rest_draw():
    held = np.full(16, -1, dtype=np.int64)
    held[[0, 5, 15]] = ID["COIN"]
    window = np.zeros((4, 4), dtype=np.int64)
    shown = np.zeros(len(CODES), dtype=np.int64)
    outcomes = make_outcomes(rng.xoshiro_stream(3), (4, 4))
    for _ in range(50):
        assert land_cells(CELLS, outcomes, held, window, shown) == -1
        assert window.ravel()[[0, 5, 15]].tolist() == [ID["COIN"]] * 3
        assert shown.sum() == 16 and shown.tolist() == shown_of(window).tolist()


def test_a_forced_screen_lands_as_scripted():
    forced = screen(("ACE", 10), ("COIN", 6))
    outcomes = make_outcomes(rng.xoshiro_stream(3), (4, 4), screens=[forced])
    window = np.zeros((4, 4), dtype=np.int64)
    shown = np.zeros(len(CODES), dtype=np.int64)
    assert land_cells(CELLS, outcomes, np.full(16, -1, dtype=np.int64), window, shown) == 0
    assert (window == forced).all() and shown[ID["ACE"]] == 10


def test_every_cell_draws_its_weights():
    """200,000 screens (3.2 million cells): each symbol's share matches its weight (chi-square,
    fixed seed, rejecting at 1%)."""
    outcomes = make_outcomes(rng.xoshiro_stream(11), (4, 4))
    held = np.full(16, -1, dtype=np.int64)
    window = np.zeros((4, 4), dtype=np.int64)
    shown = np.zeros(len(CODES), dtype=np.int64)
    total = np.zeros(len(CODES), dtype=np.int64)
    for _ in range(200_000 // 1000):
        for _ in range(1000):
            land_cells(CELLS, outcomes, held, window, shown)
            total += shown
    weights = np.array([RAW["cell_weights"]["base"][0][code] for code in CODES], dtype=float)
    expected = weights / weights.sum() * total.sum()
    assert chisquare(total, expected).pvalue > 0.01
