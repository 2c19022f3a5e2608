"""Divine Fortune's compiled round: Falling Wilds Re-Spins, Wild on Wild, Free Spins and the
Jackpot Bonus game.

Units: a win unit is one coin at bet level 1 (a line win in units is the paytable value); the
stake is 20 units and ``bet_level`` coins make one unit.

Falling wilds are kept per reel as a 3-bit row mask (bit 0 = top row). After a spin's wins
every WILD moves down one row, ``(mask << 1) & 7``, so a WILD on the bottom row falls off; a
spin that showed any WILD is followed by a re-spin. A reel holding a Falling Wild in the main
game spins on its "held" strip, which carries no BONUS and no FREESPINS.

Nothing here allocates: every work array comes from :class:`Work`, so the simulator's loop
can be compiled without numba's runtime. Free spins and the bonus game are compiled as
functions of their own rather than inlined: they are rare, so the call costs nothing that
shows, and inlining them would multiply the compile time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import PayTable, ReelSet, leading_line_wins, window_masks
from slotforge.engine.jit import entry, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.outcomes import WAIT, decide, draw_weighted, forced_screen, scripted
from slotforge.engine.rng import bounded
from slotforge.engine.spin import enabled_lines

# Reel modes: the index of a strip set in the stacked tables.
BASE, HELD, FREE, BONUS_GRID = range(4)
MODE_NAMES = ("base", "held", "free")

# params indexes.
P_WILD, P_FREESPINS, P_BONUS, P_BLANK, P_FS_TRIGGER, P_BONUS_TRIGGER, P_BONUS_SPINS = range(7)
P_LAND_NUM, P_LAND_DEN, P_MINOR, P_MAJOR, P_CELLS, P_LAST = range(7, 13)

# Bet arguments of the round function.
B_LEVEL, B_TOTAL_UNITS, B_MEGA_THRESHOLD, B_MEGA_ALLOWED, B_RTP_MODE = range(5)
# RTP mode only: the expected win of one free spin and of a bonus game started with 3..15
# BONUS, in thousandths of a unit (see play_round).
B_FREE_SPIN_MILLI = 5
B_BONUS_MILLI = 6  # + (collected - 3)
BET_ARGUMENTS = B_BONUS_MILLI + 13
MILLI = 1000
# The Mega chance is ``threshold / MEGA_SCALE`` per Jackpot Bonus game.
MEGA_SCALE = 1_000_000_000

# Draw ids (the game's draw_names order) and decision ids.
DRAW_VALUE, DRAW_CELL, DRAW_MEGA = range(3)
DECISION_START = 0
CHOICE_START = 0

# FEATURE event codes (row[1]); the fields follow.
F_WILD_ON_WILD = 1  # reel
F_FALLING_WILDS = 2  # cell mask of the Falling Wilds the next re-spin holds, their count
F_BONUS_COLLECTED = 3  # BONUS this spin, collected in the round so far
F_RESPINS_OWED = 4  # cell mask of the Falling Wilds waiting for the end of free spins
F_BONUS_TRIGGERED = 5  # BONUS collected, BONUS placed
F_BONUS_PLACED = 6  # cell, value (units)
F_BONUS_LANDED = 7  # cell, value (units)
F_MEGA_WON = 8  # cells filled
F_BONUS_END = 9  # cells filled, full rows
F_FREE_RESPIN = 10  # (none): a re-spin inside free spins, which uses no free spin

# WIN event kinds (row[1]).
W_BONUS_COINS, W_MINOR, W_MAJOR = range(3)

# Why a scripted round was refused (info[I_REASON]).
R_HELD_REEL, R_FREE_SPIN, R_BONUS_SCREEN, R_MAIN_SCREEN, R_CELL_TAKEN, R_FULL_GRID, R_MEGA_FUN = range(1, 8)
I_REASON, I_SCREEN, I_ROW, I_REEL, I_SYMBOL, I_MEGA, I_COLLECTED = range(7)

# Simulator tallies.
TALLY = (
    "base_win", "respin_win", "free_win", "bonus_coins", "minor", "major", "mega",
    "respin_rounds", "respins", "free_triggers", "free_spins_played", "free_respins",
    "bonus_games", "bonus_cells", "wild_on_wild", "award_5", "award_8", "award_12",
    *(f"collected_{n}" for n in range(3, 16)),
    "respin_awarded_spins",
    "hits",
)
(T_BASE_WIN, T_RESPIN_WIN, T_FREE_WIN, T_BONUS_COINS, T_MINOR, T_MAJOR, T_MEGA,
 T_RESPIN_ROUNDS, T_RESPINS, T_FREE_TRIGGERS, T_FREE_PLAYED, T_FREE_RESPINS,
 T_BONUS_GAMES, T_BONUS_CELLS, T_WILD_ON_WILD, T_AWARD_5, T_AWARD_8, T_AWARD_12) = range(18)
T_COLLECTED = 18  # + (collected - 3), the last slot counting 15 and more
T_RESPIN_AWARDED = 31  # free spins awarded by re-spins (not first spins)
T_HITS = 32  # rounds with a line win or a feature


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
    value_weights: np.ndarray  # int64[]: cumulative weights of the values
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
def refuse(info, reason, screen, row, reel, symbol):
    """Note why a scripted round cannot be played (the Python side words the error)."""
    info[I_REASON] = reason
    info[I_SCREEN] = screen
    info[I_ROW] = row
    info[I_REEL] = reel
    info[I_SYMBOL] = symbol


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
def settle_wilds(work, held, free):
    """The WILDs each reel shows after Wild on Wild; returns (screen changed, any WILD).

    Main game: a WILD landing behind a Falling Wild expands to the whole reel; elsewhere it is
    one more WILD. Free spins: every WILD landing expands its reel.
    """
    landed, final = work.landed, work.final
    changed = False
    shown = False
    for reel in range(landed.shape[0]):
        bits = landed[reel]
        keep = held[reel]
        if free:
            result = 7 if bits else keep
        else:
            result = 7 if (keep & bits) else (keep | bits)
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
    changed, shown = settle_wilds(work, held, free)
    recording = events.recording(log)
    if forced >= 0 or recording:
        draw_window(tables, work, forced >= 0)
    events.emit_step(log, kind, 1 if free else 0, index, left, work.window)
    if kind == events.RESPIN and free:
        events.emit(log, events.FEATURE, F_FREE_RESPIN)
    expansions(work, held, free, log, tally)
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
        fall(work, held, log)
    return True, win, scatters, coins, shown


@kernel
def expansions(work, held, free, log, tally):
    """Count (and log) every Wild on Wild of the spin."""
    landed, final = work.landed, work.final
    for reel in range(landed.shape[0]):
        if final[reel] == 7 and landed[reel] != 7 and (free or (held[reel] & landed[reel])):
            tally[T_WILD_ON_WILD] += 1
            events.emit(log, events.FEATURE, F_WILD_ON_WILD, reel)


@kernel
def fall(work, held, log):
    """Every WILD moves down one row; one on the bottom row falls off the reels."""
    final = work.final
    count = 0
    for reel in range(final.shape[0]):
        bits = (final[reel] << 1) & 7
        held[reel] = bits
        count += (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1)
    if events.recording(log):
        rows, reels = work.window.shape
        events.emit(log, events.FEATURE, F_FALLING_WILDS, cell_mask(held, rows, reels), count)


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
def award_free_spins(tables, outcomes, log, work, scatters, shown, rtp_mode, tally):
    """Free spins won by a main-game spin: played now, before the re-spins it owes.

    Returns the win units (0 in the RTP mode, which only tallies the award), or -1.
    """
    awards = tables.awards
    award = awards[min(scatters, awards.shape[0] - 1)]
    tally[T_FREE_TRIGGERS] += 1
    if award == 5:
        tally[T_AWARD_5] += 1
    elif award == 8:
        tally[T_AWARD_8] += 1
    else:
        tally[T_AWARD_12] += 1
    events.emit(log, events.FREE_SPINS, award, award, 0)
    if shown and events.recording(log):
        rows, reels = work.window.shape
        events.emit(log, events.FEATURE, F_RESPINS_OWED, cell_mask(work.held, rows, reels))
    if rtp_mode:
        return 0
    win = free_spins(tables, outcomes, log, work, award, tally)
    if win > 0:
        tally[T_FREE_WIN] += win
    return win


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
def coin_value(tables, outcomes):
    """A BONUS value in units (scripted as ``bonus_value``)."""
    return tables.values[draw_weighted(outcomes, DRAW_VALUE, tables.value_weights)]


@kernel
def place_cell(outcomes, grid, filled, info):
    """Where a BONUS goes: the scripted ``bonus_cell`` or a random empty cell; -1 if refused."""
    forced, cell = scripted(outcomes, DRAW_CELL)
    if forced:
        if grid[cell] != 0:
            refuse(info, R_CELL_TAKEN, -1, 0, 0, cell)
            return -1
        return cell
    return empty_cell(grid, bounded(outcomes.stream, grid.shape[0] - filled))


@kernel
def mega_decision(bet, outcomes, log, info):
    """Whether this bonus game is the Mega's: drawn with a chance proportional to the stake.

    Returns 1 (Mega), 0 (no Mega: the grid cannot fill) or -1 (refused script).
    """
    forced, value = scripted(outcomes, DRAW_MEGA)
    if not forced:
        threshold = bet[B_MEGA_THRESHOLD]
        value = 1 if threshold > 0 and bounded(outcomes.stream, MEGA_SCALE) < threshold else 0
    elif value == 1 and bet[B_MEGA_ALLOWED] == 0:
        refuse(info, R_MEGA_FUN, -1, 0, 0, 0)
        return -1
    if bet[B_MEGA_ALLOWED]:
        events.emit(log, events.DRAW, DRAW_MEGA, value)
    return value


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
def bonus_spin(tables, outcomes, work, filled, mega):
    """One spin of every empty cell; returns the cells filled after it, or -1 if refused.

    Without the Mega the last empty cell never fills; on the Mega's path a spin that would
    land nothing lands one BONUS on a random empty cell, so the grid fills.
    """
    params = tables.params
    num, den, coin, blank = params[P_LAND_NUM], params[P_LAND_DEN], params[P_BONUS], params[P_BLANK]
    grid, fresh, info = work.grid, work.fresh, work.info
    cells = grid.shape[0]
    reels = work.window.shape[1]
    cap = cells if mega else cells - 1
    forced = forced_screen(outcomes)
    landed = 0
    for cell in range(cells):
        fresh[cell] = 0
        if forced >= 0:
            symbol = outcomes.screens[forced, cell // reels, cell % reels]
            if symbol != coin and symbol != blank:
                refuse(info, R_BONUS_SCREEN, forced, cell // reels, cell % reels, symbol)
                return -1
            lands = symbol == coin and grid[cell] == 0
            if lands and filled + landed >= cap:
                refuse(info, R_FULL_GRID, forced, cell // reels, cell % reels, symbol)
                return -1
        else:
            lands = grid[cell] == 0 and filled + landed < cap and bounded(outcomes.stream, den) < num
        if lands:
            fresh[cell] = 1
            landed += 1
    if mega and landed == 0:
        cell = place_cell(outcomes, grid, filled, info)
        if cell < 0:
            return -1
        fresh[cell] = 1
        landed = 1
    for cell in range(cells):
        if fresh[cell]:
            grid[cell] = coin_value(tables, outcomes)
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
    """The Jackpot Bonus game; returns its win units (Mega excluded: the pool pays it) or -1."""
    params = tables.params
    grid, info = work.grid, work.info
    rows, reels = work.window.shape
    cells = grid.shape[0]
    for cell in range(cells):
        grid[cell] = 0
    mega = mega_decision(bet, outcomes, log, info)
    if mega < 0:
        return -1
    placed = min(collected, cells if mega else cells - 1)
    events.emit(log, events.FEATURE, F_BONUS_TRIGGERED, collected, placed)
    for filled in range(placed):
        cell = place_cell(outcomes, grid, filled, info)
        if cell < 0:
            return -1
        grid[cell] = coin_value(tables, outcomes)
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
        now = bonus_spin(tables, outcomes, work, filled, mega)
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
    return bonus_pays(params, grid, filled, rows, reels, log, info, tally)


@kernel
def bonus_pays(params, grid, filled, rows, reels, log, info, tally):
    """Coin values plus the highest jackpot the grid reached."""
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
        events.emit(log, events.FEATURE, F_MEGA_WON, filled)
    elif full == 2:
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
    """Wait for the player's start (unless auto-started), then play the Jackpot Bonus game.

    Returns (status, bonus win units).
    """
    info = work.info
    info[I_COLLECTED] = collected
    slot = min(collected, 15) - 3
    tally[T_COLLECTED + slot] += 1
    if bet[B_RTP_MODE]:
        return events.COMPLETE, 0
    choice = decide(outcomes, log, DECISION_START, 1 << CHOICE_START, win, start_strategy)
    if choice == WAIT:
        return events.AWAITING, 0
    if choice < 0:
        return events.REJECTED, 0
    result = bonus_game(tables, bet, outcomes, log, work, collected, tally)
    if result < 0:
        return events.REJECTED, 0
    return events.COMPLETE, result


# -- the round -------------------------------------------------------------------------------
@kernel
def play_round(tables, bet, state, outcomes, log, work, tally):
    """One complete Divine Fortune round; returns (status, win units).

    The main game is a spin and its Falling Wilds Re-Spins; free spins won on the way are
    played at once, and the re-spins they interrupt after them. BONUS symbols collected over
    the whole main game start the Jackpot Bonus game. In the RTP mode (``bet[B_RTP_MODE]``)
    the first spin's win is left out of the returned win (it is known exactly), and free spins
    and the bonus game are only tallied (their expectations are computed apart).
    """
    info, held = work.info, work.held
    for i in range(info.shape[0]):
        info[i] = 0
    for reel in range(held.shape[0]):
        held[reel] = 0
    params, awards = tables.params, tables.awards
    rtp_mode = bet[B_RTP_MODE]
    win = 0
    collected = 0
    first_collected = 0
    respin_awards = 0
    hit = 0
    index = 0
    kind = events.BASE
    while True:
        ok, spin_win, scatters, coins, shown = spin(tables, outcomes, log, work, held, False, kind, index, 0, tally)
        if not ok:
            return events.REJECTED, win
        if spin_win > 0:
            hit = 1
        if kind == events.BASE:
            tally[T_BASE_WIN] += spin_win
            first_collected = coins
            if rtp_mode:
                spin_win = 0
        else:
            tally[T_RESPIN_WIN] += spin_win
            tally[T_RESPINS] += 1
        win += spin_win
        if coins > 0:
            collected += coins
            events.emit(log, events.FEATURE, F_BONUS_COLLECTED, coins, collected)
        if scatters >= params[P_FS_TRIGGER]:
            hit = 1
            if kind != events.BASE:
                respin_awards += awards[min(scatters, awards.shape[0] - 1)]
                tally[T_RESPIN_AWARDED] += awards[min(scatters, awards.shape[0] - 1)]
            free_win = award_free_spins(tables, outcomes, log, work, scatters, shown, rtp_mode, tally)
            if free_win < 0:
                return events.REJECTED, win
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
    if rtp_mode:
        return events.COMPLETE, rtp_mode_win(params, bet, win, respin_awards, collected, first_collected, tally)
    if collected < params[P_BONUS_TRIGGER]:
        return events.COMPLETE, win
    status, bonus_win = start_bonus(tables, bet, outcomes, log, work, collected, win, tally)
    return status, win + bonus_win


@kernel
def rtp_mode_win(params, bet, respin_win, respin_awards, collected, first_collected, tally):
    """What the re-spins add to a round whose first spin is known, in thousandths of a unit.

    The first spin's line win, free spins award and BONUS are computed exactly apart; what a
    round adds beyond them is its re-spins' line wins, the expected value of free spins they
    award, and how much the BONUS they collect raise the bonus game's expected value. Free
    spins and the bonus game are replaced by their expectations (conditioning), which keeps
    their variance out of the simulation.
    """
    trigger = params[P_BONUS_TRIGGER]
    value = respin_win * MILLI + respin_awards * bet[B_FREE_SPIN_MILLI]
    if collected >= trigger:
        tally[T_COLLECTED + min(collected, 15) - 3] += 1
        value += bet[B_BONUS_MILLI + min(collected, 15) - trigger]
    if first_collected >= trigger:
        value -= bet[B_BONUS_MILLI + min(first_collected, 15) - trigger]
    return value


@kernel
def free_spin_round(tables, bet, state, outcomes, log, work, tally):
    """One free spin with its re-spins, as a round of its own (the RTP's free-spin part)."""
    return events.COMPLETE, free_spins(tables, outcomes, log, work, 1, tally)


# -- the simulator's loops -------------------------------------------------------------------
# They live beside the round: numba's disk cache is keyed on the file of the compiled function,
# so a loop in another file would keep a stale copy of a changed round inlined into it.
@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Complete rounds, for ``slotforge simulate`` and the RTP report."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)


@loop
def simulate_free_spins(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """Single free spins with their re-spins (the RTP report's free-spin part)."""
    return run_rounds(free_spin_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)
