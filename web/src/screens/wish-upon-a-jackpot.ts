import { PICKS, beanstalk, dealMaker, threePigs, tower } from "./fairy-tales";
import { picture, type GameScreen } from "./screen";

const star = `<polygon points="50,10 60,40 92,40 66,58 76,90 50,70 24,90 34,58 8,40 40,40" fill="#fff59d"/>`;
const harp = `<path d="M30 85 V20 Q65 20 75 75 Z" fill="none" stroke="#ffd54a" stroke-width="7"/>${[40, 50, 60].map((x) => `<path d="M${x} 28 V80" stroke="#fff" stroke-width="2"/>`).join("")}`;
const palace = `<path d="M18 85 V45 L30 30 L42 45 V85 M58 85 V45 L70 30 L82 45 V85 M36 85 V55 H64 V85" fill="#f8bbd0" stroke="#880e4f" stroke-width="3"/>`;
const slipper = `<path d="M12 65 Q30 50 55 55 Q80 45 88 62 Q85 75 60 75 H20 Q10 72 12 65Z" fill="#b3e5fc" stroke="#fff" stroke-width="3"/>`;
const book = `<path d="M15 28 Q50 14 50 28 Q50 14 85 28 V78 Q50 64 50 78 Q50 64 15 78Z" fill="#ce93d8" stroke="#4a148c" stroke-width="3"/>`;
const prince = `<circle cx="50" cy="45" r="18" fill="#ffe0b2"/><path d="M32 30 L38 14 L50 26 L62 14 L68 30Z" fill="#ffd54a"/><path d="M25 90 Q50 55 75 90Z" fill="#1565c0"/>`;
const BOOKS = ["Storybook 1", "Storybook 2", "Storybook 3", "Storybook 4"];

export const wishUponAJackpot: GameScreen = {
  code: "wish-upon-a-jackpot",
  colors: { background: "#1a1240", frame: "#f8bbd0", accent: "#8e24aa" },
  symbols: {
    WILD: { label: "WILD", color: "#7b1fa2", emblem: star },
    LOGO: { label: "WISH", color: "#4527a0", emblem: star },
    HARP: { color: "#5d4037", emblem: harp },
    PALACE: { color: "#4a148c", emblem: palace },
    SLIPPER: { color: "#01579b", emblem: slipper },
    BONUS: { label: "BONUS", color: "#6a1b9a", emblem: book },
    PRINCE: { label: "", color: "#0d47a1", emblem: prince },
  },
  picture: picture(["#6a1b9a", "#140b2e"], `<g transform="translate(120 18) scale(0.85)">${book}</g>
    <g transform="translate(25 25) scale(0.7)">${star}</g><g transform="translate(225 25) scale(0.7)">${prince}</g>`, "Wish Upon a Jackpot"),
  stake: (bet) => String(bet.stake),
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
    if (event.type === "offer") return ["Deal Maker", `offer ${event.offer}: ${event.amount} · ${event.scrolls_left} scrolls left`];
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
        return `Offer ${event.offer}: ${event.multiplier} × stake = ${event.amount} (${event.scrolls_left} scrolls left)`;
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
      default:
        return undefined;
    }
  },
};
