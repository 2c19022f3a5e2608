// The game page: one generic page for every game, its look from the game's screen module and
// everything else (grid, symbols, pays, bets, decisions) from the server.

import { ApiError, explain, request, storedSession } from "./api";
import { AutoplayControl } from "./autoplay";
import { BetPanel } from "./betpanel";
import { JackpotTicker } from "./jackpots";
import { clock, h, humanize, openModal } from "./dom";
import { add, formatMoney, sub, toMinor } from "./money";
import { openLimits } from "./limits";
import { openHistory, openPaytable, openSettings, showIntro } from "./panels";
import { WinPresenter } from "./presenter";
import { Reels, frameTimes, startTimes, type Anticipation } from "./reels";
import { RoundPresenter } from "./round-presenter";
import { askToPlay, counter, offeredOn, showSummary } from "./freerounds";
import { describeEvent, winCells } from "./rounds";
import { screenFor } from "./screens";
import type { GameScreen } from "./screens/screen";
import { beep, loadSettings, type Settings } from "./settings";
import type { FreeRounds, GameModel, RoundAnswer, RoundRecord, Session, Step } from "./types";


export class GamePage {
  private reels: Reels;
  private wins: WinPresenter;
  private presenter: RoundPresenter;
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
  private carried: Record<string, unknown>; // the state this game carries to the player's next round
  private refocusSpin = false; // give SPIN the focus back once it can be pressed again
  private jackpots: JackpotTicker;
  private qaScript: HTMLTextAreaElement | null = null;
  private free: FreeRounds | null = null; // the free rounds being played: SPIN plays them, at their bet
  readonly screen: GameScreen;
  private ui = {
    balance: h("output", { class: "balance", "aria-label": "Balance" }),
    stake: h("output", { class: "stake", "aria-label": "Stake" }),
    lastWin: h("output", { class: "last-win", "aria-label": "Last win" }),
    net: h("output", { class: "net", "aria-label": "Net position" }),
    timer: h("output", { class: "timer", "aria-label": "Session time" }),
    message: h("p", { class: "message", role: "alert" }),
    decisions: h("div", { class: "decisions", role: "group", "aria-label": "Decision" }),
    banner: h("div", { class: "banner", "aria-live": "polite" }),
    spin: h("button", { class: "spin", "aria-label": "Spin", text: "SPIN" }),
    jackpotNews: h("p", { class: "jackpot-news", "aria-live": "polite" }),
  };

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
      deciding: () => this.open?.awaiting?.options ?? [],
      decide: (option) => this.decide(option),
      gap: () => this.rules.min_round_ms - (Date.now() - this.lastStart),
      say: (text) => this.say(text),
      changed: () => this.refresh(),
    });
    this.jackpots = new JackpotTicker(model, this.screen, session.currency, () => ({ stake: this.stakeText(), fields: this.betPanel.bet }));
    const kinds = Object.fromEntries(model.symbols.map((s) => [s.code, s.kind]));
    const blur = model.symbols.filter((s) => s.code !== "BLANK" && !["mystery"].includes(s.kind)).map((s) => s.code);
    this.reels = new Reels({ rows: model.grid.rows, reels: model.grid.reels, kinds, art: this.screen.symbols, blur, rest: model.resting_screen, anticipate: anticipation(model) });
    this.wins = new WinPresenter(this.reels, this.ui.banner, model);
    this.presenter = new RoundPresenter(this.reels, this.wins, this.screen, model, () => this.settings.quickSpin && this.rules.turbo, () => beep(this.settings, 220, 40));
    this.root.style.setProperty("--ratio", String(model.grid.reels / model.grid.rows));
    this.render();
    this.resume();
    if (!this.open) this.showCarried();
    this.refresh();
    setInterval(() => this.tick(), 1000);
    if (this.jackpots.shown) this.jackpots.follow();
    // An unfinished round brought back waits for its decision: no intro in front of its buttons.
    if (this.settings.intro && !this.open) showIntro(this.model, this.screen, this.settings);
    if (!this.open) void this.offerFreeRounds();
  }

  /** The operator's free rounds on this game, offered: "Play now" has SPIN play them. */
  private async offerFreeRounds(): Promise<void> {
    const grant = offeredOn(this.session.free_rounds ?? [], this.model.code);
    if (!grant || !(await askToPlay(grant, (text) => this.say(text)))) return;
    this.free = grant;
    this.say(counter(grant));
    this.refresh();
  }

  /** After a free round: count it, and once the last is played show what they won. */
  private async countFreeRound(): Promise<void> {
    if (!this.free) return;
    const grant = { ...this.free, played: this.free.played + 1, left: this.free.left - 1 };
    this.free = grant.left > 0 ? grant : null;
    if (this.free) this.say(counter(this.free));
    else await showSummary(grant.id, this.currency);
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
        this.rules.limits.enabled && this.session.mode === "real" ? button("Limits", () => void openLimits()) : null,
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
    const p = this.presenter;
    const side = h("div", { class: "side" }, p.meters, p.gamble, this.ui.decisions, this.ui.message, p.log);
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
    this.betPanel.disabled = this.busy || !!this.open || this.autoplay.running || !!this.free; // free rounds: their bet
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
    this.presenter.keptBefore = this.keptCells();
    this.refresh();
    const free = autoplayId ? null : this.free; // free rounds are played one SPIN at a time
    const body: Record<string, unknown> = free ? { game: this.model.code, free_round: free.id } : { game: this.model.code, bet: this.betPanel.bet };
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
      this.presenter.clear();
      // A free round takes no stake: the balance stays as it was until its win is paid.
      this.balance = free ? answer.round.balance_before : sub(answer.round.balance_before, answer.round.total_bet);
      this.showMeters();
      await this.showRound(answer, []);
      if (free) await this.countFreeRound();
      return true;
    } catch (error) {
      this.lastStart = error instanceof ApiError && error.code === "MIN_ROUND_DURATION" ? this.lastStart : 0;
      if (error instanceof ApiError && error.code === "AUTOPLAY_STOPPED") {
        this.autoplay.forget();
      }
      if (error instanceof ApiError && error.body.balance) this.balance = error.body.balance;
      if (free && error instanceof ApiError && error.code === "FREE_ROUNDS_UNAVAILABLE") this.free = null;
      this.say(explain(error));
      return false;
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  /** Answer the open round's decision; false when nothing was decided (refused, or not now). */
  private async decide(choice: string): Promise<boolean> {
    if (!this.open || this.busy) return false;
    this.refocusSpin = true;
    const round = this.open;
    this.busy = true;
    this.ui.decisions.replaceChildren();
    this.say("");
    this.refresh();
    try {
      const answer = await request<RoundAnswer>("POST", `/v1/rounds/${round.id}/decisions`, { choice });
      await this.showRound(answer, round.steps);
      return true;
    } catch (error) {
      this.say(explain(error));
      this.offerDecision(round);
      return false;
    } finally {
      this.busy = false;
      this.refresh();
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
      await this.presenter.showStep(round.steps[i], i > 0, before);
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
    this.presenter.gamble.querySelector(".face-down")?.remove(); // a gamble offered and declined
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
    this.ui.decisions.dataset.decision = awaiting.decision; // a gamble's options sit in rows on a phone
    // A gamble not yet played shows its card face down.
    if (awaiting.decision === "gamble" && !this.presenter.gamble.childElementCount) {
      this.presenter.gamble.replaceChildren(h("div", { class: "card face-down", role: "img", "aria-label": "A card face down" }, h("div", { class: "card-back" })));
    }
    buttons[0]?.focus();
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
    for (const step of round.steps) if (step.kind === "gamble" && !step.screen.length) this.presenter.showGamble(step);
    for (const step of round.steps) this.presenter.moveMeters([{ type: "step", kind: step.kind }, ...step.events]);
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

/** The game's model with the RTP of the version this session plays: an operator may choose
 * another RTP version per market, which the paytable and rules must show. */
function asPlayed(model: GameModel, session: Session): GameModel {
  const played = session.games.find((g) => g.code === model.code);
  return played ? { ...model, model: played.model, rtp: played.rtp, rtp_range: played.rtp_range, rtp_text: played.rtp_text } : model;
}

/** Open the game page for ``code`` in ``root``. */
export async function openGame(root: HTMLElement, code: string): Promise<void> {
  if (!storedSession()) throw new ApiError(401, { error: "INVALID_SESSION", message: "no session" }, null);
  const [session, model] = await Promise.all([
    request<Session>("GET", "/v1/session"),
    request<GameModel>("GET", `/v1/games/${encodeURIComponent(code)}`),
  ]);
  document.title = `${model.name} · slotforge`;
  const page = new GamePage(root, session, asPlayed(model, session));
  (window as unknown as { slotforge: unknown }).slotforge = { page, frameTimes, startTimes };
}
