import { times } from "../money";
import { markHeld, picture, type GameScreen } from "./screen";

const medusa = `<circle cx="50" cy="50" r="22" fill="#a5d6a7"/>${[0, 60, 120, 180, 240, 300].map((a) => `<path d="M50 50 q20 -10 34 6" stroke="#2e7d32" stroke-width="6" fill="none" transform="rotate(${a} 50 50)"/>`).join("")}`;
const lion = `<circle cx="50" cy="50" r="36" fill="#ef6c00"/><circle cx="50" cy="52" r="22" fill="#ffcc80"/><circle cx="43" cy="48" r="3"/><circle cx="57" cy="48" r="3"/>`;
const minotaur = `<path d="M20 30 Q30 55 40 40 M80 30 Q70 55 60 40" stroke="#eee" stroke-width="7" fill="none"/><rect x="33" y="38" width="34" height="40" rx="14" fill="#6d4c41"/>`;
const eagle = `<path d="M10 45 Q50 20 90 45 Q65 50 55 75 H45 Q35 50 10 45Z" fill="#8d6e63"/><circle cx="50" cy="40" r="8" fill="#fff"/>`;

export const divineFortune: GameScreen = {
  code: "divine-fortune",
  colors: { background: "#0d2238", frame: "#cfd8dc", accent: "#ffb300" },
  symbols: {
    WILD: { label: "WILD", color: "#ffb300" },
    FREESPINS: { label: "FREE", color: "#29b6f6" },
    BONUS: { label: "BONUS", color: "#ffd54a" },
    MEDUSA: { color: "#1b5e20", emblem: medusa },
    LION: { color: "#4e342e", emblem: lion },
    MINOTAUR: { color: "#3e2723", emblem: minotaur },
    EAGLE: { color: "#0d47a1", emblem: eagle },
  },
  picture: picture(["#1565c0", "#0a1929"], `<path d="M40 140 V60 M80 140 V60 M240 140 V60 M280 140 V60" stroke="#e0e0e0" stroke-width="12"/>
    <path d="M30 60 H290 L160 20Z" fill="#e0e0e0"/><g transform="translate(115 55) scale(0.9)">${lion}</g>`, "Divine Fortune"),
  stake: (bet) => times(String(bet.coin_value), Number(bet.bet_level) * 20),
  optionLabels: { start_bonus: "Start the bonus game" },
  poolName: "Mega",
  jackpots(bet, model) {
    // Minor and Major are fixed multiples of the total stake (the model's bonus game).
    const game = (model.features?.bonus_game ?? {}) as { minor_x_total_bet?: number; major_x_total_bet?: number };
    const stake = this.stake(bet);
    return [
      { name: "Minor", amount: times(stake, game.minor_x_total_bet ?? 0) },
      { name: "Major", amount: times(stake, game.major_x_total_bet ?? 0) },
    ];
  },
  marks(step) {
    // The bonus game's coins stay where they landed; wilds about to fall one row are marked.
    const marks = new Map<string, string>();
    if (step.kind === "bonus") {
      // A row filled with coins wins a jackpot (one row Minor, two Major, three Mega).
      markHeld(marks, step.screen);
      step.screen.forEach((row, r) => row.every((code) => code !== "BLANK") && row.forEach((_, reel) => marks.set(`${r},${reel}`, "held full")));
      return marks;
    }
    if (step.events.some((e) => e.type === "falling_wilds" && Number(e.count) > 0)) {
      step.screen.forEach((row, r) => row.forEach((code, reel) => code === "WILD" && marks.set(`${r},${reel}`, "falling")));
    }
    return marks;
  },
  meter(event) {
    if (event.type === "falling_wilds") return ["Falling wilds", `${event.count} on the reels`];
    if (event.type === "bonus_landed" || event.type === "bonus_placed") return ["Bonus game", `coin on cell ${Number(event.cell) + 1} of 15`];
    return undefined;
  },
  describeEvent(event) {
    if (event.type === "falling_wilds") return event.count ? `Falling wilds: ${event.count} wild${event.count === 1 ? "" : "s"} fall one row` : null;
    if (event.type === "wild_on_wild") return `Wild on Wild: reel ${event.reel} turns wild`;
    if (event.type === "jackpot") return `${String(event.jackpot)} JACKPOT!`;
    return undefined;
  },
};
