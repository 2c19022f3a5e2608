// What a game's own screen adds to the generic game page: its look (colours, symbol art, the
// lobby picture) and the words for its events (stakes follow the server's stake rule). Grid, symbols, pays and
// decisions come from the server's model.

import type { SymbolArt } from "../art";
import type { GameEvent, GameModel, Step } from "../types";

export interface GameScreen {
  code: string;
  colors: { background: string; frame: string; accent: string };
  symbols: Record<string, SymbolArt>;
  /** The lobby's picture: an SVG drawn here. */
  picture: string;
  /** Bet fields whose values the model does not list. */
  betValues?: Record<string, string[]>;
  /** A line for an event the generic words do not say well (null: say nothing). */
  describeEvent?(event: GameEvent): string | null | undefined;
  /** Jackpots whose values follow from the stake (shown above the reels). */
  jackpots?(stake: string, bet: Record<string, string | number>, model: GameModel): { name: string; amount: string }[];
  /** The name of the game's progressive pool, if it has one. */
  poolName?: string;
  /** A feature's progress an event moves (a tower climbed, a stalk grown): [name, what it shows].
   * ``before``: the events told this round before this one; the page tells each new screen it
   * shows (a free spin, a re-spin) as ``{type: "step", kind}`` before that screen's events. */
  meter?(event: GameEvent, before: GameEvent[], model: GameModel): [string, string] | undefined;
  /** Features drawn as scenes, by their meter's name: the SVG of the feature as the round's
   * events so far (those the meter takes) left it. */
  scenes?: Record<string, (events: GameEvent[], model: GameModel) => string>;
  /** Cells a step marks (held coins, sticky symbols): "row,reel" -> the mark's name. */
  marks?(step: Step, model: GameModel): Map<string, string>;
  /** The symbols a game's carried state keeps on the grid for the next round at ``bet``
   * (``cell`` in reading order). */
  carried?(state: Record<string, unknown>, bet: Record<string, string | number>): { cell: number; symbol: string; value?: string }[];
  /** The face of a gamble's card (an SVG drawn here) for what was drawn: a suit, the sun. */
  gambleFace?(drawn: string): string;
  /** A picture (SVG in a 40 x 40 box) beside a decision option's label. */
  optionArt?(option: string): string | undefined;
  /** Labels for decision options (value -> what the button says). */
  optionLabels?: Record<string, string>;
}

export function picture(colors: [string, string], body: string, title: string): string {
  return `<svg viewBox="0 0 320 180" role="img" aria-label="${title}">
  <defs><linearGradient id="g-${title.replace(/\W/g, "")}" x1="0" y1="0" x2="1" y2="1">
  <stop offset="0" stop-color="${colors[0]}"/><stop offset="1" stop-color="${colors[1]}"/></linearGradient></defs>
  <rect width="320" height="180" rx="14" fill="url(#g-${title.replace(/\W/g, "")})"/>${body}
  <text x="160" y="166" text-anchor="middle" font-family="Georgia, serif" font-size="24" font-weight="700" fill="#fff" stroke="#0009" stroke-width="3" paint-order="stroke">${title}</text></svg>`;
}

/** A playing card's face (SVG, 70 x 96) with ``glyph`` in its corners and big in the middle. */
export function cardFace(glyph: string, color: string, name: string): string {
  const corner = (x: number, y: number, turn: number) =>
    `<text x="${x}" y="${y}" font-size="14" text-anchor="middle" fill="${color}" transform="rotate(${turn} ${x} ${y - 5})">${glyph}</text>`;
  return `<svg viewBox="0 0 70 96" role="img" aria-label="${name}"><rect x="1" y="1" width="68" height="94" rx="7" fill="#fafafa" stroke="#bbb"/>
    ${corner(10, 18, 0)}${corner(60, 88, 180)}<text x="35" y="60" font-size="40" text-anchor="middle" fill="${color}">${glyph}</text>
    <text x="35" y="80" font-size="8" text-anchor="middle" fill="${color}" font-family="system-ui, sans-serif" font-weight="700">${name}</text></svg>`;
}

/** Marks for the cells events list as ``{row, reel}`` counted from 1. */
export function markPositions(marks: Map<string, string>, positions: unknown, name: string): Map<string, string> {
  for (const p of (Array.isArray(positions) ? positions : []) as { row?: number; reel?: number }[]) {
    if (typeof p.row === "number" && typeof p.reel === "number") marks.set(`${p.row - 1},${p.reel - 1}`, name);
  }
  return marks;
}

/** Marks every symbol on a step's screen that is not BLANK (coins held in a bonus game). */
export function markHeld(marks: Map<string, string>, screen: string[][]): Map<string, string> {
  screen.forEach((row, r) => row.forEach((code, reel) => code !== "BLANK" && marks.set(`${r},${reel}`, "held")));
  return marks;
}
