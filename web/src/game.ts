// The game page: one generic page for every game, its look from the game's screen module and
// everything else (grid, symbols, pays, bets, decisions) from the server.

import { ApiError, explain, request, storedSession } from "./api";
import { AutoplayControl } from "./autoplay";
import { BetPanel } from "./betpanel";
import { JackpotTicker } from "./jackpots";
import { clock, h, humanize, openModal } from "./dom";
import { add, formatMoney, sub, toMinor } from "./money";
import { openHistory, openPaytable, openSettings, showIntro } from "./panels";
import { WinPresenter } from "./presenter";
import { Reels, frameTimes, type Anticipation } from "./reels";
import { cellValues, describeEvent, describeWin, winCells } from "./rounds";
import { screenFor } from "./screens";
import type { GameScreen } from "./screens/screen";
import { beep, loadSettings, type Settings } from "./settings";
import type { GameModel, RoundAnswer, RoundRecord, Session, Step } from "./types";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class GamePage {
  private reels: Reels;
  private wins: WinPresenter;
  private betPanel: BetPanel;
  private settings: Settings = loadSettings();
  private balance: string;
  private lastWin = "0.00";
  private net: string;
  private open: RoundRecord | null = null;
  private busy = false;
  private lastStart = 0;
  private autoplay: AutoplayControl;
  private startedAt = Date.now();
  private nextRealityCheck = 0; // session seconds
  private values = new Map<string, string>(); // "row,reel" -> a value shown on a cell this round
  private carried: Record<string, unknown>; // the state this game carries to the player's next round
  private drawnCards: string[] = []; // the gamble's cards drawn this round
  private refocusSpin = false; // give SPIN the focus back once it can be pressed again
  private keptBefore = new Map<string, { symbol: string; value?: string }>(); // cells the carried state kept when this round started
  private sceneEvents = new Map<string, Step["events"]>(); // a scene's name -> the events that drew it this round
  private told: Step["events"] = []; // every event the meters were shown this round, in order
  private jackpots: JackpotTicker;
  private meters = h("div", { class: "jackpots feature-meters", "aria-label": "Feature", role: "group" });
  private qaScript: HTMLTextAreaElement | null = null;
  readonly screen: GameScreen;
  private ui = {
    balance: h("output", { class: "balance", "aria-label": "Balance" }),
    stake: h("output", { class: "stake", "aria-label": "Stake" }),
    lastWin: h("output", { class: "last-win", "aria-label": "Last win" }),
    net: h("output", { class: "net", "aria-label": "Net position" }),
    timer: h("output", { class: "timer", "aria-label": "Session time" }),
    message: h("p", { class: "message", role: "alert" }),
    captions: h("ol", { class: "captions", "aria-label": "Round events", "aria-live": "polite" }),
    wins: h("ul", { class: "wins", "aria-label": "Wins" }),
    decisions: h("div", { class: "decisions", role: "group", "aria-label": "Decision" }),
    banner: h("div", { class: "banner", "aria-live": "polite" }),
    spin: h("button", { class: "spin", "aria-label": "Spin", text: "SPIN" }),
    gamble: h("div", { class: "gamble", "aria-live": "polite" }),
    jackpotNews: h("p", { class: "jackpot-news", "aria-live": "polite" }),
  };
  private log = h("div", { class: "log" }, this.ui.wins, this.ui.captions); // scrolls in its own box

  constructor(
    private root: HTMLElement,
    private session: Session,
    private model: GameModel,
  ) {
    this.screen = screenFor(model.code, model.name);
    this.balance = session.balance;
    this.net = session.net_position;
    this.carried = session.carried_state?.[model.code] ?? {};
    const game = session.games.find((g) => g.code === model.code);
    this.betPanel = new BetPanel(game?.bet ?? model.bet, this.screen.betValues ?? {}, model.stake_rule, () => this.betChanged());
    this.autoplay = new AutoplayControl(model.code, session.jurisdiction, () => this.betPanel.bet, {
      play: (planId) => this.play(planId),
      deciding: () => !!this.open,
      gap: () => this.rules.min_round_ms - (Date.now() - this.lastStart),
      say: (text) => this.say(text),
      changed: () => this.refresh(),
    });
    this.jackpots = new JackpotTicker(model, this.screen, session.currency, () => ({ stake: this.stakeText(), fields: this.betPanel.bet }));
    const kinds = Object.fromEntries(model.symbols.map((s) => [s.code, s.kind]));
    const blur = model.symbols.filter((s) => s.code !== "BLANK" && !["mystery"].includes(s.kind)).map((s) => s.code);
    this.reels = new Reels({ rows: model.grid.rows, reels: model.grid.reels, kinds, art: this.screen.symbols, blur, rest: model.resting_screen, anticipate: anticipation(model) });
    this.wins = new WinPresenter(this.reels, this.ui.banner, model);
    this.root.style.setProperty("--ratio", String(model.grid.reels / model.grid.rows));
    this.render();
    this.resume();
    if (!this.open) this.showCarried();
    this.refresh();
    setInterval(() => this.tick(), 1000);
    if (this.jackpots.shown) this.jackpots.follow();
    if (this.settings.intro) showIntro(this.model, this.screen, this.settings);
  }

  private get rules() {
    return this.session.jurisdiction;
  }

  private get currency() {
    return this.session.currency;
  }

  private render(): void {
    const c = this.screen.colors;
    this.root.style.setProperty("--bg", c.background);
    this.root.style.setProperty("--frame", c.frame);
    this.root.style.setProperty("--accent", c.accent);
    const mode = this.session.mode === "fun" ? "FUN PLAY" : "REAL MONEY";
    const button = (label: string, action: () => void) => {
      const b = h("button", { class: "tool", text: label });
      b.addEventListener("click", action);
      return b;
    };
    const top = h(
      "header",
      { class: "top" },
      h("a", { href: "/", class: "tool", "aria-label": "Lobby", text: "‹ Lobby" }),
      h("h1", { text: this.model.name }),
      h("span", { class: `mode ${this.session.mode}`, text: mode }),
      h(
        "nav",
        { "aria-label": "Game menu" },
        button("Paytable", () => openPaytable(this.model, this.screen, this.stakeText(), this.currency)),
        button("History", () => openHistory(this.session, this.model, this.screen)),
        button("Settings", () =>
          openSettings(this.settings, this.rules, (s) => {
            this.settings = s;
          }),
        ),
      ),
    );
    const meters = h(
      "div",
      { class: "meters" },
      meter("Balance", this.ui.balance),
      meter("Stake", this.ui.stake),
      meter("Last win", this.ui.lastWin),
      this.rules.show_net_position ? meter("Net position", this.ui.net) : null,
      this.rules.show_session_timer ? meter("Session", this.ui.timer) : null,
    );
    this.ui.spin.addEventListener("click", () => void this.spinOrStop());
    this.betPanel.maxBetButton.addEventListener("click", () => this.betPanel.maxBet([this.rules.max_stake, this.balance]));
    const controls = h(
      "div",
      { class: "controls" },
      this.betPanel.element,
      this.betPanel.maxBetButton,
      this.rules.autoplay.allowed ? this.autoplay.button : null,
      this.ui.spin,
    );
    const stage = h("section", { class: "stage", "aria-label": "Game" }, this.reels.element, this.ui.banner);
    // What the round tells beside the reels (a side column on a desktop, under them on a phone):
    // the feature's scene, the gamble's card, the decision, and the round's wins and events.
    const side = h("div", { class: "side" }, this.meters, this.ui.gamble, this.ui.decisions, this.ui.message, this.log);
    const jackpots = this.jackpots.shown ? this.jackpots.element : null;
    this.root.classList.add("game-page");
    this.root.replaceChildren(...[top, jackpots, stage, side, meters, controls].filter((e): e is HTMLElement => !!e));
    if (new URLSearchParams(location.search).has("qa")) this.root.append(this.qaPanel());
    this.root.dataset.ready = "true";
    document.addEventListener("keydown", (event) => {
      if (event.code !== "Space" || !this.settings.spacebar) return;
      if (event.target instanceof HTMLElement && event.target.closest("input, select, textarea, button, dialog")) return;
      event.preventDefault();
      void this.spinOrStop();
    });
    this.showMeters();
  }

  private qaPanel(): HTMLElement {
    this.qaScript = h("textarea", { "aria-label": "QA script", rows: 3, placeholder: "forced outcomes for the next spin (JSON)" });
    return h("details", { class: "qa", open: true }, h("summary", { text: "QA: forced outcomes (a --qa server only)" }), this.qaScript);
  }

  /** The bet changed: its stake, the jackpots that follow it, and what the game keeps at it. */
  private betChanged(): void {
    this.showMeters();
    this.jackpots.render();
    this.showCarried();
  }

  private stakeText(): string {
    return this.betPanel.stake;
  }

  /** The symbols the game keeps for the next round at this bet (stickies), on their cells and
   * marked, while the reels rest. */
  private showCarried(): void {
    this.reels.unmark("carried");
    const kept = this.keptCells();
    for (const [key, { symbol, value }] of kept) {
      const [row, reel] = key.split(",").map(Number);
      this.reels.place(row, reel, symbol);
      if (value) this.reels.label(row, reel, value);
    }
    this.reels.mark(new Map([...kept.keys()].map((key) => [key, "carried"])));
  }

  /** The cells the carried state keeps at the current bet: "row,reel" -> symbol and value. */
  private keptCells(): Map<string, { symbol: string; value?: string }> {
    const reels = this.model.grid.reels;
    const held = this.screen.carried?.(this.carried, this.betPanel.bet) ?? [];
    return new Map(held.map(({ cell, ...kept }) => [`${Math.floor(cell / reels)},${cell % reels}`, kept]));
  }

  private showMeters(): void {
    this.ui.balance.textContent = formatMoney(this.balance, this.currency);
    const stake = this.stakeText();
    this.ui.stake.textContent = stake ? formatMoney(stake, this.currency) : "—";
    this.ui.lastWin.textContent = formatMoney(this.lastWin, this.currency);
    this.ui.net.textContent = formatMoney(this.net, this.currency);
    this.ui.timer.textContent = clock(this.session.elapsed_s + (Date.now() - this.startedAt) / 1000);
  }

  private tick(): void {
    this.showMeters();
    this.refresh();
    const every = this.rules.reality_check_s;
    const elapsed = this.session.elapsed_s + Math.floor((Date.now() - this.startedAt) / 1000);
    if (!every) return;
    if (!this.nextRealityCheck) this.nextRealityCheck = (Math.floor(this.session.elapsed_s / every) + 1) * every;
    if (elapsed >= this.nextRealityCheck) {
      this.nextRealityCheck += every;
      this.realityCheck(elapsed);
    }
  }

  /** The spin button: disabled while a round plays or waits, and until the jurisdiction's
   * least time between rounds has passed. */
  private refresh(): void {
    const wait = this.rules.min_round_ms - (Date.now() - this.lastStart);
    const waiting = this.lastStart > 0 && wait > 0;
    const canQuickStop = this.busy && this.reels.spinning && this.rules.turbo;
    this.ui.spin.disabled = (this.busy && !canQuickStop) || !!this.open || waiting;
    this.ui.spin.textContent = this.autoplay.running ? "STOP" : canQuickStop ? "STOP" : waiting ? `${Math.ceil(wait / 1000)}` : "SPIN";
    this.ui.spin.setAttribute("aria-label", this.autoplay.running ? "Stop autoplay" : "Spin");
    this.root.dataset.busy = String(this.busy || !!this.open);
    this.betPanel.disabled = this.busy || !!this.open || this.autoplay.running;
    if (this.refocusSpin && !this.ui.spin.disabled && !this.open && !this.busy) {
      this.refocusSpin = false;
      if (this.focusLost()) this.ui.spin.focus();
    }
    if (waiting) setTimeout(() => this.refresh(), Math.min(wait, 250));
  }

  /** Whether the keyboard's focus is nowhere (on a button that went away or was disabled). */
  private focusLost(): boolean {
    const active = document.activeElement;
    return !active || active === document.body || !active.isConnected || this.ui.decisions.contains(active);
  }

  private say(text: string): void {
    this.ui.message.textContent = text;
  }

  private async spinOrStop(): Promise<void> {
    this.refocusSpin = true;
    if (this.autoplay.running) return this.autoplay.stop("player");
    if (this.busy) {
      if (this.reels.spinning && this.rules.turbo) this.reels.stopNow();
      return;
    }
    if (this.ui.spin.disabled) return;
    await this.play();
  }

  /** One round: stake taken, screens shown, decisions offered. False when nothing was played. */
  private async play(autoplayId?: number): Promise<boolean> {
    this.busy = true;
    this.say("");
    this.keptBefore = this.keptCells();
    this.refresh();
    const body: Record<string, unknown> = { game: this.model.code, bet: this.betPanel.bet };
    if (autoplayId) body.autoplay = autoplayId;
    const script = this.qaScript?.value.trim();
    if (script) body.script = JSON.parse(script);
    try {
      const answer = await request<RoundAnswer>("POST", "/v1/rounds", body);
      // The server times a round from when it took it, somewhere between our request and its
      // answer: counting the least gap from the answer never sends the next round too soon.
      this.lastStart = Date.now();
      if (this.qaScript) this.qaScript.value = "";
      // The last round's win stays on show until a new round has really started: a refused
      // request (funds, limits) leaves it as it was.
      this.clearRound();
      this.balance = sub(answer.round.balance_before, answer.round.total_bet);
      this.showMeters();
      await this.showRound(answer, []);
      return true;
    } catch (error) {
      this.lastStart = error instanceof ApiError && error.code === "MIN_ROUND_DURATION" ? this.lastStart : 0;
      if (error instanceof ApiError && error.code === "AUTOPLAY_STOPPED") {
        this.autoplay.forget();
      }
      if (error instanceof ApiError && error.body.balance) this.balance = error.body.balance;
      this.say(explain(error));
      return false;
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  private async decide(choice: string): Promise<void> {
    if (!this.open || this.busy) return;
    this.refocusSpin = true;
    const round = this.open;
    this.busy = true;
    this.ui.decisions.replaceChildren();
    this.say("");
    this.refresh();
    try {
      const answer = await request<RoundAnswer>("POST", `/v1/rounds/${round.id}/decisions`, { choice });
      await this.showRound(answer, round.steps);
    } catch (error) {
      this.say(explain(error));
      this.offerDecision(round);
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  private clearRound(): void {
    this.ui.wins.replaceChildren();
    this.ui.captions.replaceChildren();
    this.wins.clear();
    this.ui.gamble.replaceChildren();
    this.reels.highlight(new Set());
    this.values.clear();
    this.sceneEvents.clear();
    this.told = [];
    this.drawnCards = [];
    this.meters.replaceChildren();
  }

  /** Show a feature's progress as its events move it (one meter per name, the latest value),
   * drawn as a scene where the game's screen has one for it. */
  private moveMeters(events: Step["events"]): void {
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

  /** Show what a round's record adds to the steps already ``seen`` (a decision may add steps or
   * continue the last one), then pay the round or offer its decision. */
  private async showRound(answer: RoundAnswer, seen: Step[]): Promise<void> {
    const round = answer.round;
    this.root.dataset.round = String(round.id);
    for (let i = 0; i < round.steps.length; i++) {
      const before = seen[i];
      if (before && JSON.stringify(before) === JSON.stringify(round.steps[i])) continue;
      await this.showStep(round.steps[i], i > 0, before);
    }
    this.balance = answer.balance;
    if (round.status === "awaiting") {
      this.open = round;
      this.offerDecision(round);
    } else {
      this.open = null;
      this.finishRound(round);
    }
    this.root.dataset.shown = String(round.id);
    this.root.dataset.status = round.status;
    this.showMeters();
  }

  private finishRound(round: RoundRecord): void {
    this.ui.decisions.replaceChildren();
    this.ui.gamble.querySelector(".face-down")?.remove(); // a gamble offered and declined
    this.lastWin = round.total_win;
    if (round.status === "complete") this.net = add(this.net, sub(round.total_win, round.total_bet));
    if (round.status === "complete" && round.state) {
      this.carried = round.state;
      this.showCarried();
    }
    const win = toMinor(round.total_win);
    if (win > 0n) {
      // No celebration for a win that does not exceed the stake (it is not a gain).
      this.wins.announce(round.total_win, round.total_bet, this.currency);
      if (win > toMinor(round.total_bet)) beep(this.settings, 880, 200);
    }
    if (round.status === "void") this.say("This round was void and its stake refunded.");
  }

  private offerDecision(round: RoundRecord): void {
    const awaiting = round.awaiting;
    if (!awaiting) return;
    const labels = this.screen.optionLabels ?? {};
    const buttons = awaiting.options.map((option) => {
      const art = this.screen.optionArt?.(option);
      const label = labels[option] ?? humanize(option);
      const b = h("button", { class: "choice", "data-choice": option, "aria-label": label });
      if (art) b.append(h("span", { class: "pick", "aria-hidden": "true", html: `<svg viewBox="0 0 40 40">${art}</svg>` }));
      b.append(label);
      b.addEventListener("click", () => void this.decide(option));
      return b;
    });
    // The decision's context is the last thing the round told (an offer, a level reached).
    const told = round.steps.at(-1)?.events.map((e) => describeEvent(e, this.screen)).filter(Boolean).at(-1);
    const prompt = `${humanize(awaiting.decision)}${told ? `: ${told}` : ""} — win so far ${formatMoney(awaiting.win, this.currency)}`;
    this.ui.decisions.replaceChildren(h("p", { class: "prompt", text: prompt }), ...buttons);
    // A gamble not yet played shows its card face down.
    if (awaiting.decision === "gamble" && !this.ui.gamble.childElementCount) {
      this.ui.gamble.replaceChildren(h("div", { class: "card face-down", role: "img", "aria-label": "A card face down" }, h("div", { class: "card-back" })));
    }
    buttons[0]?.focus();
  }

  private async showStep(step: Step, later: boolean, before?: Step): Promise<void> {
    const quick = this.settings.quickSpin && this.rules.turbo;
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
      beep(this.settings, 220, 40);
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
    for (const win of step.wins) this.ui.wins.append(h("li", { text: describeWin(win, this.screen) }));
    for (const event of step.events) {
      const line = describeEvent(event, this.screen);
      if (line) this.ui.captions.append(h("li", { text: line }));
    }
    // The newest line in view, in whichever box scrolls (the log's on a desktop, the list's on a phone).
    this.ui.captions.scrollTop = this.ui.captions.scrollHeight;
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
  private showGamble(step: Step): void {
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
    this.ui.gamble.replaceChildren(...earlier, card);
    if (last) this.ui.gamble.append(h("p", { class: last.won ? "won" : "lost", text: `${humanize(String(last.choice))}: ${last.won ? "won!" : "lost"}` }));
  }

  private resume(): void {
    const round = this.session.open_rounds.find((r) => r.game === this.model.code);
    const last = round ? [...round.steps].reverse().find((s) => s.screen.length) : undefined;
    if (!round) return;
    if (last) {
      this.reels.show(last.screen);
      const cells = new Set<string>();
      for (const win of last.wins) for (const cell of winCells(win, last.screen, this.model)) cells.add(cell);
      this.reels.highlight(cells);
    }
    for (const step of round.steps) if (step.kind === "gamble" && !step.screen.length) this.showGamble(step);
    for (const step of round.steps) this.moveMeters([{ type: "step", kind: step.kind }, ...step.events]);
    this.open = round;
    this.root.dataset.round = String(round.id);
    this.root.dataset.status = round.status;
    this.offerDecision(round);
    this.say("Your unfinished round is back where you left it: make your choice to go on.");
  }

  private realityCheck(elapsed: number): void {
    if (this.autoplay.running) void this.autoplay.stop("reality check");
    const body = h(
      "div",
      {},
      h("p", { text: `You have been playing for ${clock(elapsed)}.` }),
      h("p", { text: `Net position this session: ${formatMoney(this.net, this.currency)}.` }),
    );
    const go = h("button", { text: "Keep playing" });
    const leave = h("button", { text: "Leave the game" });
    const box = document.createElement("dialog");
    box.className = "reality";
    box.setAttribute("aria-label", "Reality check");
    box.append(h("h2", { text: "Reality check" }), body, h("footer", {}, go, leave));
    go.addEventListener("click", () => box.close());
    leave.addEventListener("click", () => location.assign("/"));
    openModal(box);
  }
}

/** The scatters that trigger a feature three at a time (on the reels each can land on), whose
 * landing may slow the reels still to stop. */
function anticipation(model: GameModel): Anticipation | undefined {
  const scatters = model.symbols.filter((s) => s.kind === "scatter" && (!s.reels || s.reels.length >= 3));
  if (!scatters.length) return undefined;
  const reels = scatters.every((s) => s.reels) ? [...new Set(scatters.flatMap((s) => s.reels!.map((r) => r - 1)))] : undefined;
  return { symbols: scatters.map((s) => s.code), count: 3, reels };
}

function meter(label: string, output: HTMLElement): HTMLElement {
  return h("div", { class: "meter" }, h("span", { text: label }), output);
}

/** Open the game page for ``code`` in ``root``. */
export async function openGame(root: HTMLElement, code: string): Promise<void> {
  if (!storedSession()) throw new ApiError(401, { error: "INVALID_SESSION", message: "no session" }, null);
  const [session, model] = await Promise.all([
    request<Session>("GET", "/v1/session"),
    request<GameModel>("GET", `/v1/games/${encodeURIComponent(code)}`),
  ]);
  document.title = `${model.name} · slotforge`;
  const page = new GamePage(root, session, model);
  (window as unknown as { slotforge: unknown }).slotforge = { page, frameTimes };
}
