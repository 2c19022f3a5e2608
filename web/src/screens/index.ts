// Every game's screen module, and the plain one a game without its own module gets.

import { divineFortune } from "./divine-fortune";
import { dynasty } from "./dynasty";
import { goldenGrimoire } from "./golden-grimoire";
import { moonOfFortune } from "./moon-of-fortune";
import { picture, type GameScreen } from "./screen";
import { wishUponAJackpot } from "./wish-upon-a-jackpot";

const SCREENS: GameScreen[] = [dynasty, goldenGrimoire, divineFortune, moonOfFortune, wishUponAJackpot];

function plain(code: string, name: string): GameScreen {
  return {
    code,
    colors: { background: "#102030", frame: "#90a4ae", accent: "#26a69a" },
    symbols: {},
    picture: picture(["#37474f", "#102027"], "", name),
  };
}

export function screenFor(code: string, name = code): GameScreen {
  return SCREENS.find((screen) => screen.code === code) ?? plain(code, name);
}
