"""One spin of Divine Fortune's reels: landing (drawn or forced), the Falling Wilds and Wild on
Wild, and the spin's line wins.

Falling wilds are kept per reel as a row mask (bit 0 = top row). After a spin's wins every
WILD moves down one row, ``(mask << 1) & full``, so a WILD on the bottom row falls off; a spin
that showed any WILD is followed by a re-spin. A reel holding a Falling Wild in the main game
spins on its "held" strip, which carries no BONUS and no FREESPINS.
"""

from __future__ import annotations

from slotforge.engine import events
from slotforge.engine.evaluate import first_lead_line_wins, popcount, window_masks
from slotforge.engine.jit import kernel
from slotforge.engine.outcomes import forced_screen
from slotforge.engine.rng import bounded_on, hold, holds, release
from slotforge.engine.spin import enabled_lines, refuse
from slotforge.games.divine_fortune.kernels.common import (
    BASE,
    F_FALLING_WILDS,
    F_FREE_RESPIN,
    F_WILD_ON_WILD,
    FREE,
    HELD,
    P_BONUS,
    P_FREESPINS,
    P_FULL_REEL,
    P_WILD,
    R_FREE_SPIN,
    R_HELD_REEL,
    R_MAIN_SCREEN,
    T_FREE_WILD_ON_WILD,
    T_WILD_ON_WILD,
    cell_mask,
)


# -- one spin of the reels -------------------------------------------------------------------
@kernel
def land_random(tables, stream, work, held, free):
    """Random stops, each reel on its strip set; returns (FREESPINS, BONUS) shown."""
    lengths, wild_rows, freespins, bonus = tables.lengths, tables.wild_rows, tables.freespins, tables.bonus
    stops, modes, landed = work.stops, work.modes, work.landed
    scatters = 0
    coins = 0
    in_registers, state = holds(stream), hold(stream)
    for reel in range(stops.shape[0]):
        mode = FREE if free else (HELD if held[reel] else BASE)
        stop, state = bounded_on(stream, in_registers, state, lengths[mode, reel])
        stops[reel] = stop
        modes[reel] = mode
        landed[reel] = wild_rows[mode, reel, stop]
        scatters += freespins[mode, reel, stop]
        coins += bonus[mode, reel, stop]
    release(stream, in_registers, state)
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
    win = first_lead_line_wins(pay, masks, stops, enabled, 1, log, leaders, count)
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
