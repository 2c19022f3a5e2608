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

/** The name a player reads for a symbol: the one drawn on its cell (Wish Upon a Jackpot's LOGO
 * says WISH), else its code. */
export function symbolName(code: string, screen?: Pick<GameScreen, "symbols">): string {
  return screen?.symbols[code]?.label || code;
}

/** Whether an amount ("0.00") is nothing. */
function isZero(amount: string): boolean {
  return !/[1-9]/.test(amount);
}

/** A line a player reads for a win (a lost gamble is a loss, a jackpot is one jackpot). */
export function describeWin(win: Win, screen?: Pick<GameScreen, "symbols">): string {
  const times = win.multiplier && win.multiplier > 1 ? ` ×${win.multiplier}` : "";
  const name = symbolName(win.symbol, screen);
  switch (win.kind) {
    case "line":
      return `Line ${win.line}: ${win.count} × ${name}${times}: ${win.amount}`;
    case "gamble":
      return isZero(win.amount) ? `Gamble lost (${humanize(win.symbol)} drawn)` : `Gamble won (${humanize(win.symbol)} drawn)${times}: ${win.amount}`;
    case "jackpot":
      return `${humanize(win.symbol)} jackpot${times}: ${win.amount}`;
    default:
      return `${win.count} × ${name} (${win.kind})${times}: ${win.amount}`;
  }
}

// Events that only move the picture or record a draw of the random number generator.
const QUIET = new Set(["landed", "screen", "draw"]);

/** What an event says to the player, or null for one that only moves the picture. */
export function describeEvent(event: GameEvent, screen: GameScreen): string | null {
  const own = screen.describeEvent?.(event);
  if (own !== undefined) return own;
  if (QUIET.has(event.type)) return null;
  // The engine's own events, the same in every game.
  if (event.type === "free_spins_awarded") {
    return event.retrigger ? `+${event.count} free spins (${event.remaining} left)` : `${event.count} FREE SPINS!`;
  }
  if (event.type === "gamble") return `Gamble on ${humanize(String(event.choice))}: ${event.card ?? event.drawn} drawn, ${event.won ? "won" : "lost"}`;
  if (event.type === "collect") return `Collected: ${event.amount}`;
  const details = Object.entries(event)
    .filter(([key, value]) => key !== "type" && typeof value !== "object")
    .map(([key, value]) => `${key.replace(/_/g, " ")} ${typeof value === "string" ? readable(value) : value}`)
    .join(", ");
  return details ? `${humanize(event.type)}: ${details}` : humanize(event.type);
}

/** An identifier as words ("three_little_pigs" -> "three little pigs", "egg_2" -> "egg 2"). */
export function readable(id: string): string {
  return id.replace(/_/g, " ");
}

/** "1 scroll", "2 scrolls". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
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
