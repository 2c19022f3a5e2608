import { times } from "../money";
import { markPositions, picture, type GameScreen } from "./screen";

const book = `<path d="M15 30 Q50 15 50 30 Q50 15 85 30 V80 Q50 65 50 80 Q50 65 15 80Z" fill="#ffd54a" stroke="#5d4037" stroke-width="3"/><path d="M50 30 V80" stroke="#5d4037" stroke-width="3"/>`;
const spider = `<circle cx="50" cy="50" r="14" fill="#222"/>${[-1, 1].map((s) => [20, 35, 50, 65].map((y) => `<path d="M50 50 L${50 + s * 38} ${y}" stroke="#222" stroke-width="4"/>`).join("")).join("")}`;
const octopus = `<circle cx="50" cy="40" r="22" fill="#8e24aa"/>${[25, 40, 55, 70].map((x) => `<path d="M${x + 2} 55 q-6 15 ${x > 50 ? 8 : -8} 30" stroke="#8e24aa" stroke-width="6" fill="none"/>`).join("")}`;
const snake = `<path d="M20 75 Q30 40 50 60 T80 30" stroke="#43a047" stroke-width="10" fill="none" stroke-linecap="round"/><circle cx="80" cy="30" r="7" fill="#43a047"/>`;
const beetle = `<ellipse cx="50" cy="55" rx="22" ry="28" fill="#00897b"/><path d="M50 28 V83" stroke="#004d40" stroke-width="3"/><circle cx="50" cy="28" r="10" fill="#004d40"/>`;
const suit = (glyph: string, color: string) => ({ label: glyph, color });

export const goldenGrimoire: GameScreen = {
  code: "golden-grimoire",
  colors: { background: "#1b1030", frame: "#d4af37", accent: "#7e57c2" },
  symbols: {
    WILD: { label: "WILD", color: "#d4af37" },
    SCATTER: { label: "", color: "#7e57c2", emblem: book },
    MYSTERY: { label: "?", color: "#5e35b1" },
    STICKY_MYSTERY: { label: "?", color: "#c62828", emblem: `<rect x="8" y="8" width="84" height="84" rx="14" fill="none" stroke="#ffd54a" stroke-width="6"/>` },
    SPIDER: { color: "#b0bec5", emblem: spider },
    OCTOPUS: { color: "#f3e5f5", emblem: octopus },
    SNAKE: { color: "#e8f5e9", emblem: snake },
    BEETLE: { color: "#e0f2f1", emblem: beetle },
    HEART: suit("♥", "#c62828"),
    DIAMOND: suit("♦", "#ef6c00"),
    CLUB: suit("♣", "#2e7d32"),
    SPADE: suit("♠", "#283593"),
  },
  picture: picture(["#4a148c", "#120824"], `<g transform="translate(105 10) scale(1.1)">${book}</g>
    <g transform="translate(20 30) scale(0.7)">${spider}</g><g transform="translate(230 30) scale(0.7)">${octopus}</g>`, "Golden Grimoire"),
  stake: (bet) => times(String(bet.coin_value), Number(bet.bet_level) * 20),
  marks(step) {
    // Mysteries turned over glow; in free spins the sticky ones stay marked to the end.
    const marks = new Map<string, string>();
    for (const event of step.events) {
      if (event.type === "mystery") markPositions(marks, event.positions, "revealed");
      if (event.type === "sticky_landed") markPositions(marks, event.held, "sticky");
      if (event.type === "sticky_mystery") markPositions(marks, event.positions, "sticky"); // every one held so far
    }
    return marks;
  },
  meter(event) {
    if (event.type === "sticky_landed") return ["Sticky mysteries", `${(event.held as unknown[]).length} held`];
    if (event.type === "mystery" || event.type === "sticky_mystery") return ["Mystery", `turned ${event.symbol}`];
    return undefined;
  },
};
