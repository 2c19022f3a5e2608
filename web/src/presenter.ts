// The round presenter's wins: each winning line drawn over the grid in turn with its amount, the
// cells of count and scatter wins outlined, and the total counted up under the reels (never over
// a symbol), with a big-win presentation by multiple of the stake.

import { formatMoney, fromMinor, toMinor } from "./money";
import { reducedMotion, type Reels } from "./reels";
import { winCells } from "./rounds";
import type { GameModel, Screen, Win } from "./types";

const SVG = "http://www.w3.org/2000/svg";

/** The big-win tiers, from the highest: a total of at least ``times`` the stake. */
export const BIG_WINS: { times: bigint; name: string }[] = [
  { times: 50n, name: "EPIC WIN" },
  { times: 25n, name: "MEGA WIN" },
  { times: 10n, name: "BIG WIN" },
];

/** The big-win tier of a total at a stake, or null below ten times the stake. */
export function bigWinTier(total: string, stake: string): string | null {
  const bet = toMinor(stake);
  if (bet <= 0n) return null;
  return BIG_WINS.find((tier) => toMinor(total) >= tier.times * bet)?.name ?? null;
}

/** The amounts a count-up shows, ``frames`` of them ending exactly on ``total`` (minor units). */
export function countUp(total: string, frames: number): string[] {
  const minor = toMinor(total);
  const steps = BigInt(Math.max(1, frames));
  return Array.from({ length: Number(steps) }, (_, i) => fromMinor((minor * BigInt(i + 1)) / steps));
}

export class WinPresenter {
  private overlay: SVGSVGElement;
  private timer: number | null = null;
  private counting = 0;

  constructor(
    private reels: Reels,
    private banner: HTMLElement,
    private model: GameModel,
  ) {
    this.overlay = document.createElementNS(SVG, "svg");
    this.overlay.classList.add("win-lines");
    this.overlay.setAttribute("aria-hidden", "true");
    reels.element.append(this.overlay);
  }

  /** Take every win off the grid and the banner. */
  clear(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    cancelAnimationFrame(this.counting);
    this.overlay.replaceChildren();
    delete this.reels.element.dataset.line;
    this.reels.element.classList.remove("big-win");
    this.reels.element.querySelectorAll(".cell.outlined").forEach((cell) => cell.classList.remove("outlined"));
    this.banner.textContent = "";
    this.banner.className = "banner";
    delete this.banner.dataset.total;
    delete this.banner.dataset.counted;
  }

  /** A step's wins on its screen: count and scatter wins outlined, line wins drawn one at a time. */
  showWins(wins: Win[], screen: Screen, quick: boolean): void {
    for (const win of wins.filter((w) => w.kind !== "line")) {
      for (const key of winCells(win, screen, this.model)) {
        const [row, reel] = key.split(",").map(Number);
        this.reels.cell(row, reel)?.classList.add("outlined");
      }
    }
    const lines = wins.filter((w) => w.kind === "line" && w.line && this.model.paylines[w.line - 1]);
    if (!lines.length) return;
    let shown = 0;
    const next = () => {
      this.drawLine(lines[shown % lines.length], screen);
      shown++;
    };
    next();
    if (lines.length > 1) this.timer = window.setInterval(next, quick ? 700 : 1200);
  }

  /** One line over the grid: its path through every reel, the winning part bold, its amount at
   * the last winning cell; the line's cells lit and the rest dimmed. */
  private drawLine(win: Win, screen: Screen): void {
    const line = this.model.paylines[win.line! - 1];
    const box = this.reels.element.getBoundingClientRect();
    this.overlay.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
    const centre = (reel: number) => {
      const cell = this.reels.cell(line[reel], reel)?.getBoundingClientRect();
      return cell ? [cell.left - box.left + cell.width / 2, cell.top - box.top + cell.height / 2] : [0, 0];
    };
    const points = line.map((_, reel) => centre(reel));
    const path = (upTo: number) => points.slice(0, upTo).map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
    const [x, y] = points[Math.min(win.count, line.length) - 1];
    this.overlay.innerHTML = `<polyline class="path" points="${path(line.length)}"/><polyline class="paying" points="${path(win.count)}"/>
      <g class="amount" transform="translate(${x.toFixed(1)} ${y.toFixed(1)})"><rect x="-34" y="-13" width="68" height="26" rx="13"/><text y="6" text-anchor="middle">${win.amount}</text></g>`;
    this.reels.element.dataset.line = String(win.line);
    this.reels.highlight(winCells(win, screen, this.model));
  }

  /** The round's total under the reels, counted up; a big win by multiple of the stake says so. */
  announce(total: string, stake: string, currency: string): void {
    const gain = toMinor(total) > toMinor(stake);
    const tier = gain ? bigWinTier(total, stake) : null;
    const word = tier ?? (gain ? "WIN" : "Paid");
    this.banner.className = `banner${gain ? " celebrate" : ""}${tier ? " big-win" : ""}`;
    this.banner.dataset.total = total;
    if (tier) this.reels.element.classList.add("big-win");
    const frames = reducedMotion() ? 1 : tier ? 120 : gain ? 45 : 1;
    const amounts = countUp(total, frames);
    let frame = 0;
    const step = () => {
      this.banner.textContent = `${word} ${formatMoney(amounts[frame], currency)}`;
      frame++;
      if (frame < amounts.length) this.counting = requestAnimationFrame(step);
      else this.banner.dataset.counted = "true";
    };
    step();
  }
}
