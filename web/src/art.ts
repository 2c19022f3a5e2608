// Symbol art in SVG, one style per game: every symbol a tile of the game's own colours and frame,
// its picture in the middle (a Twemoji picture from art/emoji.ts, or one drawn in the game's
// screen module), and a banner for the words a symbol carries (WILD, FREE, BONUS). Card ranks
// are letters in the game's colours. Nothing is copied from any real game.

export interface SymbolArt {
  label?: string; // what the cell says (a card rank, a name): the symbol's name for the player
  color?: string; // the tile's colour
  emblem?: string; // SVG drawn inside a 100x100 box, over the tile
  frame?: string; // the tile's frame (the game's frame colour)
  banner?: boolean; // the label on a banner across the foot of the tile (WILD, BONUS) instead of in the middle
}

/** Where the pictures come from, for the rules page. */
export const ART_CREDITS =
  "Symbol pictures built on Twemoji by Twitter, Inc and other contributors (CC-BY 4.0, from the npm package @twemoji/svg); tiles, banners and scenes drawn for slotforge.";

const RANKS: Record<string, string> = { ACE: "A", KING: "K", QUEEN: "Q", JACK: "J", TEN: "10", NINE: "9" };

function hue(code: string): number {
  let h = 0;
  for (const ch of code) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function text(label: string, size: number, fill = "#fff", y = 62, fit = ""): string {
  return `<text x="50" y="${y}" font-size="${size}" text-anchor="middle" font-family="Georgia, serif" font-weight="700" fill="${fill}" stroke="#000a" stroke-width="2" paint-order="stroke"${fit}>${label}</text>`;
}

// The banner's room for its words, and the widest a bold serif capital may be (DejaVu Serif, the
// serif a Linux phone or a container falls back to without Georgia, is wider than Georgia).
const BANNER_ROOM = 80;
const WIDEST_CAPITAL_EM = 0.85;

/** Words that could overflow the banner in a wide serif are fitted to it exactly (SVG's own
 * textLength: the glyphs squeezed or spread to the room), whatever font the browser has. */
function fitted(label: string, size: number): string {
  return label.length * size * WIDEST_CAPITAL_EM > BANNER_ROOM ? ` textLength="${BANNER_ROOM}" lengthAdjust="spacingAndGlyphs"` : "";
}

/** The tile every symbol of a game stands on: its colour lit from the top, in the game's frame. */
function tile(code: string, kind: string, color: string, frame: string): string {
  const id = `tile-${code.toLowerCase()}`;
  const special = kind === "wild" || kind === "scatter" || kind === "bonus";
  return `<defs><radialGradient id="${id}" cx="50%" cy="35%" r="70%"><stop offset="0" stop-color="${color}" stop-opacity="0.95"/><stop offset="1" stop-color="#000" stop-opacity="0.55"/></radialGradient></defs>
  <rect x="4" y="4" width="92" height="92" rx="${kind === "low" ? 12 : 16}" fill="url(#${id})" stroke="${frame}" stroke-width="${special ? 5 : 2.5}" stroke-opacity="${kind === "low" ? 0.5 : 1}"/>`;
}

/** The symbol's words on a ribbon across the tile's foot, or its head (``top``: coins whose value
 * is written across their foot). */
function banner(label: string, frame: string, top = false): string {
  const size = label.length > 5 ? 14 : 17;
  const y = top ? 4 : 72;
  return `<path d="M6 ${y} H94 L90 ${y + 10} L94 ${y + 20} H6 L10 ${y + 10}Z" fill="#000b" stroke="${frame}" stroke-width="2"/>${text(label, size, frame, y + 16, fitted(label, size))}`;
}

/** The SVG of one symbol; its accessible name is the name a player reads for it. */
export function symbolSvg(code: string, kind: string, art: SymbolArt = {}): string {
  if (code === "BLANK") return `<svg viewBox="0 0 100 100" aria-hidden="true"></svg>`;
  const color = art.color ?? `hsl(${hue(code)} 60% 45%)`;
  const frame = art.frame ?? "#ffffffaa";
  const rank = RANKS[code];
  let inner = tile(code, kind, color, frame);
  if (art.emblem) inner += art.emblem;
  const label = art.label ?? (rank ? rank : kind === "mystery" ? "?" : art.emblem ? "" : code.slice(0, 1));
  if (label && art.emblem && (art.banner ?? true)) inner += banner(label, frame, kind === "bonus");
  else if (label) {
    const size = label.length > 3 ? 20 : label.length > 2 ? 28 : label.length > 1 ? 44 : 58;
    inner += text(label, size, rank ? frame : "#fff", 50 + size / 2.8);
  }
  return `<svg viewBox="0 0 100 100" role="img" aria-label="${art.label || code}">${inner}</svg>`;
}

/** A game's symbols all in the game's frame colour. */
export function framed(symbols: Record<string, SymbolArt>, frame: string): Record<string, SymbolArt> {
  return Object.fromEntries(Object.entries(symbols).map(([code, art]) => [code, { frame, ...art }]));
}
