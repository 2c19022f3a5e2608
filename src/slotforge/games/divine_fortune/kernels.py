"""Divine Fortune's compiled round: Falling Wilds Re-Spins, Wild on Wild, Free Spins and the
Jackpot Bonus game.

Units: a win unit is one coin at bet level 1 (a line win in units is the paytable value); the
stake is one unit per line and ``bet_level`` coins make one unit.

Falling wilds are kept per reel as a row mask (bit 0 = top row). After a spin's wins every
WILD moves down one row, ``(mask << 1) & full``, so a WILD on the bottom row falls off; a spin
that showed any WILD is followed by a re-spin. A reel holding a Falling Wild in the main game
spins on its "held" strip, which carries no BONUS and no FREESPINS.

The Jackpot Bonus game is a grid of independent one-cell reels: at every spin each empty cell
lands a BONUS with the chance of the stake's cell reel, whatever the other cells hold, so every
cell can fill at every spin. The Mega (every row full) therefore comes from the reels alone;
its chance rises with the stake because the cell reels of a larger stake land more often.

The round that pays players comes first; the maths' own compiled functions (conditioned rounds,
lone free spins, lone bonus games) come last, built from the same parts.

Nothing here allocates: every work array comes from :class:`Work`, so the simulator's loop
can be compiled without numba's runtime. Free spins and the bonus game are compiled as
functions of their own rather than inlined: they are rare, so the call costs nothing that
shows, and inlining them would multiply the compile time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet, leading_line_wins, popcount, window_masks
from slotforge.engine.jit import entry, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.outcomes import WAIT, decide, draw_weighted, forced_screen, scripted
from slotforge.engine.rng import bounded
from slotforge.engine.spin import REFUSAL_FIELDS, enabled_lines, refuse

# Reel modes: the index of a strip set in the stacked tables.
BASE, HELD, FREE = range(3)
MODE_NAMES = ("base", "held", "free")

# params indexes.
P_WILD, P_FREESPINS, P_BONUS, P_BLANK, P_FS_TRIGGER, P_BONUS_TRIGGER, P_BONUS_SPINS = range(7)
P_MINOR, P_MAJOR, P_FULL_REEL, P_LAST = range(7, 11)

# Bet arguments of the round function: the stake's row of the bonus-game tables, and whether
# a Mega is paid by the jackpot pool (not when playing for fun).
B_LEVEL, B_TOTAL_UNITS, B_STAKE, B_MEGA_LIVE = range(4)
BET_ARGUMENTS = 4

# Draw ids (the game's draw_names order) and decision ids.
DRAW_VALUE, DRAW_CELL = range(2)
DECISION_START = 0
CHOICE_START = 0

# FEATURE event codes; their fields (after the code, in the order emitted) in FEATURE_FIELDS.
F_WILD_ON_WILD = 1
F_FALLING_WILDS = 2
F_BONUS_COLLECTED = 3
F_RESPINS_OWED = 4
F_BONUS_TRIGGERED = 5
F_BONUS_PLACED = 6
F_BONUS_LANDED = 7
F_MEGA_WON = 8
F_BONUS_END = 9
F_FREE_RESPIN = 10
FEATURE_FIELDS = {
    F_WILD_ON_WILD: ("reel",),
    F_FALLING_WILDS: ("cells", "count"),  # cell mask of the Falling Wilds the next re-spin holds
    F_BONUS_COLLECTED: ("count", "collected"),  # BONUS this spin, collected in the round so far
    F_RESPINS_OWED: ("cells",),  # cell mask of the Falling Wilds waiting for the end of free spins
    F_BONUS_TRIGGERED: ("collected", "placed"),  # BONUS collected, BONUS placed
    F_BONUS_PLACED: ("cell", "value"),  # value in units
    F_BONUS_LANDED: ("cell", "value"),
    F_MEGA_WON: ("filled", "paid_by_pool"),  # 1 if the jackpot pool pays it (0: fun play)
    F_BONUS_END: ("filled", "full_rows"),
    F_FREE_RESPIN: (),  # a re-spin inside free spins, which uses no free spin
}

# WIN event kinds (row[1]).
W_BONUS_COINS, W_MINOR, W_MAJOR = range(3)

# Why a scripted round was refused (info[I_REASON]: see slotforge.engine.spin.refuse).
R_HELD_REEL, R_FREE_SPIN, R_BONUS_SCREEN, R_MAIN_SCREEN, R_CELL_TAKEN = range(1, 6)
I_MEGA, I_COLLECTED = range(REFUSAL_FIELDS, REFUSAL_FIELDS + 2)  # info: the Mega won, BONUS collected

# Simulator tallies; the model adds one per BONUS count that starts the bonus game
# (``collected_tally_names``), from T_COLLECTED on.
TALLY = (
    "base_win", "respin_win", "free_win", "bonus_coins", "minor", "major", "mega",
    "respin_rounds", "respins", "free_triggers", "free_spins_played", "free_respins",
    "bonus_games", "bonus_cells", "wild_on_wild", "free_wild_on_wild", "respin_awarded_spins", "hits",
)
(T_BASE_WIN, T_RESPIN_WIN, T_FREE_WIN, T_BONUS_COINS, T_MINOR, T_MAJOR, T_MEGA,
 T_RESPIN_ROUNDS, T_RESPINS, T_FREE_TRIGGERS, T_FREE_PLAYED, T_FREE_RESPINS,
 T_BONUS_GAMES, T_BONUS_CELLS, T_WILD_ON_WILD, T_FREE_WILD_ON_WILD, T_RESPIN_AWARDED, T_HITS) = range(18)
T_COLLECTED = len(TALLY)  # + (collected - trigger), the last slot counting a full grid and more


def collected_tally_names(trigger: int, cells: int) -> tuple[str, ...]:
    """Tally names of the bonus games by BONUS collected (the last: a full grid or more)."""
    return tuple(f"collected_{n}" for n in range(trigger, cells + 1))


class Tables(NamedTuple):
    """Divine Fortune's compiled model."""

    pay: PayTable
    base: ReelSet  # first spins and reels without a Falling Wild
    free: ReelSet
    strips: np.ndarray  # int64[mode, reel, stop]: base, held, free strips, padded
    lengths: np.ndarray  # int64[mode, reel]
    masks: np.ndarray  # uint64[mode, reel, stop, symbol]: column masks of the window at a stop
    wild_rows: np.ndarray  # int64[mode, reel, stop]: row mask of the WILDs the window shows
    freespins: np.ndarray  # int64[mode, reel, stop]: FREESPINS the window shows
    bonus: np.ndarray  # int64[mode, reel, stop]: BONUS the window shows
    line_bits: np.ndarray  # uint64[reel, row mask]: lines crossing the reel on those rows
    substitutes: np.ndarray  # uint64[symbol]: all lines where a WILD counts as the symbol
    carries: np.ndarray  # bool[mode, reel, symbol]: what a forced screen may land there
    awards: np.ndarray  # int64[cells + 1]: free spins by FREESPINS count
    values: np.ndarray  # int64[]: BONUS values, units (coins per bet level)
    land_num: np.ndarray  # int64[stake]: a cell reel lands a BONUS with land_num / land_den
    land_den: np.ndarray  # int64[stake]
    value_weights: np.ndarray  # int64[stake, value]: cumulative weights of the values
    params: np.ndarray  # int64: see the P_* indexes


class Work(NamedTuple):
    """Work arrays a round reuses (the simulator allocates nothing per round)."""

    stops: np.ndarray  # int64[reels]
    window: np.ndarray  # int64[rows, reels]
    masks: np.ndarray  # uint64[reels, 1, symbols]: column masks of a changed screen
    counts: np.ndarray  # int64[reels, 1, symbols]
    zero_stops: np.ndarray  # int64[reels]
    modes: np.ndarray  # int64[reels]: the strip set each reel spun on
    landed: np.ndarray  # int64[reels]: row mask of the WILDs that landed
    final: np.ndarray  # int64[reels]: row mask of the WILDs evaluated
    held: np.ndarray  # int64[reels]: Falling Wilds of the main game
    held_free: np.ndarray  # int64[reels]: Falling Wilds of free spins
    grid: np.ndarray  # int64[cells]: BONUS values on the bonus grid, 0 = empty
    fresh: np.ndarray  # int64[cells]: 1 where a BONUS landed this bonus spin
    info: np.ndarray  # int64[8]: see the I_* indexes


def make_work(rows: int, reels: int, symbols: int) -> Work:
    """Fresh work arrays for one round at a time."""
    cells = rows * reels
    return Work(
        stops=np.zeros(reels, dtype=np.int64),
        window=np.zeros((rows, reels), dtype=np.int64),
        masks=np.zeros((reels, 1, symbols), dtype=np.uint64),
        counts=np.zeros((reels, 1, symbols), dtype=np.int64),
        zero_stops=np.zeros(reels, dtype=np.int64),
        modes=np.zeros(reels, dtype=np.int64),
        landed=np.zeros(reels, dtype=np.int64),
        final=np.zeros(reels, dtype=np.int64),
        held=np.zeros(reels, dtype=np.int64),
        held_free=np.zeros(reels, dtype=np.int64),
        grid=np.zeros(cells, dtype=np.int64),
        fresh=np.zeros(cells, dtype=np.int64),
        info=np.zeros(8, dtype=np.int64),
    )


# -- small helpers ---------------------------------------------------------------------------
@kernel
def cell_mask(rows_by_reel, rows, reels):
    """Per-reel row masks as one mask of cells in reading order."""
    mask = 0
    for reel in range(reels):
        bits = rows_by_reel[reel]
        for row in range(rows):
            if (bits >> row) & 1:
                mask |= 1 << (row * reels + reel)
    return mask


# -- one spin of the reels -------------------------------------------------------------------
@kernel
def land_random(tables, stream, work, held, free):
    """Random stops, each reel on its strip set; returns (FREESPINS, BONUS) shown."""
    lengths, wild_rows, freespins, bonus = tables.lengths, tables.wild_rows, tables.freespins, tables.bonus
    stops, modes, landed = work.stops, work.modes, work.landed
    scatters = 0
    coins = 0
    for reel in range(stops.shape[0]):
        mode = FREE if free else (HELD if held[reel] else BASE)
        stop = bounded(stream, lengths[mode, reel])
        stops[reel] = stop
        modes[reel] = mode
        landed[reel] = wild_rows[mode, reel, stop]
        scatters += freespins[mode, reel, stop]
        coins += bonus[mode, reel, stop]
    return scatters, coins


@kernel
def land_forced(tables, screen, index, work, held, free):
    """A scripted screen; returns (ok, FREESPINS, BONUS). A symbol the reel's strip set
    cannot carry (BONUS under a Falling Wild, FREESPINS in free spins) refuses the round."""
    carries, params = tables.carries, tables.params
    wild, scatter, coin = params[P_WILD], params[P_FREESPINS], params[P_BONUS]
    window, modes, landed = work.window, work.modes, work.landed
    rows, reels = window.shape
    scatters = 0
    coins = 0
    for reel in range(reels):
        mode = FREE if free else (HELD if held[reel] else BASE)
        modes[reel] = mode
        bits = 0
        for row in range(rows):
            symbol = screen[row, reel]
            if not carries[mode, reel, symbol]:
                reason = R_FREE_SPIN if free else (R_HELD_REEL if mode == HELD else R_MAIN_SCREEN)
                refuse(work.info, reason, index, row, reel, symbol)
                return False, 0, 0
            window[row, reel] = symbol
            if symbol == wild:
                bits |= 1 << row
            elif symbol == scatter:
                scatters += 1
            elif symbol == coin:
                coins += 1
        landed[reel] = bits
    return True, scatters, coins


@kernel
def settle_wilds(work, held, free, full):
    """The WILDs each reel shows after Wild on Wild; returns (screen changed, any WILD).

    Main game: a WILD landing behind a Falling Wild expands to the whole reel (row mask
    ``full``); elsewhere it is one more WILD. Free spins: every WILD landing expands its reel.
    """
    landed, final = work.landed, work.final
    changed = False
    shown = False
    for reel in range(landed.shape[0]):
        bits = landed[reel]
        keep = held[reel]
        if free:
            result = full if bits else keep
        else:
            result = full if (keep & bits) else (keep | bits)
        final[reel] = result
        if result != bits:
            changed = True
        if result:
            shown = True
    return changed, shown


@kernel
def draw_window(tables, work, forced):
    """The screen as evaluated: the landed symbols with every WILD standing in place."""
    strips, lengths = tables.strips, tables.lengths
    wild = tables.params[P_WILD]
    window, stops, modes, final = work.window, work.stops, work.modes, work.final
    rows, reels = window.shape
    for reel in range(reels):
        mode = modes[reel]
        for row in range(rows):
            if (final[reel] >> row) & 1:
                window[row, reel] = wild
            elif not forced:
                window[row, reel] = strips[mode, reel, (stops[reel] + row) % lengths[mode, reel]]


@kernel
def wild_masks(tables, work):
    """Column masks of a drawn screen whose WILDs moved: the stop's masks with the lines that
    cross a WILD counting as every symbol the WILD stands in for."""
    masks, line_bits, substitutes = tables.masks, tables.line_bits, tables.substitutes
    out, stops, modes, final = work.masks, work.stops, work.modes, work.final
    symbols = substitutes.shape[0]
    for reel in range(stops.shape[0]):
        bits = line_bits[reel, final[reel]]
        keep = ~bits
        mode, stop = modes[reel], stops[reel]
        for symbol in range(symbols):
            out[reel, 0, symbol] = (masks[mode, reel, stop, symbol] & keep) | (bits & substitutes[symbol])


@kernel
def spin(tables, outcomes, log, work, held, free, kind, index, left, tally):
    """Land, settle the WILDs, pay the lines, and move every WILD down one row.

    Returns (ok, win units, FREESPINS shown, BONUS shown, any WILD shown); ``held`` becomes the
    Falling Wilds of the next re-spin.
    """
    pay = tables.pay
    enabled = enabled_lines(pay.line_rows.shape[0])
    forced = forced_screen(outcomes)
    if forced >= 0:
        ok, scatters, coins = land_forced(tables, outcomes.screens[forced], forced, work, held, free)
        if not ok:
            return False, 0, 0, 0, False
    else:
        scatters, coins = land_random(tables, outcomes.stream, work, held, free)
    full = tables.params[P_FULL_REEL]
    changed, shown = settle_wilds(work, held, free, full)
    recording = events.recording(log)
    if forced >= 0 or recording:
        draw_window(tables, work, forced >= 0)
    events.emit_step(log, kind, 1 if free else 0, index, left, work.window)
    if kind == events.RESPIN and free:
        events.emit(log, events.FEATURE, F_FREE_RESPIN)
    expansions(work, held, free, full, log, tally)
    # One call of the evaluator, on the masks of whichever screen this is: each inlined copy
    # of it costs compile time. A drawn screen tries as line leaders only the symbols reel 1
    # shows at its stop; a changed one tries every paying symbol.
    masks, stops, leaders = work.masks, work.zero_stops, pay.pay_symbols
    count = leaders.shape[0]
    if forced >= 0:
        window_masks(work.window, pay.line_rows, pay.counts_as, work.masks, work.counts)
    elif changed:
        wild_masks(tables, work)
    else:
        reelset = tables.free if free else tables.base
        masks, stops = reelset.masks, work.stops
        leaders, count = reelset.leaders[stops[0]], reelset.leader_counts[stops[0]]
    win = leading_line_wins(pay, masks, stops, enabled, 1, log, leaders, count)
    if shown:
        fall(work, held, full, log)
    return True, win, scatters, coins, shown


@kernel
def expansions(work, held, free, full, log, tally):
    """Count (and log) every Wild on Wild of the spin, the main game's apart from free spins'."""
    landed, final = work.landed, work.final
    slot = T_FREE_WILD_ON_WILD if free else T_WILD_ON_WILD
    for reel in range(landed.shape[0]):
        if final[reel] == full and landed[reel] != full and (free or (held[reel] & landed[reel])):
            tally[slot] += 1
            events.emit(log, events.FEATURE, F_WILD_ON_WILD, reel)


@kernel
def fall(work, held, full, log):
    """Every WILD moves down one row; one on the bottom row falls off the reels."""
    final = work.final
    for reel in range(final.shape[0]):
        held[reel] = (final[reel] << 1) & full
    if events.recording(log):
        rows, reels = work.window.shape
        cells = cell_mask(held, rows, reels)
        events.emit(log, events.FEATURE, F_FALLING_WILDS, cells, popcount(cells))


# -- free spins ------------------------------------------------------------------------------
@entry
def free_spins(tables, outcomes, log, work, award, tally):
    """Play ``award`` free spins, each followed by its Falling Wilds Re-Spins (extra spins).

    Returns the win units, or -1 when a scripted screen was refused.
    """
    held = work.held_free
    for reel in range(held.shape[0]):
        held[reel] = 0
    total = 0
    left = award
    played = 0
    while left > 0:
        left -= 1
        played += 1
        kind = events.FREE
        while True:
            ok, win, _, _, shown = spin(tables, outcomes, log, work, held, True, kind, played, left, tally)
            if not ok:
                return -1
            total += win
            if kind == events.RESPIN:
                tally[T_FREE_RESPINS] += 1
            if not shown:
                break
            kind = events.RESPIN
    tally[T_FREE_PLAYED] += played
    return total


@kernel
def award_free_spins(tables, outcomes, log, work, award, shown, play_free, tally):
    """Free spins won by a main-game spin, played at once (before the re-spins it owes) by
    ``play_free(tables, outcomes, log, work, award, tally)``; returns their win units, or -1."""
    tally[T_FREE_TRIGGERS] += 1
    events.emit(log, events.FREE_SPINS, award, award, 0)
    if shown and events.recording(log):
        rows, reels = work.window.shape
        events.emit(log, events.FEATURE, F_RESPINS_OWED, cell_mask(work.held, rows, reels))
    win = play_free(tables, outcomes, log, work, award, tally)
    if win > 0:
        tally[T_FREE_WIN] += win
    return win


# -- the main game ---------------------------------------------------------------------------
@kernel
def main_game(tables, outcomes, log, work, tally, play_free):
    """A main-game spin and its Falling Wilds Re-Spins; free spins won on the way are played
    at once by ``play_free`` (see :func:`award_free_spins`), the re-spins they interrupt after.

    Returns (ok, win units, the first spin's line win, BONUS collected, BONUS on the first
    spin, free spins awarded by re-spins); ok is False when a scripted screen was refused.
    """
    held = work.held
    for reel in range(held.shape[0]):
        held[reel] = 0
    params, awards = tables.params, tables.awards
    win = 0
    first_win = 0
    collected = 0
    first_collected = 0
    respin_awards = 0
    hit = 0
    index = 0
    kind = events.BASE
    while True:
        ok, spin_win, scatters, coins, shown = spin(tables, outcomes, log, work, held, False, kind, index, 0, tally)
        if not ok:
            return False, win, first_win, collected, first_collected, respin_awards
        if spin_win > 0:
            hit = 1
        if kind == events.BASE:
            tally[T_BASE_WIN] += spin_win
            first_win = spin_win
            first_collected = coins
        else:
            tally[T_RESPIN_WIN] += spin_win
            tally[T_RESPINS] += 1
        win += spin_win
        if coins > 0:
            collected += coins
            events.emit(log, events.FEATURE, F_BONUS_COLLECTED, coins, collected)
        if scatters >= params[P_FS_TRIGGER]:
            hit = 1
            award = awards[min(scatters, awards.shape[0] - 1)]
            if kind != events.BASE:
                respin_awards += award
                tally[T_RESPIN_AWARDED] += award
            free_win = award_free_spins(tables, outcomes, log, work, award, shown, play_free, tally)
            if free_win < 0:
                return False, win, first_win, collected, first_collected, respin_awards
            win += free_win
        if not shown:
            break
        if kind == events.BASE:
            tally[T_RESPIN_ROUNDS] += 1
        kind = events.RESPIN
        index += 1
    if collected >= params[P_BONUS_TRIGGER]:
        hit = 1
    tally[T_HITS] += hit
    return True, win, first_win, collected, first_collected, respin_awards


@kernel
def tally_collected(tables, work, collected, tally):
    """Count a bonus game by the BONUS collected that start it (a full grid or more: one slot)."""
    cells = work.grid.shape[0]
    tally[T_COLLECTED + min(collected, cells) - tables.params[P_BONUS_TRIGGER]] += 1


# -- the Jackpot Bonus game ------------------------------------------------------------------
@kernel
def empty_cell(grid, k):
    """The ``k``-th empty cell in reading order."""
    for cell in range(grid.shape[0]):
        if grid[cell] == 0:
            if k == 0:
                return cell
            k -= 1
    return -1


@kernel
def coin_value(tables, outcomes, stake):
    """A BONUS value in units, weighted for the stake (scripted as ``bonus_value``)."""
    return tables.values[draw_weighted(outcomes, DRAW_VALUE, tables.value_weights[stake])]


@kernel
def place_cell(outcomes, grid, filled, info):
    """Where a collected BONUS goes: the scripted ``bonus_cell`` or a random empty cell; -1 if
    the script names a taken cell."""
    forced, cell = scripted(outcomes, DRAW_CELL)
    if forced:
        if grid[cell] != 0:
            refuse(info, R_CELL_TAKEN, -1, 0, 0, cell)
            return -1
        return cell
    return empty_cell(grid, bounded(outcomes.stream, grid.shape[0] - filled))


@kernel
def bonus_window(tables, work):
    """The bonus grid as a screen: BONUS where a coin stands, BLANK elsewhere."""
    params = tables.params
    coin, blank = params[P_BONUS], params[P_BLANK]
    grid, window = work.grid, work.window
    rows, reels = window.shape
    for cell in range(grid.shape[0]):
        window[cell // reels, cell % reels] = coin if grid[cell] else blank


@kernel
def bonus_spin(tables, outcomes, work, filled, stake):
    """One spin of the grid: every empty cell is a reel of its own and lands a BONUS with the
    stake's chance, whatever the others hold. Returns the cells filled after it, or -1 if a
    scripted screen was refused."""
    params = tables.params
    num, den = tables.land_num[stake], tables.land_den[stake]
    coin, blank = params[P_BONUS], params[P_BLANK]
    grid, fresh, info = work.grid, work.fresh, work.info
    reels = work.window.shape[1]
    forced = forced_screen(outcomes)
    landed = 0
    for cell in range(grid.shape[0]):
        fresh[cell] = 0
        if forced >= 0:
            symbol = outcomes.screens[forced, cell // reels, cell % reels]
            if symbol != coin and symbol != blank:
                refuse(info, R_BONUS_SCREEN, forced, cell // reels, cell % reels, symbol)
                return -1
            lands = symbol == coin and grid[cell] == 0
        else:
            lands = grid[cell] == 0 and bounded(outcomes.stream, den) < num
        if lands:
            fresh[cell] = 1
            landed += 1
    for cell in range(grid.shape[0]):
        if fresh[cell]:
            grid[cell] = coin_value(tables, outcomes, stake)
    return filled + landed


@kernel
def full_rows(grid, rows, reels):
    """How many rows of the bonus grid are full."""
    full = 0
    for row in range(rows):
        complete = True
        for reel in range(reels):
            if grid[row * reels + reel] == 0:
                complete = False
        if complete:
            full += 1
    return full


@entry
def bonus_game(tables, bet, outcomes, log, work, collected, tally):
    """The Jackpot Bonus game; returns its win units (the Mega excluded: the pool pays it) or -1.

    The collected BONUS are placed on random cells (as many as the grid holds: a full grid has
    won the Mega at once); then the grid spins until no spins remain or every cell is full.
    """
    params = tables.params
    stake = bet[B_STAKE]
    grid, info = work.grid, work.info
    rows, reels = work.window.shape
    cells = grid.shape[0]
    for cell in range(cells):
        grid[cell] = 0
    placed = min(collected, cells)
    events.emit(log, events.FEATURE, F_BONUS_TRIGGERED, collected, placed)
    for filled in range(placed):
        cell = place_cell(outcomes, grid, filled, info)
        if cell < 0:
            return -1
        grid[cell] = coin_value(tables, outcomes, stake)
    spins = params[P_BONUS_SPINS]
    if events.recording(log):
        bonus_window(tables, work)
        events.emit_step(log, events.BONUS, 2, 0, spins, work.window)
        for cell in range(cells):
            if grid[cell]:
                events.emit(log, events.FEATURE, F_BONUS_PLACED, cell, grid[cell])
    filled = placed
    played = 0
    while spins > 0 and filled < cells:
        spins -= 1
        played += 1
        now = bonus_spin(tables, outcomes, work, filled, stake)
        if now < 0:
            return -1
        if now > filled:
            spins = params[P_BONUS_SPINS]
        filled = now
        if events.recording(log):
            bonus_window(tables, work)
            events.emit_step(log, events.BONUS, 2, played, spins, work.window)
            fresh = work.fresh
            for cell in range(cells):
                if fresh[cell]:
                    events.emit(log, events.FEATURE, F_BONUS_LANDED, cell, grid[cell])
    return bonus_pays(params, grid, filled, rows, reels, bet[B_MEGA_LIVE], log, info, tally)


@kernel
def bonus_pays(params, grid, filled, rows, reels, mega_live, log, info, tally):
    """Coin values plus the highest jackpot the grid reached: every row full the Mega (paid by
    the jackpot pool, not here), two or more the Major, one the Minor."""
    coins = 0
    for cell in range(grid.shape[0]):
        coins += grid[cell]
    full = full_rows(grid, rows, reels)
    events.emit(log, events.FEATURE, F_BONUS_END, filled, full)
    events.emit(log, events.WIN, W_BONUS_COINS, filled, coins)
    tally[T_BONUS_GAMES] += 1
    tally[T_BONUS_CELLS] += filled
    tally[T_BONUS_COINS] += coins
    jackpot = 0
    if full == rows:
        info[I_MEGA] = 1
        tally[T_MEGA] += 1
        events.emit(log, events.FEATURE, F_MEGA_WON, filled, mega_live)
    elif full >= 2:
        jackpot = params[P_MAJOR]
        tally[T_MAJOR] += 1
        events.emit(log, events.WIN, W_MAJOR, full, jackpot)
    elif full == 1:
        jackpot = params[P_MINOR]
        tally[T_MINOR] += 1
        events.emit(log, events.WIN, W_MINOR, full, jackpot)
    return coins + jackpot


@kernel
def start_strategy(which, decision, offered, win):
    """The simulator's one strategy: start the bonus game (the only option)."""
    return CHOICE_START


@kernel
def start_bonus(tables, bet, outcomes, log, work, collected, win, tally):
    """Wait for the player's start (the simulator's strategy starts it), then play the Jackpot
    Bonus game.

    Returns (status, bonus win units).
    """
    work.info[I_COLLECTED] = collected
    tally_collected(tables, work, collected, tally)
    choice = decide(outcomes, log, DECISION_START, 1 << CHOICE_START, win, start_strategy)
    if choice == WAIT:
        return events.AWAITING, 0
    if choice < 0:
        return events.REJECTED, 0
    result = bonus_game(tables, bet, outcomes, log, work, collected, tally)
    if result < 0:
        return events.REJECTED, 0
    return events.COMPLETE, result


@kernel
def clear_info(work):
    """Forget the last round's refusal and Mega."""
    info = work.info
    for i in range(info.shape[0]):
        info[i] = 0


# -- the round -------------------------------------------------------------------------------
@kernel
def play_round(tables, bet, state, outcomes, log, work, tally):
    """One complete Divine Fortune round; returns (status, win units).

    The main game (a spin, its Falling Wilds Re-Spins and any free spins they win), then, with
    enough BONUS collected over it, the Jackpot Bonus game.
    """
    clear_info(work)
    ok, win, _, collected, _, _ = main_game(tables, outcomes, log, work, tally, free_spins)
    if not ok:
        return events.REJECTED, win
    if collected < tables.params[P_BONUS_TRIGGER]:
        return events.COMPLETE, win
    status, bonus_win = start_bonus(tables, bet, outcomes, log, work, collected, win, tally)
    return status, win + bonus_win


# -- the simulator's loop --------------------------------------------------------------------
@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Complete rounds, for ``slotforge simulate``, live play and replay."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


# -- what the maths measures ----------------------------------------------------------------
# The compiled functions Divine Fortune's maths plays, apart from the round that pays players.
#
# They are built from the paying round's own parts (above), so what they measure is
# what the round does:
#
# - :func:`conditioned_round`: a main game with free spins and the bonus game replaced by their
#   expected values, returning only what the round adds to its first spin (which the maths
#   knows exactly), in thousandths of a unit;
# - :func:`free_spin_round`: one free spin with its Falling Wilds Re-Spins;
# - :func:`bonus_round`: one Jackpot Bonus game started with a given number of BONUS.
#
# Each has a loop for the simulator (``engine.loop.run_rounds`` around it). The tests hold
# each against the paying round: the conditioned parts against plain simulations, the bonus
# game's exact chances against simulated bonus games.

# Conditioned values are kept in thousandths of a unit: integers, like every win the loop sums.
MILLI = 1000


class Conditioned(NamedTuple):
    """The tables with the expectations a conditioned round puts in place of its features."""

    tables: Tables
    free_spin_milli: np.ndarray  # int64[1]: expected win of one free spin, thousandths of a unit
    bonus_milli: np.ndarray  # int64[cells + 1]: expected bonus game by BONUS collected (0 below the trigger)


class BonusStart(NamedTuple):
    """The tables and how many BONUS start each simulated bonus game."""

    tables: Tables
    collected: np.ndarray  # int64[1]


@entry
def no_free_spins(tables, outcomes, log, work, award, tally):
    """Free spins left unplayed: a conditioned round adds their expectation instead."""
    return 0


@kernel
def conditioned_round(conditioned, bet, state, outcomes, log, work, tally):
    """What a main-game round adds to its first spin, in thousandths of a unit.

    The first spin's line win, free spins award and BONUS are computed exactly apart; what a
    round adds beyond them is its re-spins' line wins, the expected win of the free spins they
    award, and how much the BONUS they collect raise the bonus game's expected value. Replacing
    free spins and the bonus game by their expectations keeps their variance out.
    """
    tables = conditioned.tables
    clear_info(work)
    ok, win, first_win, collected, first_collected, respin_awards = main_game(
        tables, outcomes, log, work, tally, no_free_spins
    )
    bonus = conditioned.bonus_milli
    cells = bonus.shape[0] - 1
    if collected >= tables.params[P_BONUS_TRIGGER]:
        tally_collected(tables, work, collected, tally)
    value = (win - first_win) * MILLI + respin_awards * conditioned.free_spin_milli[0]
    value += bonus[min(collected, cells)] - bonus[min(first_collected, cells)]
    return events.COMPLETE if ok else events.REJECTED, value


@kernel
def free_spin_round(tables, bet, state, outcomes, log, work, tally):
    """One free spin with its re-spins, as a round of its own (the RTP's free-spin part)."""
    return events.COMPLETE, free_spins(tables, outcomes, log, work, 1, tally)


@kernel
def bonus_round(start, bet, state, outcomes, log, work, tally):
    """One Jackpot Bonus game started with ``start.collected[0]`` BONUS, at the bet's stake;
    its win units leave out the Mega (``tally`` counts it)."""
    clear_info(work)
    win = bonus_game(start.tables, bet, outcomes, log, work, start.collected[0], tally)
    return events.COMPLETE if win >= 0 else events.REJECTED, win


@loop
def simulate_conditioned(conditioned, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Conditioned rounds (the RTP report's re-spins and BONUS collection)."""
    return run_rounds(conditioned_round, conditioned, bet, state, outcomes, log, scratch, rounds, tally, totals)


@loop
def simulate_free_spins(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Single free spins with their re-spins (the RTP report's free-spin part)."""
    return run_rounds(free_spin_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


@loop
def simulate_bonus_games(start, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Bonus games from a fixed number of BONUS (to test the exact bonus maths)."""
    return run_rounds(bonus_round, start, bet, state, outcomes, log, scratch, rounds, tally, totals)
