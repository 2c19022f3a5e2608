"""Moon of Fortune's compiled round: sixteen one-cell reels paying 10 or more of a kind anywhere,
CASH held for one spin, Sticky to Infinity mysteries carried between rounds, the Hold the
Jackpot bonus game and the pick-one-of-two gamble.

Units: a win unit is a tenth of the base bet (so 0.4x is 4 units); the stake is 10 units times
the Chance Level. Every value below (CASH, jackpots, the cap) is in units.

Carried state (``state``, one configuration's part of the player's JSON state): for each cell
the symbol held there (``-1``: none) and, for a held CASH, its value. MYSTERY and
RABBIT_MYSTERY stay until a bonus game ends; a held CASH stays for one spin.

Nothing here allocates: every work array comes from :class:`Work`. The bonus game is compiled
as a function of its own: it is rare, so the call costs nothing that shows, and inlining it
would multiply the compile time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from slotforge.engine import events
from slotforge.engine.evaluate import CountTable, shown_count_wins
from slotforge.engine.gamble import pick_gamble
from slotforge.engine.jit import feature, kernel, loop
from slotforge.engine.loop import run_rounds
from slotforge.engine.outcomes import draw_weighted
from slotforge.engine.spin import REFUSAL_FIELDS, land_cells, refuse

CELLS = 16

# Carried state: the symbol held in each cell, the value of each held CASH, and how many cells
# and CASH are held (so that a spin landing no bonus symbol leaves the state untouched cheaply).
S_HELD = 0
S_VALUE = CELLS
S_HELD_COUNT = 2 * CELLS
S_CASH_COUNT = 2 * CELLS + 1
STATE_SIZE = 2 * CELLS + 2

# params indexes: symbol ids, then rule numbers (values in units).
(P_WILD, P_CASH, P_MYSTERY, P_RABBIT, P_MINI, P_MINOR, P_MAJOR, P_COLLECTOR, P_BLANK,
 P_TRIGGER, P_HOLD_MIN, P_HOLD_MAX, P_RESPINS, P_MINI_UNITS, P_MINOR_UNITS, P_MAJOR_UNITS,
 P_GRAND_UNITS, P_MAX_GAMBLES, P_LAST) = range(19)

# Bet arguments of the round function.
B_CONFIG, B_VOLATILITY, B_STAKE_UNITS, B_MAX_WIN, B_GAMBLE_LIMIT = range(5)
BET_ARGUMENTS = 5

# Draw ids (the game's draw_names order) and the decision id.
DRAW_CASH, DRAW_MYSTERY, DRAW_RABBIT, DRAW_MULTIPLIER, DRAW_GAMBLE = range(5)
DECISION_GAMBLE = 0

# What a MYSTERY becomes (draw "mystery") and what a RABBIT_MYSTERY becomes (draw
# "rabbit_mystery"), by index: ids into params.
MYSTERY_OUTCOMES = ("CASH", "MINI", "MINOR", "MAJOR", "COLLECTOR")
RABBIT_OUTCOMES = ("COLLECTOR", "MINI", "MINOR", "MAJOR")

# FEATURE event codes; their fields (after the code, in the order emitted) in FEATURE_FIELDS.
F_CASH = 1
F_STICKY = 2
F_CASH_HELD = 3
F_TRIGGER = 4
F_RESPINS = 5
F_REVEAL = 6
F_COLLECTOR = 7
F_CAPPED = 8
FEATURE_FIELDS = {
    F_CASH: ("cell", "value"),  # a CASH landed with its value (units)
    F_STICKY: ("cell", "symbol"),  # a mystery stays until a bonus game ends
    F_CASH_HELD: ("count",),  # how many CASH stay for the next spin
    F_TRIGGER: ("bonus_symbols",),  # bonus symbols on the screen
    F_RESPINS: ("left", "filled"),  # re-spins left, cells filled
    F_REVEAL: ("cell", "mystery", "revealed", "value"),  # symbols; value in units
    F_COLLECTOR: ("cell", "cash", "multiplier", "value"),  # CASH sum and value in units
    F_CAPPED: ("won", "paid"),  # win before the cap, win paid
}

# WIN event kinds (row[1]): kind, count, units.
W_CASH, W_COLLECTOR, W_MINI, W_MINOR, W_MAJOR, W_GRAND = range(6)

# Why a scripted round cannot be played (info[I_REASON]: see slotforge.engine.spin.refuse).
R_HELD_CELL, R_BASE_SYMBOL, R_BONUS_SYMBOL = range(1, 4)
I_EXPECTED = REFUSAL_FIELDS  # info: the symbol a held cell holds

# Simulator tallies (win units unless named otherwise).
TALLY = (
    "base_win", "cash", "collector", "mini", "minor", "major", "grand", "capped",
    "bonus_games", "bonus_spins", "bonus_cells", "mysteries_stuck", "cash_held", "held_spins",
    "mini_count", "minor_count", "major_count", "collector_count",
    *(f"wins_{name}" for name in ("0", "up_to_1", "1_to_5", "5_to_20", "20_to_100", "100_to_500", "over_500")),
    "capped_rounds", "capped_squares",
)
(T_BASE_WIN, T_CASH, T_COLLECTOR, T_MINI, T_MINOR, T_MAJOR, T_GRAND, T_CAPPED,
 T_BONUS_GAMES, T_BONUS_SPINS, T_BONUS_CELLS, T_MYSTERIES_STUCK, T_CASH_HELD, T_HELD_SPINS,
 T_MINI_COUNT, T_MINOR_COUNT, T_MAJOR_COUNT, T_COLLECTOR_COUNT) = range(18)
T_WINS = 18  # + the size class of a round's win, x stake: 0, <= 1, <= 5, <= 20, <= 100, <= 500, more
# Rounds the cap bound, and the sum of the squares of what it took (units squared): the cap's
# effect is simulated, and these give its 99% interval.
T_CAPPED_ROUNDS, T_CAPPED_SQUARES = 25, 26


class Tables(NamedTuple):
    """Moon of Fortune's compiled model."""

    count: CountTable
    base: tuple  # CellSet per configuration (Chance Level index x 3 + Volatility index)
    bonus: tuple  # CellSet per Volatility Level
    cash_values: np.ndarray  # int64[]: CASH values in units, by draw index
    base_cash: np.ndarray  # int64[volatility, values]: cumulative weights of base-game values
    bonus_cash: np.ndarray  # int64[volatility, values]: the bonus game's
    mystery: np.ndarray  # int64[volatility, MYSTERY_OUTCOMES]: cumulative weights
    rabbit: np.ndarray  # int64[volatility, RABBIT_OUTCOMES]
    multipliers: np.ndarray  # int64[volatility, 10]: cumulative weights of 1..10
    mystery_symbols: np.ndarray  # int64[MYSTERY_OUTCOMES]: symbol ids
    rabbit_symbols: np.ndarray  # int64[RABBIT_OUTCOMES]
    base_symbols: np.ndarray  # bool[symbols]: may land in the base game
    bonus_symbols: np.ndarray  # bool[symbols]: may land in the bonus game (BLANK: nothing)
    params: np.ndarray  # int64: see the P_* indexes


class Work(NamedTuple):
    """Work arrays a round reuses (the simulator allocates nothing per round)."""

    window: np.ndarray  # int64[4, 4]: the screen
    shown: np.ndarray  # int64[symbols]: cells showing each symbol
    grid: np.ndarray  # int64[cells]: the bonus game's symbols, -1 where empty
    values: np.ndarray  # int64[cells]: CASH and COLLECTOR values on the bonus grid, units
    info: np.ndarray  # int64[8]: see the I_* indexes


def make_work(symbols: int) -> Work:
    """Fresh work arrays for one round at a time."""
    return Work(
        window=np.zeros((4, 4), dtype=np.int64),
        shown=np.zeros(symbols, dtype=np.int64),
        grid=np.full(CELLS, -1, dtype=np.int64),
        values=np.zeros(CELLS, dtype=np.int64),
        info=np.zeros(8, dtype=np.int64),
    )


def empty_state() -> np.ndarray:
    """A configuration with nothing held."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[S_HELD : S_HELD + CELLS] = -1
    return state


@kernel
def check_forced(window, held, info, forced, allowed, reason):
    """A scripted screen: held cells must show what they hold, the others only symbols that
    can land there (else ``reason``). Returns False (and notes why) when it cannot be played."""
    for cell in range(CELLS):
        symbol = window[cell // 4, cell % 4]
        if held[cell] >= 0:
            if symbol != held[cell]:
                refuse(info, R_HELD_CELL, forced, cell // 4, cell % 4, symbol)
                info[I_EXPECTED] = held[cell]
                return False
        elif not allowed[symbol]:
            refuse(info, reason, forced, cell // 4, cell % 4, symbol)
            return False
    return True


@kernel
def cash_value(tables, outcomes, weights, volatility):
    """A CASH value in units (scripted as ``cash_value``)."""
    return tables.cash_values[draw_weighted(outcomes, DRAW_CASH, weights[volatility])]


# -- the base game ---------------------------------------------------------------------------
@kernel
def base_spin(tables, bet, state, outcomes, log, work, tally):
    """Land and pay one base-game screen, the held cells standing.

    Returns (ok, count win units, bonus symbols shown, changed). ``changed`` says that bonus
    symbols landed or held CASH leave; then the grid of bonus symbols and the CASH values are
    in ``work.grid`` and ``work.values``.
    """
    params = tables.params
    cash, mystery, rabbit = params[P_CASH], params[P_MYSTERY], params[P_RABBIT]
    # The state starts with the held symbols (S_HELD is 0): the cells land around them in place.
    forced = land_cells(tables.base[bet[B_CONFIG]], outcomes, state, work.window, work.shown)
    if forced >= 0 and not check_forced(work.window, state, work.info, forced, tables.base_symbols, R_BASE_SYMBOL):
        return False, 0, 0, False
    events.emit_step(log, events.BASE, bet[B_CONFIG], 0, 0, work.window)
    win = shown_count_wins(tables.count, work.shown, 1, log)
    shown = work.shown
    bonus = shown[cash] + shown[mystery] + shown[rabbit]
    if state[S_HELD_COUNT] > 0:
        tally[T_HELD_SPINS] += 1
    if bonus == state[S_HELD_COUNT] and state[S_CASH_COUNT] == 0:
        return True, win, bonus, False  # nothing landed and no held CASH leaves: the state stands
    window, grid, values = work.window, work.grid, work.values
    volatility = bet[B_VOLATILITY]
    for cell in range(CELLS):
        symbol = window[cell // 4, cell % 4]
        kept = state[S_HELD + cell]
        grid[cell] = symbol if (symbol == cash or symbol == mystery or symbol == rabbit) else -1
        values[cell] = 0
        if symbol == cash:
            if kept == cash:
                values[cell] = state[S_VALUE + cell]
            else:
                values[cell] = cash_value(tables, outcomes, tables.base_cash, volatility)
                events.emit(log, events.FEATURE, F_CASH, cell, values[cell])
    return True, win, bonus, True


@kernel
def carry(tables, state, work, log, tally):
    """What a base spin that showed bonus symbols but did not start the bonus game leaves for
    the next: every mystery stays; 4 or 5 freshly landed CASH stay for one spin; held CASH
    leave."""
    params = tables.params
    cash, mystery, rabbit = params[P_CASH], params[P_MYSTERY], params[P_RABBIT]
    grid, values = work.grid, work.values
    fresh_cash = 0
    for cell in range(CELLS):
        if grid[cell] == cash and state[S_HELD + cell] != cash:
            fresh_cash += 1
    hold = params[P_HOLD_MIN] <= fresh_cash <= params[P_HOLD_MAX]
    held_count = 0
    for cell in range(CELLS):
        symbol = grid[cell]
        was = state[S_HELD + cell]
        keep = -1
        if symbol == mystery or symbol == rabbit:
            keep = symbol
            if was != symbol:
                tally[T_MYSTERIES_STUCK] += 1
                events.emit(log, events.FEATURE, F_STICKY, cell, symbol)
        elif symbol == cash and hold and was != cash:
            keep = cash
        state[S_HELD + cell] = keep
        state[S_VALUE + cell] = values[cell] if keep == cash else 0
        held_count += keep >= 0
    state[S_HELD_COUNT] = held_count
    state[S_CASH_COUNT] = fresh_cash if hold else 0
    if hold:
        tally[T_CASH_HELD] += 1
        events.emit(log, events.FEATURE, F_CASH_HELD, fresh_cash)


@kernel
def clear_state(state):
    """A bonus game ended: nothing stays."""
    for cell in range(CELLS):
        state[S_HELD + cell] = -1
        state[S_VALUE + cell] = 0
    state[S_HELD_COUNT] = 0
    state[S_CASH_COUNT] = 0


# -- Hold the Jackpot ------------------------------------------------------------------------
@kernel
def bonus_window(tables, work):
    """The bonus grid as a screen: each cell's symbol, BLANK where empty."""
    blank = tables.params[P_BLANK]
    grid, window = work.grid, work.window
    for cell in range(CELLS):
        window[cell // 4, cell % 4] = grid[cell] if grid[cell] >= 0 else blank


@kernel
def bonus_spin(tables, bet, outcomes, log, work, index, tally):
    """One re-spin: every empty cell spins on the bonus game's weights; what lands stays.

    Returns how many bonus symbols landed, or -1 when a scripted screen was refused.
    """
    params = tables.params
    blank, cash = params[P_BLANK], params[P_CASH]
    grid, values, window = work.grid, work.values, work.window
    forced = land_cells(tables.bonus[bet[B_VOLATILITY]], outcomes, grid, window, work.shown)
    if forced >= 0 and not check_forced(window, grid, work.info, forced, tables.bonus_symbols, R_BONUS_SYMBOL):
        return -1
    events.emit_step(log, events.BONUS, bet[B_CONFIG], index, 0, window)
    tally[T_BONUS_SPINS] += 1
    landed = 0
    for cell in range(CELLS):
        if grid[cell] >= 0:
            continue
        symbol = window[cell // 4, cell % 4]
        if symbol == blank:
            continue
        grid[cell] = symbol
        landed += 1
        if symbol == cash:
            values[cell] = cash_value(tables, outcomes, tables.bonus_cash, bet[B_VOLATILITY])
            events.emit(log, events.FEATURE, F_CASH, cell, values[cell])
    return landed


@kernel
def reveal(tables, bet, outcomes, log, work):
    """Open every MYSTERY and RABBIT_MYSTERY, one by one in reading order."""
    params = tables.params
    mystery, rabbit, cash = params[P_MYSTERY], params[P_RABBIT], params[P_CASH]
    volatility = bet[B_VOLATILITY]
    grid, values = work.grid, work.values
    for cell in range(CELLS):
        symbol = grid[cell]
        if symbol == mystery:
            opened = tables.mystery_symbols[draw_weighted(outcomes, DRAW_MYSTERY, tables.mystery[volatility])]
        elif symbol == rabbit:
            opened = tables.rabbit_symbols[draw_weighted(outcomes, DRAW_RABBIT, tables.rabbit[volatility])]
        else:
            continue
        grid[cell] = opened
        if opened == cash:
            values[cell] = cash_value(tables, outcomes, tables.bonus_cash, volatility)
        events.emit(log, events.FEATURE, F_REVEAL, cell, symbol, opened, values[cell] if opened == cash else 0)


@kernel
def prize(tables, bet, outcomes, log, work, tally):
    """The bonus game's prize: CASH, each COLLECTOR (all CASH x its own 1..10) and jackpots."""
    params = tables.params
    cash, collector = params[P_CASH], params[P_COLLECTOR]
    grid, values = work.grid, work.values
    cash_sum = 0
    cash_count = 0
    mini = minor = major = 0
    for cell in range(CELLS):
        symbol = grid[cell]
        if symbol == cash:
            cash_sum += values[cell]
            cash_count += 1
        elif symbol == params[P_MINI]:
            mini += 1
        elif symbol == params[P_MINOR]:
            minor += 1
        elif symbol == params[P_MAJOR]:
            major += 1
    collected = 0
    collectors = 0
    for cell in range(CELLS):
        if grid[cell] == collector:
            multiplier = 1 + draw_weighted(outcomes, DRAW_MULTIPLIER, tables.multipliers[bet[B_VOLATILITY]])
            values[cell] = cash_sum * multiplier
            collected += values[cell]
            collectors += 1
            events.emit(log, events.FEATURE, F_COLLECTOR, cell, cash_sum, multiplier, values[cell])
    bonus_window(tables, work)
    events.emit_step(log, events.BONUS, bet[B_CONFIG], -1, 0, work.window)
    win_cash = pay(log, W_CASH, cash_count, cash_sum)
    win_collector = pay(log, W_COLLECTOR, collectors, collected)
    win_mini = pay(log, W_MINI, mini, mini * params[P_MINI_UNITS])
    win_minor = pay(log, W_MINOR, minor, minor * params[P_MINOR_UNITS])
    win_major = pay(log, W_MAJOR, major, major * params[P_MAJOR_UNITS])
    tally[T_CASH] += win_cash
    tally[T_COLLECTOR] += win_collector
    tally[T_MINI] += win_mini
    tally[T_MINOR] += win_minor
    tally[T_MAJOR] += win_major
    tally[T_MINI_COUNT] += mini
    tally[T_MINOR_COUNT] += minor
    tally[T_MAJOR_COUNT] += major
    tally[T_COLLECTOR_COUNT] += collectors
    return win_cash + win_collector + win_mini + win_minor + win_major


@kernel
def pay(log, kind, count, units):
    """Log one kind of bonus win (when there is one); returns its units."""
    if count > 0:
        events.emit(log, events.WIN, kind, count, units)
    return units


@feature
def hold_the_jackpot(tables, bet, outcomes, log, work, tally):
    """The bonus game on the grid the triggering spin left in ``work.grid``.

    Returns its prize in units (before the round's cap), or -1 when a script was refused.
    """
    params = tables.params
    grid = work.grid
    tally[T_BONUS_GAMES] += 1
    filled = 0
    for cell in range(CELLS):
        if grid[cell] >= 0:
            filled += 1
    respins = params[P_RESPINS]
    events.emit(log, events.FEATURE, F_RESPINS, respins, filled)
    index = 0
    while respins > 0 and filled < CELLS:
        index += 1
        landed = bonus_spin(tables, bet, outcomes, log, work, index, tally)
        if landed < 0:
            return -1
        filled += landed
        respins = params[P_RESPINS] if landed > 0 else respins - 1
        events.emit(log, events.FEATURE, F_RESPINS, respins, filled)
    tally[T_BONUS_CELLS] += filled
    if filled == CELLS:
        tally[T_GRAND] += params[P_GRAND_UNITS]
        events.emit(log, events.WIN, W_GRAND, 1, params[P_GRAND_UNITS])
        return params[P_GRAND_UNITS]
    reveal(tables, bet, outcomes, log, work)
    return prize(tables, bet, outcomes, log, work, tally)


# -- the round -------------------------------------------------------------------------------
@kernel
def win_class(win, stake):
    """The size class of a win (for the win distribution the simulator reports)."""
    if win == 0:
        return 0
    if win <= stake:
        return 1
    if win <= 5 * stake:
        return 2
    if win <= 20 * stake:
        return 3
    if win <= 100 * stake:
        return 4
    if win <= 500 * stake:
        return 5
    return 6


@kernel
def play_round(tables, bet, state, outcomes, log, scratch, tally):
    """One complete Moon of Fortune round; returns (status, win units)."""
    ok, win, bonus, changed = base_spin(tables, bet, state, outcomes, log, scratch, tally)
    if not ok:
        return events.REJECTED, 0
    tally[T_BASE_WIN] += win
    if bonus >= tables.params[P_TRIGGER]:
        events.emit(log, events.FEATURE, F_TRIGGER, bonus)
        won = hold_the_jackpot(tables, bet, outcomes, log, scratch, tally)
        if won < 0:
            return events.REJECTED, 0
        clear_state(state)
        win += won
    elif changed:
        carry(tables, state, scratch, log, tally)
    if win > bet[B_MAX_WIN]:
        taken = win - bet[B_MAX_WIN]
        tally[T_CAPPED] += taken
        tally[T_CAPPED_ROUNDS] += 1
        tally[T_CAPPED_SQUARES] += taken * taken
        events.emit(log, events.FEATURE, F_CAPPED, win, bet[B_MAX_WIN])
        win = bet[B_MAX_WIN]
    tally[T_WINS + win_class(win, bet[B_STAKE_UNITS])] += 1
    return pick_gamble(
        outcomes, log, win, min(bet[B_MAX_WIN], bet[B_GAMBLE_LIMIT]), tables.params[P_MAX_GAMBLES],
        DECISION_GAMBLE, DRAW_GAMBLE,
    )


@loop
def simulate_rounds(tables, bet, state, outcomes, log, scratch, rounds, tally, totals):
    """The simulator's loop compiled around this game's round: a session at one configuration,
    the carried state passed from round to round."""
    return run_rounds(play_round, tables, bet, state, outcomes, log, scratch, rounds, tally, totals)
