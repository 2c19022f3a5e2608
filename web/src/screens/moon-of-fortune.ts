import { times } from "../money";
import type { GameEvent } from "../types";
import { markHeld, picture, type GameScreen } from "./screen";

const moon = `<circle cx="50" cy="50" r="34" fill="#fff3c4"/><circle cx="64" cy="42" r="30" fill="#7b1f1f"/>`;
const lantern = `<rect x="30" y="25" width="40" height="55" rx="16" fill="#e53935"/><rect x="42" y="15" width="16" height="10" fill="#ffd54a"/><path d="M50 80 v12" stroke="#ffd54a" stroke-width="4"/>`;
const mooncake = `<circle cx="50" cy="50" r="32" fill="#d7a05b"/><circle cx="50" cy="50" r="20" fill="none" stroke="#8d5524" stroke-width="4"/>`;
const fan = `<path d="M50 80 L15 35 Q50 10 85 35Z" fill="#ec407a"/><path d="M50 80 L32 28 M50 80 L50 22 M50 80 L68 28" stroke="#fff8" stroke-width="3"/>`;
const teapot = `<ellipse cx="50" cy="58" rx="28" ry="22" fill="#26a69a"/><path d="M78 55 q14 -4 12 -18" stroke="#26a69a" stroke-width="6" fill="none"/><rect x="42" y="30" width="16" height="8" rx="3" fill="#26a69a"/>`;
const coin = (label: string, color: string) => ({ label, color });

/** Hold the Jackpot: three lanterns, one lit per re-spin left, around the moon that fills as the
 * grid's 16 cells do. */
function holdTheJackpot(events: GameEvent[]): string {
  const last: GameEvent = events.at(-1) ?? { type: "respins" };
  const left = Number(last.left ?? 3);
  const filled = Number(last.filled ?? 0);
  const lanterns = [0, 1, 2]
    .map((i) => {
      const lit = i < left;
      return `<g transform="translate(${40 + i * 80} 150)" class="${lit ? "lit" : "out"}"><path d="M0 -34 v6" stroke="#ffd54a" stroke-width="3"/>
        <rect x="-16" y="-28" width="32" height="40" rx="13" fill="${lit ? "#e53935" : "#4e342e"}" stroke="#ffd54a" stroke-width="2"/>
        ${lit ? `<ellipse cy="-8" rx="8" ry="12" fill="#ffeb3b" opacity="0.8"/>` : ""}<path d="M0 12 v10" stroke="#ffd54a" stroke-width="3"/></g>`;
    })
    .join("");
  const ring = [...Array(16).keys()]
    .map((i) => `<path d="M120 22 v10" stroke="${i < filled ? "#ffd54a" : "#ffffff2a"}" stroke-width="9" transform="rotate(${i * 22.5} 120 64)"/>`)
    .join("");
  const body = `<rect width="240" height="200" fill="#2a0b12"/>${ring}<circle cx="120" cy="64" r="28" fill="#fff3c4"/>
    <circle cx="120" cy="64" r="28" fill="#2a0b12" opacity="${(1 - filled / 16).toFixed(2)}"/>
    <text x="120" y="70" text-anchor="middle" font-size="16" font-weight="700" fill="#ffca28" stroke="#000" stroke-width="2" paint-order="stroke">${filled}/16</text>${lanterns}`;
  return `<svg viewBox="0 0 240 200" role="img" aria-label="${left} lanterns lit, ${filled} cells held">${body}</svg>`;
}

export const moonOfFortune: GameScreen = {
  code: "moon-of-fortune",
  colors: { background: "#2a0b12", frame: "#ffca28", accent: "#e53935" },
  symbols: {
    WILD: { label: "WILD", color: "#ffca28", emblem: moon },
    LANTERN: { color: "#4a148c", emblem: lantern },
    MOONCAKE: { color: "#3e2723", emblem: mooncake },
    FAN: { color: "#1a237e", emblem: fan },
    TEAPOT: { color: "#004d40", emblem: teapot },
    CASH: coin("CASH", "#fbc02d"),
    MINI: coin("MINI", "#90caf9"),
    MINOR: coin("MINOR", "#a5d6a7"),
    MAJOR: coin("MAJOR", "#ef9a9a"),
    COLLECTOR: coin("COLLECT", "#ce93d8"),
    MYSTERY: { label: "?", color: "#6d4c41" },
    RABBIT_MYSTERY: { label: "?", color: "#f8bbd0", emblem: `<path d="M38 12 q-6 25 4 30 M62 12 q6 25 -4 30" stroke="#fff" stroke-width="8" fill="none"/>` },
  },
  picture: picture(["#b71c1c", "#1a0508"], `<g transform="translate(115 15) scale(0.9)">${moon}</g>
    <g transform="translate(30 40) scale(0.8)">${lantern}</g><g transform="translate(210 40) scale(0.8)">${lantern}</g>`, "Moon of Fortune"),
  stake: (bet) => times(String(bet.bet), Number(bet.chance_level)),
  betValues: { volatility: ["low", "standard", "high"] },
  gambleFace(drawn) {
    const sun = `<circle cx="35" cy="44" r="14" fill="#ffb300"/>${[...Array(12).keys()].map((i) => `<rect x="33.5" y="18" width="3" height="8" rx="1.5" fill="#ffb300" transform="rotate(${i * 30} 35 44)"/>`).join("")}`;
    const emblem = drawn === "SUN" ? sun : `<circle cx="35" cy="44" r="20" fill="#fff3c4"/><circle cx="45" cy="38" r="18" fill="#1a237e"/>`;
    const ground = drawn === "SUN" ? "#fff8e1" : "#1a237e";
    return `<svg viewBox="0 0 70 96" role="img" aria-label="${drawn}"><rect x="1" y="1" width="68" height="94" rx="7" fill="${ground}" stroke="#ffca28" stroke-width="2"/>${emblem}
      <text x="35" y="84" font-size="11" text-anchor="middle" font-weight="700" fill="#ffca28" stroke="#0008" stroke-width="0.5">${drawn}</text></svg>`;
  },
  optionLabels: { collect: "Collect", sun: "☀ Sun", moon: "☾ Moon" },
  jackpots(bet, model) {
    // MINI to GRAND are fixed multiples of the base bet (the model's jackpots).
    const table = (model.features?.jackpots ?? {}) as Record<string, number>;
    return Object.entries(table).map(([name, x]) => ({ name: name.charAt(0) + name.slice(1).toLowerCase(), amount: times(String(bet.bet), x) }));
  },
  marks(step) {
    // In Hold the Jackpot every symbol on the grid is held; in the base game a sticky stays.
    const marks = new Map<string, string>();
    if (step.kind === "bonus") markHeld(marks, step.screen);
    for (const event of step.events) if (event.type === "sticky") marks.set(`${Math.floor(Number(event.cell) / 4)},${Number(event.cell) % 4}`, "sticky");
    return marks;
  },
  carried(state, bet) {
    // Stickies belong to the bet configuration they were won on (bet, Chance Level, Volatility).
    const entry = state[`${bet.bet}/x${bet.chance_level}/${bet.volatility}`] as { held?: { cell: number; symbol: string; value?: number }[] } | undefined;
    // A held CASH keeps its value (x bet).
    return (entry?.held ?? []).map(({ cell, symbol, value }) => ({ cell, symbol, value: value === undefined ? undefined : times(String(bet.bet), value) }));
  },
  scenes: { "Hold the Jackpot": holdTheJackpot },
  meter(event) {
    if (event.type === "respins") return ["Hold the Jackpot", `${event.left} re-spins left · ${event.filled} of 16 filled`];
    return undefined;
  },
  describeEvent(event) {
    if (event.type === "cash") return null; // the value is written on the cell
    if (event.type === "hold_the_jackpot") return `HOLD THE JACKPOT! ${event.bonus_symbols} bonus symbols`;
    if (event.type === "respins") return `Re-spins left: ${event.left}`;
    return undefined;
  },
};
