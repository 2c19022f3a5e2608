// The Twemoji pictures the symbols are built on, bundled at build time from the npm package
// @twemoji/svg (pinned in package.json): nothing is fetched at run time. Twemoji's graphics are
// by Twitter, Inc and other contributors, licensed CC-BY 4.0 (see src/public/ATTRIBUTION.md, copied
// into the build and so the Python package, and the credits line on each game's rules page).

import dragon from "@twemoji/svg/1f409.svg?raw";
import bird from "@twemoji/svg/1f426.svg?raw";
import fire from "@twemoji/svg/1f525.svg?raw";
import tigerFace from "@twemoji/svg/1f42f.svg?raw";
import tropicalFish from "@twemoji/svg/1f420.svg?raw";
import mahjongDragon from "@twemoji/svg/1f004.svg?raw";
import crown from "@twemoji/svg/1f451.svg?raw";
import sparkles from "@twemoji/svg/2728.svg?raw";
import openBook from "@twemoji/svg/1f4d6.svg?raw";
import spider from "@twemoji/svg/1f577.svg?raw";
import octopus from "@twemoji/svg/1f419.svg?raw";
import snake from "@twemoji/svg/1f40d.svg?raw";
import beetle from "@twemoji/svg/1fab2.svg?raw";
import heart from "@twemoji/svg/2665.svg?raw";
import diamond from "@twemoji/svg/2666.svg?raw";
import club from "@twemoji/svg/2663.svg?raw";
import spade from "@twemoji/svg/2660.svg?raw";
import lightning from "@twemoji/svg/26a1.svg?raw";
import temple from "@twemoji/svg/1f3db.svg?raw";
import coin from "@twemoji/svg/1fa99.svg?raw";
import lion from "@twemoji/svg/1f981.svg?raw";
import ox from "@twemoji/svg/1f402.svg?raw";
import eagle from "@twemoji/svg/1f985.svg?raw";
import fullMoon from "@twemoji/svg/1f315.svg?raw";
import lantern from "@twemoji/svg/1f3ee.svg?raw";
import mooncake from "@twemoji/svg/1f96e.svg?raw";
import fan from "@twemoji/svg/1faad.svg?raw";
import teapot from "@twemoji/svg/1fad6.svg?raw";
import moneyBag from "@twemoji/svg/1f4b0.svg?raw";
import rabbit from "@twemoji/svg/1f407.svg?raw";
import glowingStar from "@twemoji/svg/1f31f.svg?raw";
import books from "@twemoji/svg/1f4da.svg?raw";
import prince from "@twemoji/svg/1f934.svg?raw";
import shootingStar from "@twemoji/svg/1f320.svg?raw";
import castle from "@twemoji/svg/1f3f0.svg?raw";
import shoe from "@twemoji/svg/1f460.svg?raw";

/** The pictures by name: each a whole Twemoji SVG (a 36 x 36 view box). */
export const EMOJI: Record<string, string> = {
  dragon, bird, fire, tigerFace, tropicalFish, mahjongDragon, crown, sparkles, openBook, spider, octopus, snake,
  beetle, heart, diamond, club, spade, lightning, temple, coin, lion, ox, eagle, fullMoon, lantern, mooncake, fan,
  teapot, moneyBag, rabbit, glowingStar, books, prince, shootingStar, castle, shoe,
};

/** A Twemoji picture placed in a 100 x 100 box at (x, y) with side ``size``. */
export function emoji(name: string, x = 14, y = 10, size = 72): string {
  const svg = EMOJI[name];
  if (!svg) return "";
  const inner = svg.replace(/^<svg[^>]*>/, "").replace(/<\/svg>\s*$/, "");
  return `<svg x="${x}" y="${y}" width="${size}" height="${size}" viewBox="0 0 36 36">${inner}</svg>`;
}
