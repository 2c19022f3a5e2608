// Reading a round record: which cells a win covers, what an event says, where a value sits.

import { humanize } from "./dom";
import type { GameEvent, GameModel, Screen, Win } from "./types";
import type { GameScreen } from "./screens/screen";

/** The cells (``row,reel``) a win is made of. */
export function winCells(win: Win, screen: Screen, model: GameModel): Set<string> {
  const cells = new Set<string>();
  if (!screen.length) return cells;
  if (win.kind === "line" && win.line && model.paylines[win.line - 1]) {
    const line = model.paylines[win.line - 1];
    for (let reel = 0; reel < win.count && reel < line.length; reel++) cells.add(`${line[reel]},${reel}`);
    return cells;
  }
  const wild = model.wild?.symbol;
  screen.forEach((row, r) =>
    row.forEach((code, reel) => {
      if (code === win.symbol || (win.kind === "count" && code === wild)) cells.add(`${r},${reel}`);
    }),
  );
  return cells;
}

/** A line a player reads for a win. */
export function describeWin(win: Win): string {
  const what =
    win.kind === "line"
      ? `Line ${win.line}: ${win.count} × ${win.symbol}`
      : win.kind === "gamble"
        ? `Gamble won (${win.symbol})`
        : `${win.count} × ${win.symbol} (${win.kind})`;
  const times = win.multiplier && win.multiplier > 1 ? ` ×${win.multiplier}` : "";
  return `${what}${times}: ${win.amount}`;
}

// Events that only move the picture or record a draw of the random number generator.
const QUIET = new Set(["landed", "screen", "draw"]);

/** What an event says to the player, or null for one that only moves the picture. */
export function describeEvent(event: GameEvent, screen: GameScreen): string | null {
  const own = screen.describeEvent?.(event);
  if (own !== undefined) return own;
  if (QUIET.has(event.type)) return null;
  const details = Object.entries(event)
    .filter(([key, value]) => key !== "type" && typeof value !== "object")
    .map(([key, value]) => `${key.replace(/_/g, " ")} ${value}`)
    .join(", ");
  return details ? `${humanize(event.type)}: ${details}` : humanize(event.type);
}

/** Values written on cells by events (CASH values, bonus amounts): ``[row, reel, text]``. */
export function cellValues(events: GameEvent[], reels: number): [number, number, string][] {
  const values: [number, number, string][] = [];
  for (const event of events) {
    if (typeof event.cell !== "number") continue;
    const text = event.amount ?? event.value;
    if (text === undefined || text === null) continue;
    values.push([Math.floor(event.cell / reels), event.cell % reels, String(text)]);
  }
  return values;
}
