import { humanize } from "../dom";
import { framed } from "../art";
import { emoji } from "../art/emoji";
import { cardFace, picture, type GameScreen } from "./screen";


// The card gamble's suits: hearts and diamonds are red, clubs and spades black.
const SUITS: Record<string, [string, string]> = { HEARTS: ["♥", "#c62828"], DIAMONDS: ["♦", "#c62828"], CLUBS: ["♣", "#212121"], SPADES: ["♠", "#212121"] };

export const dynasty: GameScreen = {
  code: "dynasty",
  colors: { background: "#3b0d0d", frame: "#c9a227", accent: "#e53935" },
  // Red lacquer tiles in a gold frame; the imperial seal is the WILD, the Emperor's crown the scatter.
  symbols: framed({
    SEAL: { label: "WILD", color: "#b71c1c", emblem: emoji("mahjongDragon", 22, 6, 58) },
    EMPEROR: { label: "EMPEROR", color: "#ffb300", emblem: emoji("crown", 18, 6, 64) },
    DRAGON: { color: "#1b5e20", emblem: emoji("dragon") },
    PHOENIX: { color: "#6a1b9a", emblem: emoji("fire", 16, 14, 68) + emoji("bird", 24, 18, 52) },
    TIGER: { color: "#37474f", emblem: emoji("tigerFace") },
    KOI: { color: "#01579b", emblem: emoji("tropicalFish") },
    ACE: { color: "#7f0000" }, KING: { color: "#7f0000" }, QUEEN: { color: "#7f0000" }, JACK: { color: "#7f0000" }, TEN: { color: "#7f0000" }, NINE: { color: "#7f0000" },
  }, "#ffd54a"),
  picture: picture(["#7f0000", "#2a0000"], `<g transform="translate(100 0) scale(1.3)">${emoji("dragon")}</g>
    <g transform="translate(10 20) scale(1)">${emoji("fire", 16, 14, 68)}${emoji("bird", 24, 18, 52)}</g><g transform="translate(215 20)">${emoji("crown")}</g>`, "Dynasty"),
  describeEvent(event) {
    if (event.type === "gamble") return `${humanize(String(event.choice))} on ${String(event.card).toLowerCase()}: ${event.won ? "won" : "lost"}`;
    return undefined;
  },
  gambleFace(card) {
    const suit = SUITS[card] ?? ["?", "#222"];
    return cardFace(suit[0], suit[1], card);
  },
  optionLabels: { collect: "Collect", red: "Red", black: "Black", hearts: "♥ Hearts", diamonds: "♦ Diamonds", clubs: "♣ Clubs", spades: "♠ Spades" },
};
