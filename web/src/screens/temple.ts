// Divine Fortune's features drawn as scenes (SVG drawn here): the bonus game's coins filling a
// temple's frieze row by row under the Minor, Major and Mega plaques, and the falling wilds
// dropping a row between the temple's columns. Drawn again from the round's events so far; what
// the latest event added is marked "fresh" and animated by CSS.

import type { GameEvent, GameModel } from "../types";

const PLAQUES = ["MINOR", "MAJOR", "MEGA"]; // one full row wins the Minor, two the Major, three the Mega

/** The bonus game after ``events``: the coins by cell (reading order) with their amounts, the
 * full rows, and whether the game has ended. */
export function friezeState(events: GameEvent[], model: GameModel) {
  const { rows, reels } = model.grid;
  const coins = new Map<number, string>();
  let latest: number[] = [];
  let ended = false;
  for (const event of events) {
    if (event.type === "step") latest = [];
    if (event.type === "bonus_placed" || event.type === "bonus_landed") {
      coins.set(Number(event.cell), String(event.amount));
      latest.push(Number(event.cell));
    }
    if (event.type === "jackpot_bonus_end") ended = true;
  }
  const full = [...Array(rows).keys()].filter((row) => [...Array(reels).keys()].every((reel) => coins.has(row * reels + reel)));
  return { rows, reels, coins, latest, full, ended };
}

/** The bonus game in words (the scene's caption). */
export function friezeWords(events: GameEvent[], model: GameModel): string {
  const { rows, reels, coins, full, ended } = friezeState(events, model);
  const rowsFull = full.length ? `${full.length} row${full.length === 1 ? "" : "s"} full: ${PLAQUES[full.length - 1] ?? ""}` : "no row full";
  return `${coins.size} of ${rows * reels} coins · ${rowsFull}${ended ? " won" : ""}`;
}

/** The frieze: a slot per cell, each coin landed in it with its amount (the newest dropping in), a
 * full row glowing, and the plaque of the jackpot the full rows win lit above. */
export function frieze(events: GameEvent[], model: GameModel): string {
  const { rows, reels, coins, latest, full, ended } = friezeState(events, model);
  const slotW = 200 / reels;
  const slotH = Math.min(34, 96 / rows);
  const top = 76;
  let body = `<rect width="240" height="200" fill="#0d2238"/>
    <path d="M14 44 L120 10 L226 44z" fill="#cfd8dc" stroke="#90a4ae" stroke-width="2"/><circle cx="120" cy="32" r="7" fill="#ffb300"/>
    <rect x="10" y="44" width="220" height="28" fill="#b0bec5"/>
    <rect x="10" y="${top + rows * slotH + 2}" width="220" height="8" fill="#b0bec5"/>
    ${[14, 52, 90, 128, 166, 204].map((x) => `<rect x="${x}" y="${top + rows * slotH + 10}" width="22" height="${190 - top - rows * slotH - 10}" fill="#e0e0e0" stroke="#90a4ae"/>`).join("")}
    <rect x="6" y="190" width="228" height="10" fill="#90a4ae"/>`;
  PLAQUES.forEach((name, i) => {
    const won = full.length === i + 1;
    const cls = `plaque${won ? " lit" : ""}${won && ended ? " fresh stamp" : ""}`;
    body += `<g class="${cls}" style="transform-origin: ${48 + i * 72}px 58px"><rect x="${20 + i * 72}" y="48" width="56" height="20" rx="4" fill="${won ? "#ffd54a" : "#455a64"}" stroke="${won ? "#fff8e1" : "#263238"}" stroke-width="2"/>
      <text x="${48 + i * 72}" y="62" text-anchor="middle" font-size="11" font-weight="800" fill="${won ? "#4e342e" : "#90a4ae"}">${name}</text></g>`;
  });
  for (let row = 0; row < rows; row++) {
    const glow = full.includes(row);
    body += `<rect class="row${glow ? " full" : ""}" x="20" y="${top + row * slotH}" width="200" height="${slotH}" fill="${glow ? "#ffd54a55" : "#1a3350"}" stroke="#90a4ae"/>`;
    for (let reel = 0; reel < reels; reel++) {
      const cell = row * reels + reel;
      const cx = 20 + slotW * (reel + 0.5);
      const cy = top + slotH * (row + 0.5);
      const amount = coins.get(cell);
      if (amount === undefined) {
        body += `<circle cx="${cx}" cy="${cy}" r="${slotH / 2 - 4}" fill="none" stroke="#ffffff33" stroke-dasharray="3 2"/>`;
        continue;
      }
      const fresh = latest.includes(cell) ? " fresh drop" : "";
      body += `<g class="coin${fresh}"><circle cx="${cx}" cy="${cy}" r="${slotH / 2 - 3}" fill="#ffca28" stroke="#fff8e1" stroke-width="2"/>
        <text x="${cx}" y="${cy + 3}" text-anchor="middle" font-size="${amount.length > 5 ? 7 : 8}" font-weight="700" fill="#4e342e">${amount}</text></g>`;
    }
  }
  const label = `${coins.size} coins in the frieze, ${full.length} rows full${full.length ? `: the ${PLAQUES[full.length - 1]} lit` : ""}`;
  return `<svg viewBox="0 0 240 200" role="img" aria-label="${label}">${body}</svg>`;
}

/** The falling wilds between the temple's columns: the grid's cells, each wild about to fall with
 * the cell it falls to (off the bottom row, it falls away), a reel turned wild by Wild on Wild. */
export function fallingWilds(events: GameEvent[], model: GameModel): string {
  const { rows, reels } = model.grid;
  const lastAt = events.map((e) => e.type).lastIndexOf("falling_wilds");
  const last = events[lastAt] as GameEvent | undefined;
  // Wild on Wild comes just before the falling wilds of the same screen (or is the latest event).
  const onWild = [events[lastAt - 1], events.at(-1)].find((e) => e?.type === "wild_on_wild");
  const cells = ((last?.cells ?? []) as number[][]).map(([row, reel]) => [row - 1, reel - 1]);
  const w = 170 / reels;
  const hgt = 150 / (rows + 1);
  const x = (reel: number) => 35 + reel * w;
  const y = (row: number) => 30 + row * hgt;
  let body = `<rect width="240" height="200" fill="#0d2238"/><path d="M6 26 L120 2 L234 26z" fill="#cfd8dc"/>
    <rect x="6" y="24" width="22" height="170" fill="#e0e0e0" stroke="#90a4ae"/><rect x="212" y="24" width="22" height="170" fill="#e0e0e0" stroke="#90a4ae"/>
    <rect x="0" y="190" width="240" height="10" fill="#90a4ae"/>`;
  for (let row = 0; row < rows; row++) {
    for (let reel = 0; reel < reels; reel++) body += `<rect x="${x(reel) + 2}" y="${y(row) + 2}" width="${w - 4}" height="${hgt - 4}" rx="4" fill="#1a3350"/>`;
  }
  if (onWild) {
    const reel = Number(onWild.reel) - 1;
    body += `<g class="fresh build"><rect x="${x(reel) + 1}" y="${y(0)}" width="${w - 2}" height="${hgt * rows}" rx="5" fill="#ffb30066" stroke="#ffb300" stroke-width="2"/>
      <text x="${x(reel) + w / 2}" y="${y(rows) + 12}" text-anchor="middle" font-size="9" font-weight="800" fill="#ffb300">WILD ON WILD</text></g>`;
  }
  for (const [row, reel] of cells) {
    const cx = x(reel) + w / 2;
    const away = row + 1 >= rows; // from the bottom row a wild falls off the reels
    body += `<rect x="${x(reel) + 3}" y="${y(row + 1) + 3}" width="${w - 6}" height="${hgt - 6}" rx="4" fill="none" stroke="#ffb300" stroke-dasharray="4 3" opacity="${away ? 0.35 : 0.9}"/>
      <g class="wild falling" style="--fall: ${hgt}px"><rect x="${x(reel) + 3}" y="${y(row) + 3}" width="${w - 6}" height="${hgt - 6}" rx="4" fill="#ffb300" stroke="#fff8e1" stroke-width="2"/>
      <path d="M${cx + 3} ${y(row) + 7} l-8 ${hgt / 2 - 4} h6 l-4 ${hgt / 2 - 8} l10 ${-hgt / 2 + 2} h-6z" fill="#fff8e1"/></g>`;
  }
  // The wilds that fell off the bottom row this round lie at the foot of their reel.
  const fallen = new Map<number, number>();
  for (const event of events) {
    if (event.type !== "falling_wilds") continue;
    for (const [row, reel] of event.cells as number[][]) if (row === rows) fallen.set(reel - 1, (fallen.get(reel - 1) ?? 0) + 1);
  }
  for (const [reel, n] of fallen) {
    body += `<g class="fallen" opacity="0.75"><rect x="${x(reel) + w / 2 - 12}" y="176" width="24" height="12" rx="3" fill="#ffb300" transform="rotate(-8 ${x(reel) + w / 2} 182)"/>
      <text x="${x(reel) + w / 2}" y="186" text-anchor="middle" font-size="9" font-weight="800" fill="#4e342e">×${n}</text></g>`;
  }
  const count = Number(last?.count ?? 0);
  const gone = [...fallen.values()].reduce((a, b) => a + b, 0);
  const label = count ? `${count} wild${count === 1 ? "" : "s"} falling one row` : gone ? `every wild has fallen: ${gone} off the reels` : "no wild left to fall";
  return `<svg viewBox="0 0 240 200" role="img" aria-label="${label}">${body}</svg>`;
}
