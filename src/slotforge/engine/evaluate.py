"""Shared evaluators: line wins, scatter counts and count-anywhere, driven by the model.

Line evaluation works on bitmasks. For every reel and every paying symbol we know the set of
paylines whose cell on that reel shows the symbol or a wild standing in for it (a "column
mask", one bit per line). A line pays ``k`` of a symbol exactly when its bit survives the AND
of the first ``k`` reels' masks. Paying each (symbol, count) pair in order of falling pay, and
never paying a line twice, gives every enabled line its highest combination only.

Column masks depend only on what a reel shows, so for drawn screens they are looked up per
reel stop (precomputed by the same :func:`column_masks`), and for screens that were forced or
transformed they are computed on the spot. Both go through :func:`line_wins`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import intrinsic, overload

from slotforge.engine import events
from slotforge.engine.jit import kernel
from slotforge.engine.model import LineGameSpec, paylines


class PayTable(NamedTuple):
    """A line game's paytable and lines as arrays (symbol ids are model indexes)."""

    line_rows: np.ndarray  # int64[lines, reels]: the row of each line on each reel
    counts_as: np.ndarray  # bool[symbols, symbols]: a cell of [i] counts as symbol [j]
    pair_symbol: np.ndarray  # int64[pairs]: (symbol, count) pairs by falling pay
    pair_count: np.ndarray
    pair_pay: np.ndarray  # coins per coin bet on the line
    pay_symbols: np.ndarray  # int64[]: symbols with a line pay
    increments: np.ndarray  # int64[symbols, reels + 1]: pay[k] - pay[k - 1]
    scatter_symbols: np.ndarray  # int64[scatters]: the scatter symbols, in the model's order
    scatter_pays: np.ndarray  # int64[scatters, cells + 1]: each one's pay by count, x total bet


class CountTable(NamedTuple):
    """Pays-anywhere: each symbol pays by how many cells count as it, wherever they stand."""

    symbols: np.ndarray  # int64[]: paying symbols, in paytable order
    pays: np.ndarray  # int64[symbols, cells + 1]: pay by count, in win units
    counts_as: np.ndarray  # bool[symbols, symbols]
    highest_only: bool  # only the highest win pays; of equal wins, the symbol first in paytable order
    needs_own: bool  # a symbol pays only when one of its own cells shows (wilds alone never pay)
    stand_ins: np.ndarray  # int64[]: symbols that count as some symbol besides themselves (wilds)


class CellSet(NamedTuple):
    """Independent reels of one cell each: every cell draws its symbol from its own weights
    (each cell's symbols listed by falling weight)."""

    symbols: np.ndarray  # int64[cells, k]: the symbols a cell can show, heaviest first
    cumulative: np.ndarray  # int64[cells, k]: running sums of their weights (padding repeats the total)
    guide: np.ndarray  # uint16[tables, buckets]: per distinct weight table, where a pick's search starts
    table: np.ndarray  # int64[cells]: the row of ``guide`` each cell reads
    shift: int  # a pick's bucket in ``guide`` is ``pick >> shift``


class ReelSet(NamedTuple):
    """The strips of one mode with per-stop lookups."""

    strips: np.ndarray  # int64[reels, longest]: symbol ids, padded
    lengths: np.ndarray  # int64[reels]
    masks: np.ndarray  # uint64[reels, longest, symbols]: column masks of the window at a stop
    counts: np.ndarray  # int64[reels, longest, symbols]: symbols in the window at a stop
    leaders: np.ndarray  # int64[longest, symbols]: paying symbols reel 1 shows at a stop, packed
    leader_counts: np.ndarray  # int64[longest]


def popcount(x):
    """Number of set bits in an unsigned 64-bit integer (one instruction when compiled)."""
    return bin(int(x)).count("1")


@intrinsic
def _ctpop(typingctx, x):
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return signature, codegen


# Not inlined at numba's IR level: numba 0.68 mis-renames variables when this overload is
# IR-inlined into a caller that also inlines kernels (a random stream then stopped advancing).
# It takes a scalar, so there is no reference counting to save, and LLVM inlines it anyway.
@overload(popcount)
def _popcount_compiled(x):
    return lambda x: np.int64(_ctpop(np.uint64(x)))


@kernel
def column_masks(column, reel, line_rows, counts_as, out):
    """Fill ``out[s]`` with the lines whose cell on ``reel`` counts as symbol ``s``."""
    out[:] = 0
    for line in range(line_rows.shape[0]):
        cell = column[line_rows[line, reel]]
        bit = np.uint64(1) << np.uint64(line)
        for symbol in range(counts_as.shape[1]):
            if counts_as[cell, symbol]:
                out[symbol] |= bit


@kernel
def window_masks(window, line_rows, counts_as, masks, counts):
    """Column masks and symbol counts of a whole screen, as a one-stop table at stop 0."""
    rows, reels = window.shape
    for reel in range(reels):
        column_masks(window[:, reel], reel, line_rows, counts_as, masks[reel, 0])
        counts[reel, 0, :] = 0
        for row in range(rows):
            counts[reel, 0, window[row, reel]] += 1


@kernel
def line_wins(table, masks, stops, enabled, multiplier, log):
    """Total line win, in coins per coin bet on a line, of the screen at ``stops``.

    ``masks`` is a column-mask table indexed ``[reel, stop, symbol]``; ``enabled`` the bitmask
    of paying lines. Every win is logged when the log is recording.
    """
    symbols = table.pay_symbols
    return leading_line_wins(table, masks, stops, enabled, multiplier, log, symbols, symbols.shape[0])


@kernel
def stop_line_wins(table, reelset, stops, enabled, multiplier, log):
    """:func:`line_wins` of a drawn screen, trying only the symbols reel 1 shows at its stop."""
    first = stops[0]
    return leading_line_wins(
        table, reelset.masks, stops, enabled, multiplier, log, reelset.leaders[first], reelset.leader_counts[first]
    )


@kernel
def leading_line_wins(table, masks, stops, enabled, multiplier, log, leaders, leader_count):
    """Line wins, trying as line leaders the first ``leader_count`` symbols of ``leaders``
    (which must include every paying symbol reel 1 shows).

    A line's only candidate symbol is the one its reel-1 cell counts as, unless that cell is a
    wild. Each symbol's single-candidate lines are paid on their own by adding the pay
    increments of every count they reach (no ranking needed); only the lines with two
    candidates or more (a wild on reel 1) go through :func:`ranked_line_wins`, which pays each
    its best pair, as it does every line whenever wins are logged. Where wilds on reel 1 are
    frequent, :func:`first_lead_line_wins` is the faster.
    """
    if events.recording(log):
        return ranked_line_wins(table, masks, stops, enabled, multiplier, log)
    seen, shared = shared_leads(masks, stops, enabled, leaders, leader_count)
    total = 0
    if shared:
        total = ranked_line_wins(table, masks, stops, shared, 1, log)
        enabled &= ~shared
    if seen == shared:
        return total * multiplier
    for i in range(leader_count):
        total += increment_wins(table, masks, stops, enabled, leaders[i])
    return total * multiplier


@kernel
def first_lead_line_wins(table, masks, stops, enabled, multiplier, log, leaders, leader_count):
    """:func:`leading_line_wins` for screens where a wild on reel 1 is frequent (wilds that fall
    or stick): the first line found with two candidates sends the whole screen to
    :func:`ranked_line_wins`, and until then each symbol's lines are paid by their increments.

    Finding the wild-led lines first and paying only them by the ranked walk costs a pass over
    the leaders before either walk, and a screen with a wild on reel 1 is then paid by both
    walks instead of one: Divine Fortune's rounds were 6% slower so.
    """
    if events.recording(log):
        return ranked_line_wins(table, masks, stops, enabled, multiplier, log)
    total = 0
    seen = np.uint64(0)
    first = stops[0]
    for i in range(leader_count):
        hit = enabled & masks[0, first, leaders[i]]
        if hit & seen:
            return ranked_line_wins(table, masks, stops, enabled, multiplier, log)
        seen |= hit
        total += increment_wins(table, masks, stops, enabled, leaders[i])
    return total * multiplier


@kernel
def increment_wins(table, masks, stops, enabled, symbol):
    """What the ``enabled`` lines that reel 1 leads with ``symbol`` pay for it, each line the
    pay increments of every count it reaches (for lines with no other candidate symbol)."""
    hit = enabled & masks[0, stops[0], symbol]
    if hit == 0:
        return 0
    increments = table.increments
    total = increments[symbol, 1] * popcount(hit)
    for reel in range(1, masks.shape[0]):
        hit &= masks[reel, stops[reel], symbol]
        if hit == 0:
            break
        total += increments[symbol, reel + 1] * popcount(hit)
    return total


@kernel
def shared_leads(masks, stops, enabled, leaders, leader_count):
    """The enabled lines reel 1 leads with any of the ``leaders``, and those it leads with two
    or more (their reel-1 cell is a wild)."""
    seen = np.uint64(0)
    shared = np.uint64(0)
    first = stops[0]
    for i in range(leader_count):
        hit = enabled & masks[0, first, leaders[i]]
        shared |= seen & hit
        seen |= hit
    return seen, shared


@kernel
def ranked_line_wins(table, masks, stops, enabled, multiplier, log):
    """Line wins by (symbol, count) pairs in order of falling pay, each line paid once."""
    total = 0
    paid = np.uint64(0)
    for pair in range(table.pair_symbol.shape[0]):
        symbol = table.pair_symbol[pair]
        count = table.pair_count[pair]
        hit = enabled & ~paid
        for reel in range(count):
            hit &= masks[reel, stops[reel], symbol]
            if hit == 0:
                break
        if hit == 0:
            continue
        paid |= hit
        pay = table.pair_pay[pair]
        total += pay * popcount(hit)
        if events.recording(log):
            for line in range(table.line_rows.shape[0]):
                if (hit >> np.uint64(line)) & np.uint64(1):
                    events.emit(log, events.LINE_WIN, line, symbol, count, pay * multiplier, multiplier)
    return total * multiplier


@kernel
def count_wins(table, counts, stops, multiplier, log):
    """Pays-anywhere wins of the screen at ``stops``: every paying symbol pays by its count
    (or only the highest win, as the table says), wilds counting toward every symbol they
    stand in for. ``counts`` is a per-stop table indexed ``[reel, stop, symbol]``."""
    total = 0
    best, best_symbol, best_count = 0, -1, 0
    symbols, counts_as = table.symbols, table.counts_as
    for i in range(symbols.shape[0]):
        symbol = symbols[i]
        n = 0
        for reel in range(counts.shape[0]):
            for cell in range(counts_as.shape[0]):
                if counts_as[cell, symbol]:
                    n += counts[reel, stops[reel], cell]
        if table.needs_own and symbol_count(counts, stops, symbol) == 0:
            continue
        total, best, best_symbol, best_count = add_count_win(
            table, symbol, n, multiplier, log, total, best, best_symbol, best_count
        )
    return total + pay_best(best, best_symbol, best_count, multiplier, log)


@kernel
def shown_count_wins(table, shown, multiplier, log):
    """:func:`count_wins` of a screen given as how many cells show each symbol (``shown``):
    the fast path of independent-reel grids, whose screens have no stops."""
    total = 0
    best, best_symbol, best_count = 0, -1, 0
    symbols, counts_as, stand_ins = table.symbols, table.counts_as, table.stand_ins
    for i in range(symbols.shape[0]):
        symbol = symbols[i]
        if table.needs_own and shown[symbol] == 0:
            continue
        n = shown[symbol]
        for j in range(stand_ins.shape[0]):
            if counts_as[stand_ins[j], symbol]:
                n += shown[stand_ins[j]]
        total, best, best_symbol, best_count = add_count_win(
            table, symbol, n, multiplier, log, total, best, best_symbol, best_count
        )
    return total + pay_best(best, best_symbol, best_count, multiplier, log)


@kernel
def add_count_win(table, symbol, n, multiplier, log, total, best, best_symbol, best_count):
    """One symbol's count win: added to (and logged with) the total, or, when only the highest
    win pays, kept if it beats the best so far. Returns the new (total, best, its symbol, count)."""
    pay = table.pays[symbol, n] * multiplier
    if table.highest_only:
        if pay > best:
            return total, pay, symbol, n
    elif pay > 0:
        events.emit(log, events.COUNT_WIN, symbol, n, pay, multiplier)
        return total + pay, best, best_symbol, best_count
    return total, best, best_symbol, best_count


@kernel
def pay_best(best, symbol, count, multiplier, log):
    """Log and return the one win a highest-only table pays (nothing when nothing won).

    The symbols were tried in paytable order and only a strictly higher pay replaced the best,
    so of equal wins the symbol higher in the paytable is the one paid.
    """
    if best > 0:
        events.emit(log, events.COUNT_WIN, symbol, count, best, multiplier)
    return best


@kernel
def cell_total(cells, cell):
    """The total of a cell's weights: its pick is a uniform draw below it."""
    cumulative = cells.cumulative
    return cumulative[cell, cumulative.shape[1] - 1]


@kernel
def cell_symbol(cells, cell, pick):
    """The symbol a cell shows for ``pick``: the one at the first index whose running sum
    exceeds it. The guide table gives, for the pick's bucket, the first index whose running sum
    exceeds the bucket's start: the answer itself, but in the few buckets a running sum cuts,
    where a step or two more finds it.
    """
    cumulative = cells.cumulative
    index = np.int64(cells.guide[cells.table[cell], pick >> cells.shift])
    while cumulative[cell, index] <= pick:
        index += 1
    return cells.symbols[cell, index]


@kernel
def symbol_count(counts, stops, symbol):
    """How many of ``symbol`` the screen at ``stops`` shows, anywhere."""
    total = 0
    for reel in range(counts.shape[0]):
        total += counts[reel, stops[reel], symbol]
    return total


@kernel
def fill_window(reelset, stops, window):
    """The symbols a screen shows at ``stops``: rows top to bottom, reels left to right."""
    rows, reels = window.shape
    for reel in range(reels):
        length = reelset.lengths[reel]
        for row in range(rows):
            window[row, reel] = reelset.strips[reel, (stops[reel] + row) % length]


def counts_as_matrix(spec: LineGameSpec) -> np.ndarray:
    """``[cell, symbol]``: True where a cell showing ``cell`` counts toward ``symbol``."""
    n = len(spec.symbols)
    matrix = np.eye(n, dtype=np.bool_)
    if spec.wild:
        wild = spec.symbol_id(spec.wild.symbol)
        for code in {**spec.line_pays, **spec.count_pays}:
            if code not in spec.wild.substitutes_except:
                matrix[wild, spec.symbol_id(code)] = True
    return matrix


def compile_paytable(spec: LineGameSpec) -> PayTable:
    """The paytable of a model as arrays for the compiled evaluators."""
    lines = np.array(paylines(spec.paylines), dtype=np.int64)  # the model checked that they fit
    pairs = [
        (pay, count, spec.symbol_id(code))
        for code, pays in spec.line_pays.items()
        for count, pay in pays.items()
        if pay > 0
    ]
    pairs.sort(key=lambda p: (-p[0], -p[1], p[2]))
    scatter_symbols, scatter_pays = compile_scatters(spec)
    return PayTable(
        line_rows=lines,
        counts_as=counts_as_matrix(spec),
        pair_symbol=np.array([p[2] for p in pairs], dtype=np.int64),
        pair_count=np.array([p[1] for p in pairs], dtype=np.int64),
        pair_pay=np.array([p[0] for p in pairs], dtype=np.int64),
        pay_symbols=np.array(sorted({p[2] for p in pairs}), dtype=np.int64),
        increments=pay_increments(spec),
        scatter_symbols=scatter_symbols,
        scatter_pays=scatter_pays,
    )


def compile_scatters(spec: LineGameSpec) -> tuple[np.ndarray, np.ndarray]:
    """Each scatter symbol of the model and its pay by count (x total bet); a count above the
    highest listed pays as the highest (five of a kind and up)."""
    cells = spec.grid.reels * spec.grid.rows
    symbols = np.array([spec.symbol_id(code) for code in spec.scatter_pays], dtype=np.int64)
    pays = np.zeros((len(symbols), cells + 1), dtype=np.int64)
    for row, by_count in zip(pays, spec.scatter_pays.values(), strict=True):
        for count, pay in by_count.items():
            row[count] = pay
        top = max(by_count)
        row[top:] = by_count[top]
    return symbols, pays


def pay_increments(spec: LineGameSpec) -> np.ndarray:
    """``[symbol, k]``: what reaching count ``k`` adds to a line's pay (pays never fall)."""
    increments = np.zeros((len(spec.symbols), spec.grid.reels + 1), dtype=np.int64)
    for code, pays in spec.line_pays.items():
        previous = 0
        for count in range(1, spec.grid.reels + 1):
            pay = pays.get(count, previous)
            increments[spec.symbol_id(code), count] = pay - previous
            previous = pay
    return increments


def compile_count_table(spec: LineGameSpec) -> CountTable:
    """The pays-anywhere table of a model, in win units (``pay_scale`` per paytable unit, so a
    pay of 0.4 at scale 10 is 4 units); a count above the highest listed pays as it."""
    cells = spec.grid.reels * spec.grid.rows
    pays = np.zeros((len(spec.symbols), cells + 1), dtype=np.int64)
    for code, by_count in spec.count_pays.items():
        row = pays[spec.symbol_id(code)]
        for count in range(1, cells + 1):
            listed = [c for c in by_count if c <= count]
            row[count] = int(by_count[max(listed)] * spec.pay_scale) if listed else 0
    symbols = np.array([spec.symbol_id(c) for c in spec.count_pays], dtype=np.int64)
    counts_as = counts_as_matrix(spec)
    stand_ins = [s for s in range(len(spec.symbols)) if counts_as[s].sum() > 1]
    return CountTable(
        symbols=symbols,
        pays=pays,
        counts_as=counts_as,
        highest_only=spec.count_rule == "highest",
        needs_own=bool(spec.wild and spec.wild.needs_paying_symbol),
        stand_ins=np.array(stand_ins, dtype=np.int64),
    )


GUIDE_BITS = 12  # a guide table has about 2**12 buckets: 8 KB a distinct weight table


def compile_cells(spec: LineGameSpec, mode: str) -> CellSet:
    """One mode's independent-reel weights as arrays, a table per cell (reading order), and the
    guide tables of the distinct weight tables."""
    cells = spec.grid.reels * spec.grid.rows
    tables = spec.cell_weights[mode]
    tables = tables * cells if len(tables) == 1 else tables
    width = max(len(weights) for weights in tables)
    symbols = np.zeros((cells, width), dtype=np.int64)
    cumulative = np.zeros((cells, width), dtype=np.int64)
    for cell, weights in enumerate(tables):
        heaviest = sorted(weights.items(), key=lambda item: -item[1])
        running = np.cumsum([weight for _, weight in heaviest])
        symbols[cell, : len(heaviest)] = [spec.symbol_id(code) for code, _ in heaviest]
        cumulative[cell] = running[-1]
        cumulative[cell, : len(heaviest)] = running
    distinct, table = np.unique(cumulative, axis=0, return_inverse=True)
    shift = max(0, int(cumulative[:, -1].max()).bit_length() - GUIDE_BITS)
    starts = np.arange((int(cumulative[:, -1].max()) >> shift) + 1, dtype=np.int64) << shift
    guide = np.array([np.searchsorted(running, starts, side="right") for running in distinct], dtype=np.uint16)
    return CellSet(symbols, cumulative, guide, table.reshape(-1).astype(np.int64), shift)


def compile_reelset(spec: LineGameSpec, mode: str, table: PayTable) -> ReelSet:
    """One mode's strips with the column masks and counts of the window at every stop."""
    strips = [[spec.symbol_id(code) for code in strip] for strip in spec.reels[mode]]
    reels, rows, symbols = spec.grid.reels, spec.grid.rows, len(spec.symbols)
    longest = max(len(s) for s in strips)
    padded = np.zeros((reels, longest), dtype=np.int64)
    masks = np.zeros((reels, longest, symbols), dtype=np.uint64)
    counts = np.zeros((reels, longest, symbols), dtype=np.int64)
    column = np.zeros(rows, dtype=np.int64)
    for reel, strip in enumerate(strips):
        padded[reel, : len(strip)] = strip
        for stop in range(len(strip)):
            for row in range(rows):
                column[row] = strip[(stop + row) % len(strip)]
                counts[reel, stop, column[row]] += 1
            column_masks(column, reel, table.line_rows, table.counts_as, masks[reel, stop])
    leaders = np.zeros((longest, symbols), dtype=np.int64)
    leader_counts = np.zeros(longest, dtype=np.int64)
    for stop in range(len(strips[0])):
        shown = [s for s in table.pay_symbols if masks[0, stop, s]]
        leaders[stop, : len(shown)] = shown
        leader_counts[stop] = len(shown)
    lengths = np.array([len(s) for s in strips], dtype=np.int64)
    return ReelSet(padded, lengths, masks, counts, leaders, leader_counts)


def enabled_mask(lines: int) -> np.uint64:
    """The bitmask of lines 1..``lines``."""
    return np.uint64((1 << lines) - 1)
