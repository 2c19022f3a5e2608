import { times } from "../money";
import { picture, type GameScreen } from "./screen";

const moon = `<circle cx="50" cy="50" r="34" fill="#fff3c4"/><circle cx="64" cy="42" r="30" fill="#7b1f1f"/>`;
const lantern = `<rect x="30" y="25" width="40" height="55" rx="16" fill="#e53935"/><rect x="42" y="15" width="16" height="10" fill="#ffd54a"/><path d="M50 80 v12" stroke="#ffd54a" stroke-width="4"/>`;
const mooncake = `<circle cx="50" cy="50" r="32" fill="#d7a05b"/><circle cx="50" cy="50" r="20" fill="none" stroke="#8d5524" stroke-width="4"/>`;
const fan = `<path d="M50 80 L15 35 Q50 10 85 35Z" fill="#ec407a"/><path d="M50 80 L32 28 M50 80 L50 22 M50 80 L68 28" stroke="#fff8" stroke-width="3"/>`;
const teapot = `<ellipse cx="50" cy="58" rx="28" ry="22" fill="#26a69a"/><path d="M78 55 q14 -4 12 -18" stroke="#26a69a" stroke-width="6" fill="none"/><rect x="42" y="30" width="16" height="8" rx="3" fill="#26a69a"/>`;
const coin = (label: string, color: string) => ({ label, color });

export const moonOfFortune: GameScreen = {
  code: "moon-of-fortune",
  volatility: "high: standard deviation 10.0 / 11.8 / 14.5 x stake per round at low / standard / high",
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
  optionLabels: { collect: "Collect", sun: "☀ Sun", moon: "☾ Moon" },
  jackpots(bet, model) {
    // MINI to GRAND are fixed multiples of the base bet (the model's jackpots).
    const table = (model.features?.jackpots ?? {}) as Record<string, number>;
    return Object.entries(table).map(([name, x]) => ({ name: name.charAt(0) + name.slice(1).toLowerCase(), amount: times(String(bet.bet), x) }));
  },
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
