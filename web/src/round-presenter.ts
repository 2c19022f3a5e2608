// The round presenter: shows a round's steps as they come (screens spun in, values on cells, wins
// drawn, marks, the gamble's card, the feature scenes and the words for each win and event).

import { humanize, h } from "./dom";
import type { WinPresenter } from "./presenter";
import type { Reels } from "./reels";
import { cellValues, describeEvent, describeWin, winCells } from "./rounds";
import type { GameScreen } from "./screens/screen";
import type { GameModel, Step } from "./types";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Kept = Map<string, { symbol: string; value?: string }>; // "row,reel" -> a carried symbol

export class RoundPresenter {
  readonly winList = h("ul", { class: "wins", "aria-label": "Wins" });
  readonly captions = h("ol", { class: "captions", "aria-label": "Round events", "aria-live": "polite" });
  readonly log = h("div", { class: "log" }, this.winList, this.captions); // scrolls in its own box
  readonly gamble = h("div", { class: "gamble", "aria-live": "polite" });
  readonly meters = h("div", { class: "jackpots feature-meters", "aria-label": "Feature", role: "group" });
  keptBefore: Kept = new Map(); // cells the carried state kept when this round started
  private values = new Map<string, string>(); // "row,reel" -> a value shown on a cell this round
  private drawnCards: string[] = []; // the gamble's cards drawn this round
  private sceneEvents = new Map<string, Step["events"]>(); // a scene's name -> the events that drew it this round
  private told: Step["events"] = []; // every event the meters were shown this round, in order

  constructor(
    private reels: Reels,
    private wins: WinPresenter,
    private screen: GameScreen,
    private model: GameModel,
    private quick: () => boolean,
    private landed: () => void,
  ) {}

  /** Take the last round off the page: its wins, lines, words, card and scenes. */
  clear(): void {
    this.winList.replaceChildren();
    this.captions.replaceChildren();
    this.wins.clear();
    this.gamble.replaceChildren();
    this.reels.highlight(new Set());
    this.values.clear();
    this.sceneEvents.clear();
    this.told = [];
    this.drawnCards = [];
    this.meters.replaceChildren();
  }

  /** Show a feature's progress as its events move it (one meter per name, the latest value),
   * drawn as a scene where the game's screen has one for it. */
  moveMeters(events: Step["events"]): void {
    for (const event of events) {
      const meter = this.screen.meter?.(event, this.told, this.model);
      this.told.push(event);
      if (!meter) continue;
      const [name, text] = meter;
      let box = [...this.meters.children].find((child) => (child as HTMLElement).dataset.meter === name) as HTMLElement | undefined;
      if (!box) {
        const scene = this.screen.scenes?.[name];
        box = h(scene ? "figure" : "div", { class: scene ? "scene" : "jackpot", "data-meter": name }, scene ? h("div", { class: "picture" }) : null);
        box.append(h(scene ? "figcaption" : "span", { text: name }), h("output", { "aria-label": name }));
        this.meters.append(box);
      }
      box.querySelector("output")!.textContent = text;
      const draw = this.screen.scenes?.[name];
      if (!draw) continue;
      const drawn = [...(this.sceneEvents.get(name) ?? []), event];
      this.sceneEvents.set(name, drawn);
      box.querySelector(".picture")!.innerHTML = draw(drawn, this.model);
    }
  }

  /** Show one step: its screen spun in (or kept, for a step that goes on after a decision), its
   * values, wins, marks, card, scenes and words. ``later``: not the round's first screen. */
  async showStep(step: Step, later: boolean, before?: Step): Promise<void> {
    const quick = this.quick();
    const whole = step;
    if (before) {
      // The step went on after a decision: its screen stays, its new wins and events are told.
      step = { ...step, wins: step.wins.slice(before.wins.length), events: step.events.slice(before.events.length) };
      if (JSON.stringify(before.screen) !== JSON.stringify(step.screen)) this.reels.show(step.screen);
    } else if (step.screen.length) {
      const keep = this.heldCells(step);
      // A screen that changed after it landed (mysteries revealed) lands first as it fell.
      const landed = step.events.find((e) => e.type === "landed" && Array.isArray(e.screen))?.screen as string[][] | undefined;
      await this.reels.spin(landed ?? step.screen, quick || (later && step.kind === "bonus"), keep);
      this.landed();
      if (landed) {
        await pause(quick ? 120 : 350);
        this.reels.reveal(step.screen);
      }
      for (const [row, reel, text] of cellValues(step.events, this.model.grid.reels)) this.values.set(`${row},${reel}`, text);
      for (const [key, text] of this.values) {
        const [row, reel] = key.split(",").map(Number);
        if (step.screen[row]?.[reel] !== "BLANK") this.reels.label(row, reel, text);
      }
      const cells = new Set<string>();
      for (const win of step.wins) for (const cell of winCells(win, step.screen, this.model)) cells.add(cell);
      this.reels.highlight(cells);
      this.wins.clear();
      this.wins.showWins(step.wins, step.screen, quick);
      this.reels.mark(this.screen.marks?.(step, this.model) ?? new Map());
      if (!later) {
        // The symbols carried into this round land where they were kept.
        const kept = [...this.keptBefore].filter(([key, { symbol }]) => step.screen[Number(key.split(",")[0])]?.[Number(key.split(",")[1])] === symbol);
        this.reels.mark(new Map(kept.map(([key]) => [key, "carried"])));
        for (const [key, { value }] of kept) {
          if (!value || this.values.has(key)) continue;
          this.values.set(key, value);
          const [row, reel] = key.split(",").map(Number);
          this.reels.label(row, reel, value);
        }
      }
    }
    // A gamble's card is drawn once: a step that only goes on (a collect) keeps it.
    if (whole.kind === "gamble" && !whole.screen.length && !before) this.showGamble(whole);
    // A new screen (a free spin, a re-spin) is told to the meters as a "step" before its events.
    this.moveMeters(before ? step.events : [{ type: "step", kind: step.kind }, ...step.events]);
    for (const win of step.wins) this.winList.append(h("li", { text: describeWin(win, this.screen) }));
    for (const event of step.events) {
      const line = describeEvent(event, this.screen);
      if (line) this.captions.append(h("li", { text: line }));
    }
    // The newest line in view, in whichever box scrolls (the log's on a desktop, the list's on a phone).
    this.captions.scrollTop = this.captions.scrollHeight;
    this.log.scrollTop = this.log.scrollHeight;
    const worth = step.wins.length || step.events.some((e) => describeEvent(e, this.screen));
    if (worth) await pause(quick ? 150 : 450);
  }

  /** Cells that stay in place between two screens of a round (re-spins, held symbols). */
  private heldCells(step: Step): Set<string> {
    const held = new Set<string>();
    for (const event of step.events) {
      for (const p of (event.held ?? event.positions ?? []) as { row?: number; reel?: number }[]) {
        if (typeof p.row === "number" && typeof p.reel === "number") held.add(`${p.row - 1},${p.reel - 1}`);
      }
    }
    return held;
  }

  /** A gamble's card turns over to show what was drawn; the cards drawn before it this round
   * lie face up beside it. */
  showGamble(step: Step): void {
    const shown = step.card ?? step.drawn ?? "";
    const last = [...step.events].reverse().find((e) => e.type === "gamble") as { choice?: string; won?: boolean } | undefined;
    const face = (drawn: string) => this.screen.gambleFace?.(drawn) ?? `<span>${drawn}</span>`;
    const earlier = this.drawnCards.map((drawn) => h("div", { class: "card small", html: face(drawn) }));
    const card = h(
      "div",
      { class: `card ${shown.toLowerCase()}`, role: "img", "aria-label": `Drawn: ${shown}` },
      h("div", { class: "flip" }, h("div", { class: "card-back", "aria-hidden": "true" }), h("div", { class: "card-face", html: face(shown) })),
    );
    this.drawnCards.push(shown);
    this.gamble.replaceChildren(...earlier, card);
    if (last) this.gamble.append(h("p", { class: last.won ? "won" : "lost", text: `${humanize(String(last.choice))}: ${last.won ? "won!" : "lost"}` }));
  }

}
