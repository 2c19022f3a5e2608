import { framed } from "../art";
import { emoji } from "../art/emoji";
import { plural, readable } from "../rounds";
import { PICKS, beanstalk, dealMaker, threePigs, tower } from "./fairy-tales";
import { picture, type GameScreen } from "./screen";

const harp = `<path d="M28 86 V18 Q70 14 78 78 Z" fill="#ffd54a33" stroke="#ffd54a" stroke-width="7" stroke-linejoin="round"/><path d="M22 86 H50" stroke="#ffb300" stroke-width="8" stroke-linecap="round"/>${[38, 48, 58, 68].map((x) => `<path d="M${x} ${20 + (x - 28) * 0.2} V${80 - (x - 28) * 0.1}" stroke="#fff8e1" stroke-width="2"/>`).join("")}<circle cx="28" cy="18" r="6" fill="#ffd54a"/>`;
const BOOKS = ["Storybook 1", "Storybook 2", "Storybook 3", "Storybook 4"];

export const wishUponAJackpot: GameScreen = {
  code: "wish-upon-a-jackpot",
  colors: { background: "#1a1240", frame: "#f8bbd0", accent: "#8e24aa" },
  // Storybook-night tiles in a pink frame: the wishing star (WISH) and the fairy tales' harp,
  // castle and slipper; the storybooks are the bonus, the Prince Rapunzel's scatter.
  symbols: framed({
    WILD: { label: "WILD", color: "#7b1fa2", emblem: emoji("glowingStar", 22, 4, 60) },
    LOGO: { label: "WISH", color: "#4527a0", emblem: emoji("shootingStar", 20, 4, 64) },
    HARP: { color: "#5d4037", emblem: harp },
    PALACE: { color: "#4a148c", emblem: emoji("castle") },
    SLIPPER: { color: "#01579b", emblem: emoji("shoe") },
    BONUS: { label: "BONUS", color: "#6a1b9a", emblem: emoji("books", 20, 4, 62) },
    PRINCE: { label: "PRINCE", color: "#0d47a1", emblem: emoji("prince", 20, 4, 62) },
    ACE: { color: "#2a1a5e" }, KING: { color: "#2a1a5e" }, QUEEN: { color: "#2a1a5e" }, JACK: { color: "#2a1a5e" }, TEN: { color: "#2a1a5e" },
  }, "#f8bbd0"),
  picture: picture(["#6a1b9a", "#140b2e"], `<g transform="translate(105 0) scale(1.1)">${emoji("castle")}</g>
    <g transform="translate(20 20) scale(0.9)">${emoji("shootingStar")}</g><g transform="translate(215 20) scale(0.9)">${emoji("prince")}</g>`, "Wish Upon a Jackpot"),
  optionLabels: {
    take: "TAKE IT",
    leave: "LEAVE IT",
    ...Object.fromEntries(BOOKS.map((label, i) => [`book_${i + 1}`, label])),
    ...Object.fromEntries([1, 2, 3].flatMap((i) => [[`orb_${i}`, `Orb ${i}`], [`bean_${i}`, `Bean ${i}`], [`egg_${i}`, `Egg ${i}`]])),
  },
  meter(event) {
    if (event.type === "prince_climbs") return ["Rapunzel's tower", `level ${event.level} · wins ×${event.multiplier}`];
    if (event.type === "bean") return ["Beanstalk", Number(event.level) > 8 ? "the top: pick a golden egg" : `level ${event.level} of 8`];
    if (event.type === "pig" || event.type === "wolf") return ["Pig WILDs standing", String(event.wilds_standing)];
    if (event.type === "offer") return ["Deal Maker", `offer ${event.offer}: ${event.amount} · ${plural(Number(event.scrolls_left), "scroll")} left`];
    if (event.type === "deal") return ["Deal Maker", `deal: ${event.amount}`];
    return undefined;
  },
  scenes: { "Rapunzel's tower": tower, Beanstalk: beanstalk, "Pig WILDs standing": threePigs, "Deal Maker": dealMaker },
  optionArt: (option) => PICKS[option.split("_")[0]],
  describeEvent(event) {
    const words: Record<string, string> = {
      deal_maker: "Rumpelstiltskin's Deal Maker",
      beanstalk: "Jack and the Beanstalk",
      three_little_pigs: "3 Little Pigs Free Spins",
      rapunzel: "Rapunzel Free Spins",
      puss_in_boots: "Puss in Boots",
      pinocchio: "Pinocchio",
      gingerbread_man: "the Gingerbread Man",
    };
    switch (event.type) {
      case "fairy_godmother":
        return `The Fairy Godmother: ${String(event.orb).replace("_", " ")} chosen`;
      case "wish":
        return `A wish from ${words[String(event.wish)] ?? event.wish}: cells turn WILD`;
      case "fairy_tale_bonus":
        return `Fairy Tale Bonus: the storybook opens on ${words[String(event.feature)] ?? event.feature}`;
      case "offer":
        return `Offer ${event.offer}: ${event.multiplier} × stake = ${event.amount} (${plural(Number(event.scrolls_left), "scroll")} left)`;
      case "deal":
        return `Deal! ${event.amount} paid`;
      case "bean":
        return event.revealed === "grow" ? `The beanstalk grows to level ${event.level}` : `COLLECT at level ${event.level}`;
      case "pig":
        return `A pig builds ${(event.wild_cells as unknown[]).length} WILD${(event.wild_cells as unknown[]).length === 1 ? "" : "s"} (${event.wilds_standing} standing)`;
      case "wolf":
        return "The big bad wolf blows every pig WILD away!";
      case "prince_climbs":
        return `The Prince climbs to level ${event.level}: wins ×${event.multiplier}`;
      case "free_spins":
        return null;
      case "golden_egg":
        return `Golden egg ${readable(String(event.egg)).replace(/^egg /, "")} opened: ${event.amount}`;
      case "bonus_winnings":
        return `${words[String(event.feature)] ?? readable(String(event.feature))} won ${event.amount}`;
      case "fairy_godmother_appears":
        return event.bonus ? "The Fairy Godmother appears: a bonus follows" : "The Fairy Godmother appears";
      default:
        return undefined;
    }
  },
};
