import { framed } from "../art";
import { emoji } from "../art/emoji";
import { times } from "../money";
import { markHeld, picture, type GameScreen } from "./screen";
import { fallingWilds, frieze, friezeWords } from "./temple";


export const divineFortune: GameScreen = {
  code: "divine-fortune",
  colors: { background: "#0d2238", frame: "#cfd8dc", accent: "#ffb300" },
  // Marble-blue tiles in a silver frame: Zeus's lightning the WILD, the temple the free spins.
  symbols: framed({
    WILD: { label: "WILD", color: "#ffb300", emblem: emoji("lightning", 22, 4, 62) },
    FREESPINS: { label: "FREE SPINS", color: "#29b6f6", emblem: emoji("temple", 20, 4, 62) },
    BONUS: { label: "BONUS", color: "#ffd54a", emblem: emoji("coin", 22, 24, 56) },
    MEDUSA: { color: "#1b5e20", emblem: emoji("snake") },
    LION: { color: "#4e342e", emblem: emoji("lion") },
    MINOTAUR: { color: "#3e2723", emblem: emoji("ox") },
    EAGLE: { color: "#0d47a1", emblem: emoji("eagle") },
    ACE: { color: "#1a3a5c" }, KING: { color: "#1a3a5c" }, QUEEN: { color: "#1a3a5c" }, JACK: { color: "#1a3a5c" }, TEN: { color: "#1a3a5c" },
  }, "#cfd8dc"),
  picture: picture(["#1565c0", "#0a1929"], `<path d="M40 140 V60 M80 140 V60 M240 140 V60 M280 140 V60" stroke="#e0e0e0" stroke-width="12"/>
    <path d="M30 60 H290 L160 20Z" fill="#e0e0e0"/><g transform="translate(115 45) scale(0.9)">${emoji("lion")}</g><g transform="translate(40 10) scale(0.6)">${emoji("lightning")}</g>`, "Divine Fortune"),
  optionLabels: { start_bonus: "Start the bonus game" },
  poolName: "Mega",
  jackpots(stake, _bet, model) {
    // Minor and Major are fixed multiples of the total stake (the model's bonus game).
    const game = (model.features?.bonus_game ?? {}) as { minor_x_total_bet?: number; major_x_total_bet?: number };
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
  meter(event, before, model) {
    // Falling wilds are told from the first that falls (not on every spin without one).
    const falling = before.some((e) => e.type === "falling_wilds" && Number(e.count) > 0);
    if (event.type === "falling_wilds" && (Number(event.count) > 0 || falling)) return ["Falling wilds", `${event.count} on the reels`];
    if (event.type === "wild_on_wild") return ["Falling wilds", `reel ${event.reel} turns wild`];
    // The frieze takes the bonus game's screens (each drops its own coins) and its coins.
    const bonus = (event.type === "step" && event.kind === "bonus") || ["bonus_placed", "bonus_landed", "jackpot_bonus_end"].includes(event.type);
    return bonus ? ["Bonus game", friezeWords([...before, event], model)] : undefined;
  },
  scenes: { "Bonus game": frieze, "Falling wilds": fallingWilds },
  describeEvent(event) {
    if (event.type === "falling_wilds") return event.count ? `Falling wilds: ${event.count} wild${event.count === 1 ? "" : "s"} fall one row` : null;
    if (event.type === "wild_on_wild") return `Wild on Wild: reel ${event.reel} turns wild`;
    if (event.type === "jackpot") return `${String(event.jackpot)} JACKPOT!`;
    if (event.type === "bonus_collected") return `Bonus coins collected: ${event.collected}`;
    if (event.type === "jackpot_bonus_triggered") return `THE BONUS GAME! ${event.placed} coins to start`;
    if (event.type === "bonus_placed" || event.type === "bonus_landed") return `A coin ${event.type === "bonus_placed" ? "is placed" : "lands"}: ${event.amount}`;
    if (event.type === "jackpot_bonus_end") {
      const rows = Number(event.full_rows);
      return `The bonus game ends: ${event.cells} coins, ${rows} full row${rows === 1 ? "" : "s"}`;
    }
    return undefined;
  },
};
