// Wish Upon a Jackpot's bonus features drawn as scenes (SVG drawn here): Jack's beanstalk, the
// three little pigs' houses and the wolf, Rapunzel's tower. Each scene is drawn again from the
// round's events so far; the part the latest event added is marked "fresh" and animated by CSS.

import type { GameEvent, GameModel } from "../types";

const FEATURES = (model: GameModel) => (model.features ?? {}) as Record<string, Record<string, unknown>>;

function svg(label: string, body: string): string {
  return `<svg viewBox="0 0 240 200" role="img" aria-label="${label}">${body}</svg>`;
}

/** Jack's beanstalk: one stretch of stalk and a pair of leaves per level grown, the trail's prizes
 * (from the model, x stake) beside the levels, Jack where the stalk has got to, the giant's castle
 * in the clouds at the top. */
export function beanstalk(events: GameEvent[], model: GameModel): string {
  const trail = (FEATURES(model).beanstalk?.trail as number[] | undefined) ?? Array(8).fill(0);
  const beans = events.filter((e) => e.type === "bean");
  const last = beans.at(-1);
  const level = Number(last?.level ?? 1); // 1 at the foot; one past the trail's last prize is the top
  const grown = level - 1;
  const ground = 186;
  const step = 150 / trail.length;
  const y = (n: number) => ground - n * step;
  let body = `<rect width="240" height="200" fill="#0d2a4a"/><rect y="${ground}" width="240" height="14" fill="#5d4037"/>
    <g fill="#eceff1" opacity="0.9"><ellipse cx="120" cy="22" rx="60" ry="14"/><ellipse cx="90" cy="28" rx="34" ry="10"/><ellipse cx="154" cy="28" rx="34" ry="10"/></g>
    <path d="M104 18 v-12 h8 v5 h8 v-5 h8 v12 z" fill="#90a4ae"/>`;
  trail.forEach((prize, i) => {
    const reached = i < level;
    body += `<g class="rung${reached ? " reached" : ""}"><path d="M140 ${y(i)} h46" stroke="${reached ? "#ffd54a" : "#ffffff33"}" stroke-width="2"/>
      <text x="192" y="${y(i) + 4}" font-size="11" fill="${reached ? "#ffd54a" : "#ffffff88"}">×${prize}</text></g>`;
  });
  for (let i = 0; i < grown; i++) {
    const fresh = i === grown - 1 && last?.revealed === "grow" ? " fresh grow" : "";
    const side = i % 2 ? -1 : 1;
    body += `<g class="stalk${fresh}" style="transform-origin: 110px ${y(i)}px">
      <path d="M110 ${y(i)} q${side * 10} ${-step / 2} 0 ${-step}" stroke="#43a047" stroke-width="7" fill="none" stroke-linecap="round"/>
      <path d="M110 ${y(i) - step / 2} q${side * 22} -12 ${side * 30} 2 q${-side * 16} 8 ${-side * 30} -2z" fill="#66bb6a"/></g>`;
  }
  const top = y(grown);
  body += `<g transform="translate(${grown ? 118 : 80} ${grown ? top - 4 : ground - 2})"><g class="jack${last?.revealed === "grow" ? " fresh climb" : ""}">
    <circle cx="0" cy="-14" r="6" fill="#ffe0b2"/><path d="M-6 -20 q6 -6 12 0" fill="#8d6e63"/><rect x="-6" y="-8" width="12" height="14" rx="3" fill="#1e88e5"/>
    <path d="M-4 6 v8 M4 6 v8" stroke="#5d4037" stroke-width="3"/></g></g>`;
  if (level > trail.length) {
    body += `<g class="fresh" transform="translate(150 40)"><ellipse rx="9" ry="12" fill="#ffd54a" stroke="#fff8" stroke-width="2"/><ellipse cx="-3" cy="-4" rx="2.5" ry="4" fill="#fff9"/></g>`;
  }
  if (last?.revealed === "collect") {
    body += `<text class="fresh" x="120" y="${Math.max(top - 26, 56)}" text-anchor="middle" font-size="16" font-weight="700" fill="#ffd54a" stroke="#000" stroke-width="3" paint-order="stroke">COLLECT</text>`;
  }
  return svg(level > trail.length ? "Jack has climbed to the giant's castle" : `Jack has climbed to level ${level} of ${trail.length}`, body);
}

const HOUSES = [
  { name: "straw", wall: "#f9d976", roof: "#e0b94a", x: 14 },
  { name: "sticks", wall: "#a1887f", roof: "#6d4c41", x: 86 },
  { name: "bricks", wall: "#c0504d", roof: "#7b1f1f", x: 158 },
];

function house(i: number, built: boolean, fresh: boolean, blown: boolean): string {
  const h = HOUSES[i];
  const cls = ["house", built ? "built" : "plot", fresh ? "fresh build" : "", blown && built ? "blown" : ""].join(" ").trim();
  const pattern =
    h.name === "bricks"
      ? [0, 1, 2, 3].map((r) => `<path d="M${h.x} ${150 + r * 10} h68" stroke="#0004"/>`).join("")
      : h.name === "sticks"
        ? [0, 1, 2, 3, 4, 5].map((c) => `<path d="M${h.x + 6 + c * 11} 140 v46" stroke="#0004" stroke-width="3"/>`).join("")
        : [0, 1, 2, 3].map((r) => `<path d="M${h.x} ${146 + r * 10} q34 6 68 0" stroke="#0003" fill="none"/>`).join("");
  const pig = `<g transform="translate(${h.x + 34} 168)"><circle r="11" fill="#f8bbd0"/><ellipse cy="3" rx="5" ry="3.5" fill="#f48fb1"/>
    <circle cx="-4" cy="-3" r="1.6" fill="#333"/><circle cx="4" cy="-3" r="1.6" fill="#333"/><path d="M-9 -8 l-3 -6 l7 3z M9 -8 l3 -6 l-7 3z" fill="#f48fb1"/></g>`;
  return `<g class="${cls}" style="transform-origin: ${h.x + 34}px 186px">
    <rect x="${h.x}" y="140" width="68" height="46" fill="${built ? h.wall : "none"}" stroke="${built ? "#0006" : "#ffffff55"}" stroke-dasharray="${built ? "" : "4 3"}"/>
    ${built ? pattern : ""}<path d="M${h.x - 6} 142 L${h.x + 34} 108 L${h.x + 74} 142z" fill="${built ? h.roof : "none"}" stroke="${built ? "#0006" : "#ffffff55"}" stroke-dasharray="${built ? "" : "4 3"}"/>
    ${built ? pig : ""}<text x="${h.x + 34}" y="198" text-anchor="middle" font-size="9" fill="#fff">${h.name}</text></g>`;
}

/** The three little pigs: each pig's house stands while its WILDs stand; the wolf blows them all
 * down (and the pigs build again on a later spin). */
export function threePigs(events: GameEvent[]): string {
  const built = new Set<number>();
  let fresh = -1;
  let blown = false;
  for (const event of events) {
    if (event.type === "wolf") {
      blown = true;
      fresh = -1;
      continue;
    }
    if (event.type !== "pig") continue;
    if (blown) built.clear();
    blown = false;
    const pig = Number(String(event.event ?? "pig_1").replace(/\D/g, "")) - 1;
    built.add(pig);
    fresh = pig;
  }
  let body = `<rect width="240" height="200" fill="#1b3b2a"/><rect y="186" width="240" height="14" fill="#33691e"/>
    <circle cx="208" cy="30" r="14" fill="#fff59d"/>`;
  body += HOUSES.map((_, i) => house(i, built.has(i), i === fresh, blown)).join("");
  if (blown) {
    body += `<g class="wolf fresh"><g transform="translate(40 70)"><path d="M-26 -14 l8 -18 l8 14 M2 -14 l8 -18 l6 16" fill="#546e7a"/>
      <ellipse rx="30" ry="22" fill="#607d8b"/><ellipse cx="22" cy="6" rx="16" ry="10" fill="#78909c"/><circle cx="36" cy="4" r="4" fill="#222"/>
      <circle cx="-6" cy="-6" r="4" fill="#fff59d"/><circle cx="8" cy="-6" r="4" fill="#fff59d"/></g>
      <g class="gust" stroke="#e0f7fa" stroke-width="3" fill="none" stroke-linecap="round">
      <path d="M84 70 q40 -10 80 10"/><path d="M84 80 q50 6 110 -4"/><path d="M84 90 q30 14 70 12"/></g></g>`;
  }
  const label = blown ? "The wolf blows every house down" : `Houses standing: ${[...built].map((i) => HOUSES[i].name).join(", ") || "none"}`;
  return svg(label, body);
}

/** Rapunzel's tower: one floor per rung of the multiplier ladder (from the model; the Prince starts
 * on the ground floor, level 0), the Prince on the floor he has climbed to, Rapunzel's braid let down to him from the top window. */
export function tower(events: GameEvent[], model: GameModel): string {
  const ladder = (FEATURES(model).rapunzel?.multipliers as number[] | undefined) ?? [1, 2, 3, 5, 10, 20];
  const climbs = events.filter((e) => e.type === "prince_climbs");
  const level = Number(climbs.at(-1)?.level ?? 0);
  const floors = ladder.length;
  const top = 34;
  const floorH = (186 - top) / floors;
  const floorY = (n: number) => 186 - (n + 1) * floorH; // the top edge of floor n (0 = ground floor)
  let body = `<rect width="240" height="200" fill="#1a1240"/>${[30, 60, 200, 220].map((x, i) => `<circle cx="${x}" cy="${20 + i * 9}" r="1.5" fill="#fff"/>`).join("")}
    <rect y="186" width="240" height="14" fill="#2e7d32"/>
    <rect x="70" y="${top}" width="70" height="${186 - top}" fill="#8d8aa6" stroke="#4a4766" stroke-width="2"/>
    <path d="M62 ${top} L105 ${top - 30} L148 ${top}z" fill="#6a1b9a"/>`;
  for (let n = 0; n < floors; n++) {
    const reached = n <= level;
    body += `<g class="floor${reached ? " reached" : ""}"><path d="M70 ${floorY(n) + floorH} h70" stroke="#4a4766" stroke-width="2"/>
      <rect x="96" y="${floorY(n) + 6}" width="18" height="${floorH - 12}" rx="9" fill="${reached ? "#ffd54a" : "#2a2450"}"/>
      <text x="150" y="${floorY(n) + floorH / 2 + 4}" font-size="11" fill="${reached ? "#ffd54a" : "#ffffff88"}">×${ladder[n]}</text></g>`;
  }
  // Rapunzel at the top window, her braid down to the Prince.
  const princeY = floorY(level) + floorH - 4;
  body += `<circle cx="105" cy="${top - 8}" r="7" fill="#ffe0b2"/><path d="M99 ${top - 12} q6 -8 12 0" fill="#ffca28"/>
    <path class="braid" d="M109 ${top - 4} q14 ${(princeY - top) / 3} 0 ${(princeY - top) / 1.6} q-10 ${(princeY - top) / 5} 0 ${(princeY - top) / 2.6}" stroke="#ffca28" stroke-width="4" fill="none"/>`;
  body += `<g transform="translate(124 ${princeY})"><g class="prince${climbs.length ? " fresh climb" : ""}">
    <circle cx="0" cy="-20" r="6" fill="#ffe0b2"/><path d="M-6 -25 l2 -6 l4 4 l4 -4 l2 6z" fill="#ffd54a"/>
    <rect x="-6" y="-14" width="12" height="12" rx="3" fill="#1565c0"/><path d="M-4 -2 v6 M4 -2 v6" stroke="#263238" stroke-width="3"/></g></g>`;
  return svg(`The Prince has climbed to level ${level} of ${floors - 1}`, body);
}

/** Rumpelstiltskin's Deal Maker: the offer written on an unrolled scroll, the scrolls still
 * rolled up beside it, and DEAL! stamped across it when the player takes one. */
export function dealMaker(events: GameEvent[]): string {
  const offers = events.filter((e) => e.type === "offer");
  const offer = offers.at(-1);
  const deal = events.find((e) => e.type === "deal");
  const left = Number(offer?.scrolls_left ?? 0);
  let body = `<rect width="240" height="200" fill="#2b1a3d"/>
    <g class="${deal ? "" : "fresh unroll"}" style="transform-origin: 100px 40px">
    <rect x="30" y="40" width="140" height="120" fill="#f3e0b5" stroke="#8d6e63" stroke-width="2"/>
    <rect x="24" y="30" width="152" height="14" rx="7" fill="#d7b98a" stroke="#8d6e63"/><rect x="24" y="156" width="152" height="14" rx="7" fill="#d7b98a" stroke="#8d6e63"/>
    <text x="100" y="72" text-anchor="middle" font-size="13" fill="#5d4037" font-family="Georgia, serif">Offer ${offer?.offer ?? ""}</text>
    <text x="100" y="104" text-anchor="middle" font-size="24" font-weight="700" fill="#4a148c" font-family="Georgia, serif">×${offer?.multiplier ?? ""}</text>
    <text x="100" y="134" text-anchor="middle" font-size="15" fill="#5d4037">${offer?.amount ?? ""}</text></g>`;
  for (let i = 0; i < left; i++) {
    body += `<g transform="translate(200 ${40 + i * 30})"><rect x="-18" y="-8" width="36" height="16" rx="8" fill="#d7b98a" stroke="#8d6e63"/><path d="M-6 -8 v16 M6 -8 v16" stroke="#b71c1c" stroke-width="2"/></g>`;
  }
  if (deal) {
    body += `<g class="fresh stamp" style="transform-origin: 100px 100px"><rect x="40" y="80" width="120" height="40" rx="6" fill="none" stroke="#c62828" stroke-width="5" transform="rotate(-12 100 100)"/>
      <text x="100" y="110" text-anchor="middle" font-size="26" font-weight="800" fill="#c62828" transform="rotate(-12 100 100)">DEAL!</text></g>`;
  }
  return svg(deal ? `The deal is made: ${deal.amount}` : `On the scroll: ${offer?.amount ?? ""}, ${left} scrolls left`, body);
}

/** Pictures for the picks: storybooks, the Fairy Godmother's orbs, magic beans, golden eggs. */
export const PICKS: Record<string, string> = {
  book: `<path d="M6 8 Q20 2 20 8 Q20 2 34 8 V32 Q20 26 20 32 Q20 26 6 32Z" fill="#ce93d8" stroke="#4a148c" stroke-width="2"/><path d="M20 8 V32" stroke="#4a148c" stroke-width="2"/>`,
  orb: `<circle cx="20" cy="20" r="14" fill="#80deea" stroke="#e1f5fe" stroke-width="2"/><circle cx="15" cy="15" r="4" fill="#fff" opacity="0.8"/>`,
  bean: `<ellipse cx="20" cy="20" rx="9" ry="14" fill="#7cb342" stroke="#33691e" stroke-width="2" transform="rotate(25 20 20)"/>`,
  egg: `<ellipse cx="20" cy="22" rx="11" ry="14" fill="#ffd54a" stroke="#fff8" stroke-width="2"/>`,
};
