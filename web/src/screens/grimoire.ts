// Golden Grimoire's features drawn as a scene (SVG drawn here): the grimoire opening on the symbol
// its mysteries turn into, the free spins as the book's pages, one turned per spin, and the
// sticky mysteries held. Drawn again from the round's events so far; what the latest event added
// is marked "fresh" and animated by CSS.

import { symbolSvg, type SymbolArt } from "../art";
import type { GameEvent, GameModel } from "../types";

/** What the round's events so far tell of the grimoire. */
export interface GrimoireState {
  awarded: number; // free spins awarded (retriggers included)
  played: number; // free spins shown
  symbol: string | null; // what the latest mysteries turned into
  turned: number; // how many mysteries it turned
  sticky: number; // sticky mysteries held
  latest: "mystery" | "page" | "award" | "sticky" | null; // what the latest event was
}

/** The grimoire's state after ``events`` (any of the round's events: the others are ignored). */
export function grimoireState(events: GameEvent[]): GrimoireState {
  const state: GrimoireState = { awarded: 0, played: 0, symbol: null, turned: 0, sticky: 0, latest: null };
  for (const event of events) {
    if (event.type === "free_spins_awarded") {
      state.awarded += Number(event.count);
      state.latest = "award";
    } else if (event.type === "step" && event.kind === "free") {
      state.played += 1;
      state.latest = "page";
    } else if (event.type === "mystery" || event.type === "sticky_mystery") {
      state.symbol = String(event.symbol);
      state.turned = (event.positions as unknown[]).length;
      if (event.type === "sticky_mystery") state.sticky = state.turned; // every sticky one turns together
      state.latest = "mystery";
    } else if (event.type === "sticky_landed") {
      state.sticky = (event.held as unknown[]).length;
      state.latest = "sticky";
    }
  }
  return state;
}

/** The grimoire's state in words (the scene's caption). */
export function grimoireWords(state: GrimoireState): string {
  const parts: string[] = [];
  if (state.awarded) parts.push(state.played ? `free spin ${state.played} of ${state.awarded}` : `${state.awarded} free spins`);
  if (state.symbol) parts.push(`mysteries turned ${state.symbol}`);
  if (state.sticky) parts.push(`${state.sticky} sticky`);
  return parts.join(" · ");
}

/** The free spins as pages across the top: those played turned over to the left, the one being
 * played gold, those to come to the right. */
function pages(state: GrimoireState): string {
  if (!state.awarded) {
    const candle = (x: number) => `<rect x="${x - 5}" y="52" width="10" height="26" rx="2" fill="#f3e5c0"/><path d="M${x} 52 q-5 -8 0 -16 q5 8 0 16z" fill="#ffb300"/>`;
    return `${candle(40)}${candle(200)}<text x="120" y="40" text-anchor="middle" font-size="13" font-weight="700" fill="#ffd54a" font-family="Georgia, serif">THE GRIMOIRE</text>`;
  }
  const gap = Math.min(24, 200 / state.awarded);
  const x0 = 120 - (gap * (state.awarded - 1)) / 2;
  let body = `<text x="120" y="20" text-anchor="middle" font-size="13" font-weight="700" fill="#ffd54a" font-family="Georgia, serif">${
    state.played ? `FREE SPIN ${state.played} / ${state.awarded}` : `${state.awarded} FREE SPINS`
  }</text>`;
  for (let i = 0; i < state.awarded; i++) {
    const x = x0 + i * gap;
    const current = i === state.played - 1;
    const turned = i < state.played - 1;
    const fresh = current && state.latest === "page" ? " fresh turn" : "";
    const fill = current ? "#ffd54a" : turned ? "#6d5a8a" : "#f3e5c0";
    body += `<g class="page${turned ? " turned" : current ? " current" : ""}${fresh}" style="transform-origin: ${x}px 48px">
      <path d="${turned ? `M${x - 7} 36 l14 -4 v28 l-14 4z` : `M${x - 7} 32 h14 v28 h-14z`}" fill="${fill}" stroke="#3e2723" stroke-width="1.5"/>
      ${turned ? "" : `<path d="M${x - 4} 40 h8 M${x - 4} 46 h8 M${x - 4} 52 h6" stroke="#0004"/>`}</g>`;
  }
  return body;
}

/** The symbol the mysteries turned into, drawn on the right page. */
function revealed(state: GrimoireState, model: GameModel, art: Record<string, SymbolArt>): string {
  if (!state.symbol) return `<text x="166" y="146" text-anchor="middle" font-size="40" fill="#7e57c2" font-family="Georgia, serif">?</text>`;
  const kind = model.symbols.find((s) => s.code === state.symbol)?.kind ?? "high";
  return symbolSvg(state.symbol, kind, art[state.symbol]).replace("<svg ", `<svg x="136" y="104" width="60" height="60" `);
}

/** The grimoire: the open book (opening anew on each mystery's reveal), the mysteries' count and
 * the sticky ones on the left page, the revealed symbol on the right, the free spins' pages above. */
export function grimoire(events: GameEvent[], model: GameModel, art: Record<string, SymbolArt>): string {
  const state = grimoireState(events);
  const opening = state.latest === "mystery" ? " fresh open" : "";
  const rays = state.symbol
    ? `<g class="rays${opening}" style="transform-origin: 166px 134px" stroke="#ffd54a" stroke-width="3" stroke-linecap="round" opacity="0.8">${[...Array(7).keys()]
        .map((i) => `<path d="M166 80 v-14" transform="rotate(${i * 22 - 66} 166 134)"/>`)
        .join("")}</g>`
    : "";
  const left = [
    `<text x="76" y="116" text-anchor="middle" font-size="11" font-weight="700" fill="#4a148c" font-family="Georgia, serif">MYSTERY</text>`,
    state.symbol ? `<text x="76" y="136" text-anchor="middle" font-size="11" fill="#3e2723">${state.turned} turned</text>` : "",
    state.sticky
      ? `<g class="${state.latest === "sticky" ? "fresh stamp" : ""}" style="transform-origin: 76px 156px"><rect x="46" y="146" width="60" height="18" rx="5" fill="#f48fb1"/>
        <text x="76" y="159" text-anchor="middle" font-size="10" font-weight="800" fill="#2a0b12">STICKY ×${state.sticky}</text></g>`
      : "",
  ].join("");
  const body = `<rect width="240" height="200" fill="#1b1030"/>${[18, 52, 196, 224].map((x, i) => `<circle cx="${x}" cy="${70 + (i % 2) * 14}" r="1.5" fill="#fff9"/>`).join("")}
    ${pages(state)}
    <rect x="16" y="92" width="208" height="96" rx="8" fill="#4a148c" stroke="#d4af37" stroke-width="3"/>
    ${rays}
    <g class="leaves${opening}" style="transform-origin: 120px 140px">
    <path d="M26 96 Q72 84 118 98 V182 Q72 170 26 182Z" fill="#f3e5c0" stroke="#8d6e63"/>
    <path d="M122 98 Q168 84 214 96 V182 Q168 170 122 182Z" fill="#f3e5c0" stroke="#8d6e63"/>
    <path d="M120 96 V184" stroke="#8d6e63" stroke-width="3"/>${left}${revealed(state, model, art)}</g>`;
  const label = `The grimoire${state.symbol ? ` opens on ${state.symbol}` : ""}${state.awarded ? `, free spin ${state.played} of ${state.awarded}` : ""}${
    state.sticky ? `, ${state.sticky} sticky mysteries held` : ""
  }`;
  return `<svg viewBox="0 0 240 200" role="img" aria-label="${label}">${body}</svg>`;
}
