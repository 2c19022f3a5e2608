// Symbol art drawn here, in SVG: a shape from the symbol's kind, colours and an emblem from the
// game's screen module. Nothing is copied from any real game.

export interface SymbolArt {
  label?: string; // what the cell says (a card rank, a name)
  color?: string; // main colour
  emblem?: string; // SVG drawn inside a 100x100 box, over the background
}

const RANKS: Record<string, string> = { ACE: "A", KING: "K", QUEEN: "Q", JACK: "J", TEN: "10", NINE: "9" };

function hue(code: string): number {
  let h = 0;
  for (const ch of code) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function text(label: string, size: number, fill = "#fff", y = 62): string {
  return `<text x="50" y="${y}" font-size="${size}" text-anchor="middle" font-family="Georgia, serif" font-weight="700" fill="${fill}" stroke="#0008" stroke-width="1.5" paint-order="stroke">${label}</text>`;
}

function shape(kind: string, color: string): string {
  switch (kind) {
    case "wild":
      return `<polygon points="50,6 61,38 95,38 67,58 78,92 50,72 22,92 33,58 5,38 39,38" fill="${color}" stroke="#fff6" stroke-width="3"/>`;
    case "scatter":
      return `<g fill="${color}"><circle cx="50" cy="50" r="26"/>${[...Array(12).keys()]
        .map((i) => `<rect x="47" y="4" width="6" height="18" rx="3" transform="rotate(${i * 30} 50 50)"/>`)
        .join("")}</g>`;
    case "bonus":
      return `<circle cx="50" cy="50" r="42" fill="${color}" stroke="#fff8" stroke-width="5"/><circle cx="50" cy="50" r="32" fill="none" stroke="#0004" stroke-width="3"/>`;
    case "mystery":
      return `<rect x="10" y="10" width="80" height="80" rx="14" fill="${color}" stroke="#fff8" stroke-width="4"/>`;
    case "low":
      return `<rect x="14" y="14" width="72" height="72" rx="16" fill="${color}" opacity="0.85"/>`;
    default:
      return `<polygon points="50,6 90,30 90,70 50,94 10,70 10,30" fill="${color}" stroke="#fff5" stroke-width="3"/>`;
  }
}

/** The SVG of one symbol. */
export function symbolSvg(code: string, kind: string, art: SymbolArt = {}): string {
  if (code === "BLANK") return `<svg viewBox="0 0 100 100" aria-hidden="true"></svg>`;
  const color = art.color ?? `hsl(${hue(code)} 60% 45%)`;
  const rank = RANKS[code];
  let inner = shape(kind, color);
  if (art.emblem) inner += art.emblem;
  const label = art.label ?? (rank && kind === "low" ? rank : kind === "mystery" ? "?" : code.slice(0, 1));
  const size = label.length > 3 ? 17 : label.length > 2 ? 24 : label.length > 1 ? 36 : 44;
  if (!art.emblem || art.label) inner += text(label, size, "#fff", art.emblem ? 88 : 50 + size / 3);
  return `<svg viewBox="0 0 100 100" role="img" aria-label="${code}">${inner}</svg>`;
}
