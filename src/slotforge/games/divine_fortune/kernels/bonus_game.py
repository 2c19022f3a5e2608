"""Divine Fortune's Jackpot Bonus game: a grid of independent one-cell reels.

At every spin each empty cell lands a BONUS with the chance of the stake's cell reel, whatever
the other cells hold, so every cell can fill at every spin. The Mega (every row full) therefore
comes from the reels alone; its chance rises with the stake because the cell reels of a larger
stake land more often. Compiled as functions of their own: the game is rare.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.jit import feature, kernel
from slotforge.engine.outcomes import WAIT, decide, draw_weighted, forced_screen, scripted
from slotforge.engine.rng import bounded
from slotforge.engine.spin import refuse
from slotforge.games.divine_fortune.kernels.common import (
    B_MEGA_LIVE,
    B_STAKE,
    CHOICE_START,
    DECISION_START,
    DRAW_CELL,
    DRAW_VALUE,
    F_BONUS_END,
    F_BONUS_LANDED,
    F_BONUS_PLACED,
    F_BONUS_TRIGGERED,
    F_MEGA_WON,
    I_COLLECTED,
    I_MEGA,
    P_BLANK,
    P_BONUS,
    P_BONUS_SPINS,
    P_BONUS_TRIGGER,
    P_MAJOR,
    P_MINOR,
    R_BONUS_SCREEN,
    R_CELL_TAKEN,
    T_BONUS_CELLS,
    T_BONUS_COINS,
    T_BONUS_GAMES,
    T_COLLECTED,
    T_MAJOR,
    T_MEGA,
    T_MINOR,
    W_BONUS_COINS,
    W_MAJOR,
    W_MINOR,
)


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




@feature
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
