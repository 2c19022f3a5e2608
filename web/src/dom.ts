// Small helpers for building the page.

import type { PublishedRtp, Volatility } from "./types";

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | boolean | number | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (name === "class") element.className = String(value);
    else if (name === "text") element.textContent = String(value);
    else if (name === "html") element.innerHTML = String(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** "free_spins_awarded" -> "Free spins awarded". */
export function humanize(name: string): string {
  const words = name.replace(/_/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Open ``box`` as a modal dialog (Escape closes it) and give the focus back to what had it when
 * it closes, so that a keyboard player goes on where they were. */
export function openModal(box: HTMLDialogElement): HTMLDialogElement {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  box.addEventListener("close", () => {
    box.remove();
    if (opener?.isConnected) opener.focus();
  });
  document.body.append(box);
  box.showModal();
  return box;
}

/** A modal dialog with a title and a close button. */
export function dialog(title: string, body: Node, buttons: HTMLButtonElement[] = []): HTMLDialogElement {
  const close = h("button", { class: "close", "aria-label": "Close", text: "×" });
  const box = h("dialog", { "aria-label": title }, h("header", {}, h("h2", { text: title }), close), body, buttons.length ? h("footer", {}, ...buttons) : null);
  close.addEventListener("click", () => box.close());
  return openModal(box);
}

export function clock(seconds: number): string {
  const hh = Math.floor(seconds / 3600);
  const mm = Math.floor((seconds % 3600) / 60);
  const ss = Math.floor(seconds % 60);
  return [hh, mm, ss].map((n) => String(n).padStart(2, "0")).join(":");
}

// The volatility words of the PAR sheets, from the calmest: a player's scale of 1 to 4.
const VOLATILITY_SCALE = ["low", "medium", "medium-high", "high"];

/** A game's volatility as a player reads it: the word and its place on the scale ("high", 4 of 4). */
export function volatilityLevel(v: Volatility | null): { word: string; level: number; of: number } | null {
  if (!v) return null;
  const level = VOLATILITY_SCALE.indexOf(v.word.toLowerCase()) + 1;
  return { word: v.word, level: level || VOLATILITY_SCALE.length, of: VOLATILITY_SCALE.length };
}

/** The plain scale: "High ●●●●" with the word for a screen reader ("high volatility, 4 of 4"). */
export function volatilityScale(v: Volatility | null): HTMLElement {
  const level = volatilityLevel(v);
  if (!level) return h("span", { class: "volatility-scale", text: "not published" });
  const dots = Array.from({ length: level.of }, (_, i) => `<i class="${i < level.level ? "on" : ""}"></i>`).join("");
  return h("span", { class: "volatility-scale", role: "img", "aria-label": `${level.word} volatility, ${level.level} of ${level.of}` },
    h("b", { text: level.word.charAt(0).toUpperCase() + level.word.slice(1) }), h("span", { class: "dots", "aria-hidden": "true", html: dots }));
}

/** A game's volatility figures, as its PAR sheet gives them (the paytable's maths section). */
export function volatilityText(v: Volatility | null): string {
  if (!v) return "see the game's PAR sheet";
  const spread = `volatility index ${v.index}, standard deviation ${v.std} × stake per round`;
  if (!v.by_bet.length) return `${v.word} (${spread})`;
  const indexes = v.by_bet.map((b) => Number(b.index));
  return `${v.word} at the default bet (${spread}); index ${Math.min(...indexes).toFixed(2)} to ${Math.max(...indexes).toFixed(2)} across the bets`;
}

function percentOf(fraction: string): string {
  return `${(Number.parseFloat(fraction) * 100).toFixed(2)}%`;
}

/** The published RTP as the rules print it: "96.59%", or the range "92.46% to 95.26%" where the
 * player's strategy moves it. */
export function rtpText(game: PublishedRtp): string {
  const range = game.rtp_range;
  return range ? `${percentOf(range.min)} to ${percentOf(range.max)}` : percentOf(game.rtp);
}

/** The strategy that gives each end of a published range ("" for a single RTP). */
export function rtpStrategies(game: PublishedRtp): string {
  const range = game.rtp_range;
  if (!range) return "";
  return `${percentOf(range.min)} with the ${range.min_strategy} strategy (${range.min_strategy_text}); ${percentOf(range.max)} with the ${range.max_strategy} strategy (${range.max_strategy_text})`;
}
