import { framed } from "../art";
import { emoji } from "../art/emoji";
import { grimoire, grimoireState, grimoireWords } from "./grimoire";
import { markPositions, picture, type GameScreen } from "./screen";


export const goldenGrimoire: GameScreen = {
  code: "golden-grimoire",
  colors: { background: "#1b1030", frame: "#d4af37", accent: "#7e57c2" },
  // Leather-bound tiles in a gold frame: the grimoire's creatures and its mysteries; its suits on
  // parchment (black clubs and spades must read on their tile).
  symbols: framed({
    WILD: { label: "WILD", color: "#d4af37", emblem: emoji("sparkles", 20, 6, 62) },
    SCATTER: { label: "GRIMOIRE", color: "#7e57c2", emblem: emoji("openBook", 16, 4, 66) },
    MYSTERY: { label: "?", color: "#5e35b1" },
    STICKY_MYSTERY: { label: "?", color: "#c62828", emblem: `<rect x="12" y="12" width="76" height="76" rx="12" fill="none" stroke="#ffd54a" stroke-width="5" stroke-dasharray="8 5"/>`, banner: false },
    SPIDER: { color: "#cfd8dc", emblem: emoji("spider") }, // a pale web behind the black spider
    OCTOPUS: { color: "#4a148c", emblem: emoji("octopus") },
    SNAKE: { color: "#1b5e20", emblem: emoji("snake") },
    BEETLE: { color: "#004d40", emblem: emoji("beetle") },
    HEART: { color: "#f3e2c0", emblem: emoji("heart", 22, 20, 56), label: "" },
    DIAMOND: { color: "#f3e2c0", emblem: emoji("diamond", 22, 20, 56), label: "" },
    CLUB: { color: "#f3e2c0", emblem: emoji("club", 22, 20, 56), label: "" },
    SPADE: { color: "#f3e2c0", emblem: emoji("spade", 22, 20, 56), label: "" },
  }, "#d4af37"),
  picture: picture(["#4a148c", "#120824"], `<g transform="translate(100 -5) scale(1.2)">${emoji("openBook")}</g>
    <g transform="translate(15 25) scale(0.9)">${emoji("spider")}</g><g transform="translate(215 25) scale(0.9)">${emoji("octopus")}</g>`, "Golden Grimoire"),
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
  meter(event, before) {
    // The grimoire takes the mysteries, the sticky ones, the free spins awarded and each free spin.
    const takes = ["mystery", "sticky_mystery", "sticky_landed", "free_spins_awarded"].includes(event.type);
    if (!takes && !(event.type === "step" && event.kind === "free")) return undefined;
    return ["Grimoire", grimoireWords(grimoireState([...before, event]))];
  },
  describeEvent(event) {
    if (event.type === "mystery") return `The mysteries turn ${event.symbol}`;
    if (event.type === "sticky_mystery") return `The sticky mysteries turn ${event.symbol}`;
    if (event.type === "sticky_landed") return `A sticky mystery lands: ${(event.held as unknown[]).length} held`;
    if (event.type === "free_spins_total") return `Free spins total: ${event.amount}`;
    return undefined;
  },
  scenes: { Grimoire: (events, model) => grimoire(events, model, goldenGrimoire.symbols) },
};
