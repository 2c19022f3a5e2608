// What a game's own screen adds to the generic game page: its look (colours, symbol art, the
// lobby picture), its stake formula and the words for its events. Grid, symbols, pays and
// decisions come from the server's model.

import type { SymbolArt } from "../art";
import type { GameEvent, GameModel } from "../types";

export interface GameScreen {
  code: string;
  /** The spread of wins, from the game's PAR sheet (standard deviation per round). */
  volatility: string;
  colors: { background: string; frame: string; accent: string };
  symbols: Record<string, SymbolArt>;
  /** The lobby's picture: an SVG drawn here. */
  picture: string;
  /** The total stake of a bet, as the game's rules define it. */
  stake(bet: Record<string, string | number>): string;
  /** Bet fields whose values the model does not list. */
  betValues?: Record<string, string[]>;
  /** A line for an event the generic words do not say well (null: say nothing). */
  describeEvent?(event: GameEvent): string | null | undefined;
  /** Jackpots whose values follow from the stake (shown above the reels). */
  jackpots?(bet: Record<string, string | number>, model: GameModel): { name: string; amount: string }[];
  /** The name of the game's progressive pool, if it has one. */
  poolName?: string;
  /** A feature's progress an event moves (a tower climbed, a stalk grown): [name, what it shows]. */
  meter?(event: GameEvent): [string, string] | undefined;
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
