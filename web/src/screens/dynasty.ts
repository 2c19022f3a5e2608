import { humanize } from "../dom";
import { times } from "../money";
import { cardFace, picture, type GameScreen } from "./screen";

const dragon = `<path d="M20 60 Q35 20 55 35 T85 30 Q70 50 80 70 Q55 60 45 75 Q40 60 20 60Z" fill="#ffd54a" opacity="0.9"/><circle cx="62" cy="38" r="4" fill="#400"/>`;
const phoenix = `<path d="M50 85 Q30 60 15 30 Q40 45 50 20 Q60 45 85 30 Q70 60 50 85Z" fill="#ff8a3d"/>`;
const tiger = `<path d="M25 30 h50 v40 q-25 20 -50 0Z" fill="#f2a33a"/><path d="M35 35 l5 15 M50 35 v18 M65 35 l-5 15" stroke="#222" stroke-width="5"/>`;
const koi = `<ellipse cx="48" cy="50" rx="30" ry="16" fill="#ff6b4a"/><path d="M75 50 l18 -14 v28z" fill="#ff6b4a"/><circle cx="30" cy="46" r="4" fill="#fff"/>`;

// The card gamble's suits: hearts and diamonds are red, clubs and spades black.
const SUITS: Record<string, [string, string]> = { HEARTS: ["♥", "#c62828"], DIAMONDS: ["♦", "#c62828"], CLUBS: ["♣", "#212121"], SPADES: ["♠", "#212121"] };

export const dynasty: GameScreen = {
  code: "dynasty",
  colors: { background: "#3b0d0d", frame: "#c9a227", accent: "#e53935" },
  symbols: {
    SEAL: { label: "WILD", color: "#b71c1c", emblem: `<rect x="30" y="22" width="40" height="40" rx="6" fill="#ffd54a"/>` },
    EMPEROR: { label: "EMPEROR", color: "#ffb300" },
    DRAGON: { color: "#2e7d32", emblem: dragon },
    PHOENIX: { color: "#6a1b9a", emblem: phoenix },
    TIGER: { color: "#37474f", emblem: tiger },
    KOI: { color: "#0277bd", emblem: koi },
  },
  picture: picture(["#7f0000", "#2a0000"], `<g transform="translate(110 20) scale(1)">${dragon}</g>
    <circle cx="60" cy="70" r="32" fill="#ffd54a" opacity="0.8"/><circle cx="260" cy="70" r="32" fill="#e53935" stroke="#ffd54a" stroke-width="5"/>`, "Dynasty"),
  stake: (bet) => times(String(bet.coin_value), Number(bet.lines) * Number(bet.coins_per_line)),
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
