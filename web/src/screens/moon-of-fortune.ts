import { framed } from "../art";
import { emoji } from "../art/emoji";
import { times } from "../money";
import type { GameEvent } from "../types";
import { markHeld, picture, type GameScreen } from "./screen";

const coin = (label: string, color: string) => ({ label, color, emblem: emoji("coin", 22, 24, 56) });

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
  // Night-red tiles in a gold frame: the full moon the WILD, the Mid-Autumn festival's lanterns,
  // mooncakes, fans and tea; the coins of Hold the Jackpot gold with their names.
  symbols: framed({
    WILD: { label: "WILD", color: "#1a237e", emblem: emoji("fullMoon", 20, 4, 62) },
    LANTERN: { color: "#4a148c", emblem: emoji("lantern") },
    MOONCAKE: { color: "#3e2723", emblem: emoji("mooncake") },
    FAN: { color: "#1a237e", emblem: emoji("fan") },
    TEAPOT: { color: "#004d40", emblem: emoji("teapot") },
    ACE: { color: "#5d1010" }, KING: { color: "#5d1010" }, QUEEN: { color: "#5d1010" }, JACK: { color: "#5d1010" },
    CASH: coin("CASH", "#fbc02d"),
    MINI: coin("MINI", "#90caf9"),
    MINOR: coin("MINOR", "#a5d6a7"),
    MAJOR: coin("MAJOR", "#ef9a9a"),
    COLLECTOR: { label: "COLLECT", color: "#ce93d8", emblem: emoji("moneyBag", 22, 24, 56) },
    MYSTERY: { label: "?", color: "#6d4c41" },
    RABBIT_MYSTERY: { label: "?", color: "#f8bbd0", emblem: emoji("rabbit", 20, 4, 62) },
  }, "#ffca28"),
  picture: picture(["#b71c1c", "#1a0508"], `<g transform="translate(110 0) scale(1.1)">${emoji("fullMoon")}</g>
    <g transform="translate(20 30) scale(0.9)">${emoji("lantern")}</g><g transform="translate(210 30) scale(0.9)">${emoji("lantern")}</g><g transform="translate(125 95) scale(0.5)">${emoji("rabbit")}</g>`, "Moon of Fortune"),
  betValues: { volatility: ["low", "standard", "high"] },
  gambleFace(drawn) {
    const sun = `<circle cx="35" cy="44" r="14" fill="#ffb300"/>${[...Array(12).keys()].map((i) => `<rect x="33.5" y="18" width="3" height="8" rx="1.5" fill="#ffb300" transform="rotate(${i * 30} 35 44)"/>`).join("")}`;
    const emblem = drawn === "SUN" ? sun : `<circle cx="35" cy="44" r="20" fill="#fff3c4"/><circle cx="45" cy="38" r="18" fill="#1a237e"/>`;
    const ground = drawn === "SUN" ? "#fff8e1" : "#1a237e";
    return `<svg viewBox="0 0 70 96" role="img" aria-label="${drawn}"><rect x="1" y="1" width="68" height="94" rx="7" fill="${ground}" stroke="#ffca28" stroke-width="2"/>${emblem}
      <text x="35" y="84" font-size="11" text-anchor="middle" font-weight="700" fill="#ffca28" stroke="#0008" stroke-width="0.5">${drawn}</text></svg>`;
  },
  optionLabels: { collect: "Collect", sun: "☀ Sun", moon: "☾ Moon" },
  jackpots(_stake, bet, model) {
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
    if (event.type === "mystery_open") return `A mystery opens: ${event.becomes}${event.value === undefined ? "" : ` ${event.value}`}`;
    if (event.type === "collector") return `The collector gathers ${event.cash} × ${event.multiplier} = ${event.value}`;
    return undefined;
  },
};
