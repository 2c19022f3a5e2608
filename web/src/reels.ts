// The reels: one column per reel, each a strip of symbol cells moved with the Web Animations
// API (composited transforms: smooth at 60 frames per second without a canvas library).

import { symbolSvg, type SymbolArt } from "./art";
import type { Screen } from "./types";

export interface ReelOptions {
  rows: number;
  reels: number;
  kinds: Record<string, string>; // symbol code -> kind
  art: Record<string, SymbolArt>;
  blur: string[]; // symbols shown passing by while a reel spins
  rest: Screen; // the screen shown before the first spin (the server's resting screen)
  anticipate?: Anticipation; // the symbols whose landing may slow the reels still to stop
}

/** A symbol that triggers a feature in numbers (the scatters): ``count`` of them, on ``reels``
 * (0-based; every reel when absent). */
export interface Anticipation {
  symbols: string[];
  count: number;
  reels?: number[];
}

/** Whether the player asked for reduced motion: the reels then show still images. */
export function reducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The reels (0-based) that stop slowly, in anticipation of a feature: a reel is anticipated only
 * while the symbols already landed on the reels before it, with those it and the reels after it
 * can still hold, could still make the count (never a tease the drawn result has ruled out), and
 * at least ``count - 1`` have landed. */
export function anticipatedReels(screen: Screen, rule: Anticipation | undefined): number[] {
  if (!rule || !screen.length) return [];
  const reels = screen[0].length;
  const canHold = (reel: number) => !rule.reels || rule.reels.includes(reel);
  const anticipated: number[] = [];
  let landed = 0;
  for (let reel = 0; reel < reels; reel++) {
    const still = Array.from({ length: reels - reel }, (_, i) => reel + i).filter(canHold).length;
    if (landed >= rule.count - 1 && landed < rule.count && landed + still >= rule.count && canHold(reel)) anticipated.push(reel);
    landed += screen.filter((row) => rule.symbols.includes(row[reel])).length;
  }
  return anticipated;
}

const PASSING = 12; // symbols passing by on the first reel; later reels pass more

/** Frame times (ms) measured while the reels move (from the moment their animations start, when
 * the new strips are in place, to their stop); read by the browser tests. */
export const frameTimes: number[] = [];

/** For each spin, the time (ms) from pressing to the reels' first moving frame: building the
 * strips and drawing them the first time. */
export const startTimes: number[] = [];

export class Reels {
  readonly element: HTMLElement;
  private strips: HTMLElement[] = [];
  private running: Animation[] = [];
  private screen: Screen;
  private svgCache = new Map<string, string>();

  constructor(private options: ReelOptions) {
    this.element = document.createElement("div");
    this.element.className = "reels";
    this.element.style.setProperty("--rows", String(options.rows));
    this.element.style.setProperty("--reels", String(options.reels));
    this.element.setAttribute("role", "group");
    this.element.setAttribute("aria-label", "reels");
    for (let reel = 0; reel < options.reels; reel++) {
      const window = document.createElement("div");
      window.className = "reel";
      const strip = document.createElement("div");
      strip.className = "strip";
      window.append(strip);
      this.element.append(window);
      this.strips.push(strip);
    }
    this.screen = options.rest;
    this.show(this.screen);
    this.preload();
  }

  private imageCache = new Map<string, string>();

  /** The passing symbols' images decoded before the first spin. */
  private preload(): void {
    for (const code of this.options.blur) {
      const image = new Image();
      image.src = /src="([^"]+)"/.exec(this.image(code))![1];
      void image.decode?.().catch(() => undefined);
    }
  }

  /** A passing symbol as an image of its SVG: the browser rasterises each symbol once and reuses
   * it for every copy, so a spin's first frame does not draw a hundred SVGs. */
  private image(code: string): string {
    let image = this.imageCache.get(code);
    if (!image) {
      image = `<img alt="" decoding="sync" src="data:image/svg+xml,${encodeURIComponent(this.svg(code).replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" '))}">`;
      this.imageCache.set(code, image);
    }
    return image;
  }

  private svg(code: string): string {
    let svg = this.svgCache.get(code);
    if (!svg) {
      svg = symbolSvg(code, this.options.kinds[code] ?? "high", this.options.art[code]);
      this.svgCache.set(code, svg);
    }
    return svg;
  }

  private cells(codes: string[], final: boolean, reel: number): string {
    return codes
      .map((code, row) =>
        final
          ? `<div class="cell" data-row="${row}" data-reel="${reel}" data-symbol="${code}">${this.svg(code)}</div>`
          : `<div class="cell passing">${this.image(code)}</div>`,
      )
      .join("");
  }

  private column(screen: Screen, reel: number): string[] {
    return screen.map((row) => row[reel]);
  }

  /** Show a screen at rest. Each strip is laid for the next spin already (empty cells for the
   * screen to come, the symbols that will pass, then this screen in the window), so that pressing
   * SPIN only fills the top cells and starts the strips moving: the passing symbols were drawn
   * while the reels rested, not in the spin's first frames. */
  show(screen: Screen): void {
    this.screen = screen;
    this.strips.forEach((strip, reel) => this.rest(strip, reel, this.column(screen, reel)));
    this.element.dataset.screen = JSON.stringify(screen);
  }

  private rest(strip: HTMLElement, reel: number, codes: string[], passing = this.passing(reel, 0)): void {
    const rows = this.options.rows;
    const length = rows + passing.length + rows;
    strip.style.setProperty("--len", String(length));
    strip.innerHTML = `<div class="cell next"></div>`.repeat(rows) + this.cells(passing, false, reel) + this.cells(codes, true, reel);
    strip.style.transform = `translateY(${(-100 * (length - rows)) / length}%)`;
  }

  private passing(reel: number, extra: number): string[] {
    return Array.from({ length: PASSING + reel * 2 + extra }, () => this.randomSymbol());
  }

  /** Fill a rested strip's empty top cells with the screen to come; the screen in the window
   * becomes passing symbols. */
  private load(strip: HTMLElement, reel: number, codes: string[]): void {
    for (const cell of strip.querySelectorAll<HTMLElement>(".cell[data-row]")) {
      cell.className = "cell passing";
      for (const name of ["row", "reel", "symbol", "mark"]) delete cell.dataset[name];
      cell.removeAttribute("aria-label");
      cell.querySelector(".value")?.remove();
    }
    const next = [...strip.querySelectorAll<HTMLElement>(".cell.next")];
    next.forEach((cell, row) => (cell.outerHTML = this.cells([codes[row]], true, reel).replace('data-row="0"', `data-row="${row}"`)));
  }

  /** Spin every reel and stop them, left to right, on ``screen``; ``held`` reels' cells stay. */
  async spin(screen: Screen, quick: boolean, still: Set<string> = new Set()): Promise<void> {
    if (reducedMotion()) {
      this.show(screen); // still images: the screen as it landed, at once
      return;
    }
    const rows = this.options.rows;
    const animations: Animation[] = [];
    const slow = quick ? [] : anticipatedReels(screen, this.options.anticipate);
    this.element.dataset.anticipated = slow.join(",");
    let delay = 0; // each anticipated reel turns on a while after the reel before it stopped
    this.strips.forEach((strip, reel) => {
      const before = this.column(this.screen, reel);
      const after = this.column(screen, reel);
      if (after.every((code, row) => still.has(`${row},${reel}`) && code === before[row])) return; // held: it stays
      const anticipated = slow.includes(reel);
      if (anticipated) {
        delay += 700;
        this.rest(strip, reel, before, this.passing(reel, 10)); // a longer strip: it turns a while longer
      }
      this.load(strip, reel, after);
      const length = Number(strip.style.getPropertyValue("--len"));
      const from = `translateY(${(-100 * (length - rows)) / length}%)`;
      const duration = (quick ? 220 + reel * 50 : 520 + reel * 170) + delay;
      const animation = strip.animate([{ transform: from }, { transform: "translateY(0)" }], {
        duration,
        easing: "cubic-bezier(0.25, 0.1, 0.3, 1.08)",
        fill: "forwards", // held on the screen until the strip is laid at rest again
      });
      if (anticipated) this.glowWhileSpinning(reel, animation);
      animations.push(animation);
    });
    this.running = animations;
    this.element.classList.add("spinning");
    const pressed = performance.now();
    await Promise.all(animations.map((a) => a.ready.catch(() => undefined)));
    startTimes.push(performance.now() - pressed);
    const measuring = this.measureFrames();
    await Promise.all(animations.map((a) => a.finished.catch(() => undefined)));
    measuring.stop();
    this.running = [];
    this.element.classList.remove("spinning");
    this.show(screen);
    for (const animation of animations) animation.cancel(); // the rest layout's own offset shows the same screen
  }

  /** An anticipated reel's window glows until it stops. */
  private glowWhileSpinning(reel: number, animation: Animation): void {
    const window = this.strips[reel].parentElement!;
    window.classList.add("anticipation");
    void animation.finished.catch(() => undefined).then(() => window.classList.remove("anticipation"));
  }

  /** Turn the cells that differ from ``screen`` over to show it (a mystery revealed). */
  reveal(screen: Screen): void {
    const changed: [number, number][] = [];
    screen.forEach((row, r) => row.forEach((code, reel) => code !== this.screen[r]?.[reel] && changed.push([r, reel])));
    this.show(screen);
    for (const [row, reel] of changed) {
      this.cell(row, reel)?.animate([{ transform: "rotateY(90deg)" }, { transform: "rotateY(0)" }], { duration: 300, easing: "ease-out" });
    }
  }

  /** Stop the reels at once (quick stop). */
  stopNow(): void {
    for (const animation of this.running) animation.finish();
  }

  get spinning(): boolean {
    return this.running.length > 0;
  }

  private randomSymbol(): string {
    const blur = this.options.blur;
    return blur[Math.floor(Math.random() * blur.length)];
  }

  private measureFrames(): { stop(): void } {
    let last = performance.now();
    let live = true;
    const tick = (now: number) => {
      if (!live) return;
      frameTimes.push(now - last);
      last = now;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame((now) => {
      last = now;
      requestAnimationFrame(tick);
    });
    return { stop: () => (live = false) };
  }

  cell(row: number, reel: number): HTMLElement | null {
    return this.element.querySelector(`.cell[data-row="${row}"][data-reel="${reel}"]`);
  }

  /** Mark winning cells (``row,reel``) and clear the rest. */
  highlight(cells: Set<string>): void {
    this.element.querySelectorAll(".cell.win").forEach((cell) => cell.classList.remove("win"));
    for (const key of cells) {
      const [row, reel] = key.split(",").map(Number);
      this.cell(row, reel)?.classList.add("win");
    }
    this.element.classList.toggle("has-wins", cells.size > 0);
  }

  /** Put ``code`` on one cell of the screen at rest. */
  place(row: number, reel: number, code: string): void {
    const cell = this.cell(row, reel);
    if (!cell || this.screen[row]?.[reel] === code) return;
    this.screen = this.screen.map((line, r) => line.map((c, x) => (r === row && x === reel ? code : c)));
    cell.dataset.symbol = code;
    cell.innerHTML = this.svg(code);
    this.element.dataset.screen = JSON.stringify(this.screen);
  }

  /** Take a mark off every cell. */
  unmark(name: string): void {
    this.element.querySelectorAll(`.cell.${name}`).forEach((cell) => {
      cell.classList.remove(name);
      delete (cell as HTMLElement).dataset.mark;
      cell.removeAttribute("aria-label");
    });
  }

  /** Mark cells (``row,reel`` -> marks: "held", "sticky", "held full"); a marked cell says so to a
   * screen reader. */
  mark(marks: Map<string, string>): void {
    for (const [key, name] of marks) {
      const [row, reel] = key.split(",").map(Number);
      const cell = this.cell(row, reel);
      if (!cell) continue;
      cell.classList.add(...name.split(" "));
      cell.dataset.mark = name;
      cell.setAttribute("aria-label", `${cell.dataset.symbol} (${name})`);
    }
  }

  /** Write a value on a cell (a CASH value, a bonus amount). */
  label(row: number, reel: number, text: string): void {
    const cell = this.cell(row, reel);
    if (!cell) return;
    cell.querySelector(".value")?.remove();
    const value = document.createElement("span");
    value.className = "value";
    value.textContent = text;
    cell.append(value);
  }
}
