"""The shared line and scatter evaluators against a plain reading of the rules."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from slotforge.engine import events, rng
from slotforge.engine.evaluate import (
    compile_count_table,
    compile_paytable,
    count_wins,
    line_wins,
    popcount,
    ranked_line_wins,
    stop_line_wins,
    symbol_count,
    window_masks,
)
from slotforge.engine.model import LineGameSpec, paylines
from slotforge.games.dynasty.rules import Dynasty

RAW = json.loads(Dynasty.model_file.read_text())


def spec_with_wild_anywhere() -> LineGameSpec:
    """Dynasty's paytable with SEAL allowed on every reel: lines may start with a wild."""
    raw = json.loads(json.dumps(RAW))
    raw["symbols"][0]["reels"] = None
    return LineGameSpec.model_validate(raw)


SPECS = {"dynasty": LineGameSpec.model_validate(RAW), "wild anywhere": spec_with_wild_anywhere()}


def reference_line_win(spec: LineGameSpec, cells: list[str]) -> int:
    """The rules read plainly: the highest pay any symbol makes from reel 1, wilds standing in."""
    wild = spec.wild.symbol
    best = 0
    for symbol, pays in spec.line_pays.items():
        count = 0
        for cell in cells:
            if cell == symbol or (cell == wild and symbol not in spec.wild.substitutes_except):
                count += 1
            else:
                break
        best = max(best, max([p for c, p in pays.items() if c <= count], default=0))
    return best


TABLES = {name: compile_paytable(spec) for name, spec in SPECS.items()}


def evaluate(spec: LineGameSpec, window: np.ndarray, lines: int, ranked: bool = False) -> int:
    table = TABLES["dynasty" if spec is SPECS["dynasty"] else "wild anywhere"]
    reels, symbols = spec.grid.reels, len(spec.symbols)
    masks = np.zeros((reels, 1, symbols), dtype=np.uint64)
    counts = np.zeros((reels, 1, symbols), dtype=np.int64)
    window_masks(window, table.line_rows, table.counts_as, masks, counts)
    enabled = np.uint64((1 << lines) - 1)
    evaluator = ranked_line_wins if ranked else line_wins
    return int(evaluator(table, masks, np.zeros(reels, dtype=np.int64), enabled, 1, events.off()))


def windows(spec: LineGameSpec):
    """Random screens of symbols each reel may carry."""
    codes = spec.codes

    def allowed(reel: int) -> list[int]:
        return [i for i, s in enumerate(spec.symbols) if s.reels is None or reel + 1 in s.reels]

    columns = [st.lists(st.sampled_from(allowed(r)), min_size=3, max_size=3) for r in range(spec.grid.reels)]
    return st.tuples(*columns).map(lambda cols: np.array(cols, dtype=np.int64).T.copy()), codes


def line_cells(spec, window, line):
    rows = paylines(spec.paylines)[line]
    return [spec.codes[window[rows[reel], reel]] for reel in range(spec.grid.reels)]


@pytest.mark.parametrize("name", SPECS)
@settings(max_examples=300, deadline=None)
@given(data=st.data(), lines=st.integers(1, 20))
def test_line_wins_match_the_plain_reading(name, data, lines):
    spec = SPECS[name]
    window = data.draw(windows(spec)[0])
    expected = sum(reference_line_win(spec, line_cells(spec, window, line)) for line in range(lines))
    assert evaluate(spec, window, lines) == expected
    assert evaluate(spec, window, lines, ranked=True) == expected


@pytest.mark.parametrize("name", SPECS)
@settings(max_examples=200, deadline=None)
@given(data=st.data(), reel=st.integers(0, 4), row=st.integers(0, 2))
def test_a_wild_never_lowers_a_win(name, data, reel, row):
    spec = SPECS[name]
    window = data.draw(windows(spec)[0])
    allowed = spec.symbols[0].reels
    if allowed is not None and reel + 1 not in allowed:
        return
    before = evaluate(spec, window, 20)
    window[row, reel] = spec.symbol_id("SEAL")
    assert evaluate(spec, window, 20) >= before


@settings(max_examples=200, deadline=None)
@given(data=st.data(), lines=st.integers(1, 19))
def test_only_enabled_lines_pay(data, lines):
    spec = SPECS["dynasty"]
    window = data.draw(windows(spec)[0])
    fewer, more = evaluate(spec, window, lines), evaluate(spec, window, lines + 1)
    added = reference_line_win(spec, line_cells(spec, window, lines))
    assert more - fewer == added  # enabling one more line adds exactly that line's win


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_scatter_count_ignores_lines_and_wilds(data):
    spec = SPECS["dynasty"]
    window = data.draw(windows(spec)[0])
    table = TABLES["dynasty"]
    masks = np.zeros((5, 1, len(spec.symbols)), dtype=np.uint64)
    counts = np.zeros((5, 1, len(spec.symbols)), dtype=np.int64)
    window_masks(window, table.line_rows, table.counts_as, masks, counts)
    scatters = symbol_count(counts, np.zeros(5, dtype=np.int64), table.scatter_symbols[0])
    assert scatters == int((window == spec.symbol_id("EMPEROR")).sum())


compiled_popcount = njit(lambda x: popcount(x))


@settings(deadline=None)
@given(st.integers(0, 2**64 - 1))
def test_popcount(value):
    compiled = compiled_popcount
    assert compiled(np.uint64(value)) == bin(value).count("1") == popcount(np.uint64(value))


@njit
def _draws_bounded_by_popcount(stream, count, mask):
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = rng.bounded(stream, 15 - popcount(mask))
    return out


@njit
def _draws_bounded_by_constant(stream, count):
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        out[i] = rng.bounded(stream, 15)
    return out


def test_a_bound_counted_by_popcount_draws_like_a_constant_one():
    """A bound computed with popcount inside compiled code must not freeze the random stream."""
    counted = _draws_bounded_by_popcount(rng.xoshiro_stream(1), 50, np.uint64(0))
    constant = _draws_bounded_by_constant(rng.xoshiro_stream(1), 50)
    assert counted.tolist() == constant.tolist()
    assert len(set(counted.tolist())) > 5


COUNT_RAW = {**RAW, "count_pays": {"DRAGON": {3: 5, 5: 20, 8: 100}, "NINE": {4: 2}}}
COUNT_SPEC = LineGameSpec.model_validate(COUNT_RAW)
COUNT_TABLE = compile_count_table(COUNT_SPEC)


def reference_count_win(spec: LineGameSpec, window: np.ndarray) -> int:
    """Pays anywhere, read plainly: count the symbol and the wilds, pay the highest count listed."""
    cells = [spec.codes[c] for c in window.flatten()]
    total = 0
    for symbol, pays in spec.count_pays.items():
        n = sum(1 for c in cells if c == symbol or c == spec.wild.symbol)
        total += max([p for c, p in pays.items() if c <= n], default=0)
    return total


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_count_anywhere_matches_the_plain_reading(data):
    window = data.draw(windows(COUNT_SPEC)[0])
    table = compile_paytable(COUNT_SPEC)
    masks = np.zeros((5, 1, len(COUNT_SPEC.symbols)), dtype=np.uint64)
    counts = np.zeros((5, 1, len(COUNT_SPEC.symbols)), dtype=np.int64)
    window_masks(window, table.line_rows, table.counts_as, masks, counts)
    paid = count_wins(COUNT_TABLE, counts, np.zeros(5, dtype=np.int64), 1, events.off())
    assert paid == reference_count_win(COUNT_SPEC, window)


DYNASTY_TABLES = Dynasty().tables


@settings(max_examples=300, deadline=None)
@given(data=st.data(), lines=st.integers(1, 20))
def test_drawn_screens_pay_the_same_on_every_path(data, lines):
    """The per-stop fast path, the generic scan and the ranked evaluator agree on real strips."""
    tables = DYNASTY_TABLES
    reelset = tables.free if data.draw(st.booleans()) else tables.base
    stops = np.array([data.draw(st.integers(0, n - 1)) for n in reelset.lengths], dtype=np.int64)
    enabled = np.uint64((1 << lines) - 1)
    off = events.off()
    fast = stop_line_wins(tables.pay, reelset, stops, enabled, 1, off)
    assert fast == line_wins(tables.pay, reelset.masks, stops, enabled, 1, off)
    assert fast == ranked_line_wins(tables.pay, reelset.masks, stops, enabled, 1, off)
