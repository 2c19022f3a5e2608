// The game page's dialogs: paytable and rules, history, settings, autoplay, intro.

import { explain, request } from "./api";
import { ART_CREDITS, symbolSvg } from "./art";
import { dialog, h, humanize, openModal, rtpStrategies, rtpText, volatilityLevel, volatilityText } from "./dom";
import { formatMoney } from "./money";
import { describeEvent, describeWin } from "./rounds";
import type { GameScreen } from "./screens/screen";
import { saveSettings, type Settings } from "./settings";
import type { GameModel, Jurisdiction, RoundRecord, Session } from "./types";

function payTable(title: string, pays: Record<string, Record<string, number | string>>, model: GameModel, screen: GameScreen, unit: string): HTMLElement {
  const counts = [...new Set(Object.values(pays).flatMap((row) => Object.keys(row)))].sort((a, b) => Number(a) - Number(b));
  const kinds = Object.fromEntries(model.symbols.map((s) => [s.code, s.kind]));
  const head = h("tr", {}, h("th", { text: "symbol" }), ...counts.map((c) => h("th", { text: `${c}×` })));
  const rows = Object.entries(pays).map(([code, row]) =>
    h(
      "tr",
      {},
      h("th", { class: "sym", html: `${symbolSvg(code, kinds[code] ?? "high", screen.symbols[code])}<span>${code}</span>` }),
      ...counts.map((c) => h("td", { text: row[c] === undefined ? "" : String(row[c]) })),
    ),
  );
  return h("section", {}, h("h3", { text: `${title} (${unit})` }), h("table", { class: "pays" }, h("thead", {}, head), h("tbody", {}, ...rows)));
}

function featureList(value: unknown): Node {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return h("dl", {}, ...Object.entries(value).flatMap(([k, v]) => [h("dt", { text: humanize(k) }), h("dd", {}, featureList(v))]));
  }
  return document.createTextNode(Array.isArray(value) ? value.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(", ") : String(value));
}

function paylineGrid(line: number[], rows: number, index: number): HTMLElement {
  const cells = Array.from({ length: rows }, (_, r) => line.map((row) => `<i class="${row === r ? "on" : ""}"></i>`).join("")).join("");
  return h("figure", { class: "payline" }, h("div", { class: "mini", style: `--reels:${line.length}`, html: cells }), h("figcaption", { text: String(index + 1) }));
}

/** The paytable and rules, generated from the model, with the RTP. */
export function openPaytable(model: GameModel, screen: GameScreen, stake: string, currency: string): void {
  const body = h("div", { class: "paytable" });
  body.append(h("p", { class: "rtp", text: `Return to player: ${rtpText(model)}. Volatility: ${volatilityLevel(model.volatility)?.word ?? "not published"}.` }));
  if (model.rtp_range) body.append(h("p", { class: "rtp-range", text: `The return depends on the player's strategy: ${rtpStrategies(model)}.` }));
  if (stake) body.append(h("p", { text: `Your stake: ${formatMoney(stake, currency)}.` }));
  if (model.line_pays && Object.keys(model.line_pays).length) body.append(payTable("Line pays", model.line_pays, model, screen, "coins per line, left to right"));
  if (model.scatter_pays && Object.keys(model.scatter_pays).length) body.append(payTable("Scatter pays", model.scatter_pays, model, screen, "x total stake, anywhere"));
  if (model.count_pays && Object.keys(model.count_pays).length) body.append(payTable("Pays anywhere", model.count_pays, model, screen, "x base bet, count on the grid"));
  if (model.wild) {
    const except = model.wild.substitutes_except?.length ? `, except ${model.wild.substitutes_except.join(", ")}` : "";
    body.append(h("p", { text: `${model.wild.symbol} substitutes for every symbol${except}.` }));
  }
  if (model.paylines.length) {
    body.append(h("h3", { text: `${model.paylines.length} paylines` }), h("div", { class: "paylines" }, ...model.paylines.map((line, i) => paylineGrid(line, model.grid.rows, i))));
  }
  if (model.features) body.append(h("h3", { text: "Features" }), featureList(model.features));
  const decisions = Object.entries(model.decisions);
  if (decisions.length) {
    body.append(h("h3", { text: "Decisions" }), h("ul", {}, ...decisions.map(([name, options]) => h("li", { text: `${humanize(name)}: ${options.join(", ")}` }))));
  }
  body.append(
    h("section", { class: "maths", "aria-label": "Maths" }, h("h3", { text: "Maths" }),
      h("p", { text: `Return to player ${rtpText(model)} (model ${model.model}).` }),
      h("p", { class: "volatility-figures", text: `Volatility: ${volatilityText(model.volatility)}.` })),
  );
  body.append(h("p", { class: "note", text: "A malfunction voids all pays and plays. Every round is recorded and can be replayed." }));
  body.append(h("p", { class: "credits", text: ART_CREDITS }));
  dialog(`${model.name}: paytable and rules`, body);
}

function miniScreen(screen: string[][], model: GameModel, art: GameScreen): HTMLElement {
  const kinds = Object.fromEntries(model.symbols.map((s) => [s.code, s.kind]));
  const cells = screen.flat().map((code) => `<span>${symbolSvg(code, kinds[code] ?? "high", art.symbols[code])}</span>`).join("");
  return h("div", { class: "mini-screen", style: `--reels:${screen[0]?.length ?? 1}`, html: cells });
}

function roundDetail(round: RoundRecord, verified: boolean | null, model: GameModel, art: GameScreen): HTMLElement {
  const mark =
    verified === true
      ? h("p", { class: "verified", text: "✔ verified by replay: the server re-ran this round and got the same record" })
      : h("p", { class: "unverified", text: verified === false ? "✘ replay did not match" : "void: nothing was played" });
  const steps = round.steps.map((step) =>
    h(
      "li",
      {},
      // The list numbers the steps: the heading names them only.
      h("p", { class: "step-kind", text: `${humanize(step.kind)}${step.card ? `: ${step.card}` : ""}${step.drawn ? `: ${step.drawn}` : ""}` }),
      step.screen.length ? miniScreen(step.screen, model, art) : null,
      ...step.wins.map((w) => h("p", { class: "win", text: describeWin(w, art) })),
      ...step.events.map((e) => describeEvent(e, art)).filter(Boolean).map((t) => h("p", { class: "event", text: t! })),
    ),
  );
  const choices = round.inputs?.choices ?? [];
  return h(
    "div",
    { class: "round-detail" },
    mark,
    h("p", { text: `Round ${round.id}, ${localTime(round.started_at)}: stake ${round.total_bet}, win ${round.total_win} ${round.currency}` }),
    choices.length ? h("p", { text: `Decisions: ${choices.join(", ")}` }) : null,
    h("ol", {}, ...steps),
  );
}

/** A time the server gives in UTC, in the player's own time and the browser's way of writing it. */
export function localTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** The player's last rounds, each with its screens, decisions and the verified-by-replay mark. */
export async function openHistory(session: Session, model: GameModel, art: GameScreen): Promise<void> {
  const body = h("div", { class: "history" });
  const box = dialog("History", body);
  if (session.mode === "fun") {
    body.append(h("p", { text: "History is not available when playing for fun." }));
    return;
  }
  try {
    const { rounds } = await request<{ rounds: RoundRecord[] }>("GET", "/v1/rounds?limit=10");
    if (!rounds.length) body.append(h("p", { text: "No rounds yet." }));
    const list = h("ul", { class: "rounds" });
    const names = new Map(session.games.map((game) => [game.code, game.name]));
    for (const round of rounds) {
      const name = names.get(round.game) ?? round.game;
      const open = h("button", { text: `#${round.id} ${name}, ${localTime(round.started_at)}: stake ${round.total_bet}, win ${round.total_win} (${round.status})` });
      open.addEventListener("click", async () => {
        const detail = await request<{ round: RoundRecord; verified: boolean | null }>("GET", `/v1/rounds/${round.id}`);
        const shown = h("li", {}, roundDetail(detail.round, detail.verified, model, art));
        open.parentElement?.after(shown);
        open.disabled = true;
      });
      list.append(h("li", {}, open));
    }
    body.append(list);
  } catch (error) {
    body.append(h("p", { role: "alert", text: explain(error) }));
  }
  void box;
}

/** Settings as the games' rules list them; quick spin only where the jurisdiction allows it. */
export function openSettings(settings: Settings, rules: Jurisdiction, changed: (s: Settings) => void): void {
  const s = { ...settings };
  const toggle = (key: "quickSpin" | "spacebar" | "sound" | "intro", label: string, allowed = true) => {
    const input = h("input", { type: "checkbox", checked: s[key] && allowed, disabled: !allowed, name: key });
    input.addEventListener("change", () => {
      s[key] = input.checked;
      saveSettings(s);
      changed(s);
    });
    return h("label", { class: "setting" }, input, h("span", { text: allowed ? label : `${label} (not allowed here)` }));
  };
  const volume = h("input", { type: "range", min: 0, max: 100, value: s.volume, name: "volume", "aria-label": "Volume" });
  volume.addEventListener("input", () => {
    s.volume = Number(volume.value);
    saveSettings(s);
    changed(s);
  });
  dialog(
    "Settings",
    h(
      "div",
      { class: "settings" },
      toggle("quickSpin", "Quick spin", rules.turbo),
      toggle("spacebar", "Spacebar to spin"),
      toggle("sound", "Sound"),
      h("label", { class: "setting" }, h("span", { text: "Volume" }), volume),
      toggle("intro", "Intro screen"),
    ),
  );
}

export interface AutoplayPlan {
  id: number;
  rounds: number;
}

/** The autoplay dialog: rounds and the stops the jurisdiction asks for (a loss limit where
 * required) and the advanced ones. */
export function openAutoplay(game: string, bet: Record<string, string | number>, rules: Jurisdiction, start: (plan: AutoplayPlan) => void): void {
  const counts = [5, 10, 25, 50, 100, 250, 500, 1000].filter((n) => n <= rules.autoplay.max_rounds);
  const rounds = h("select", { name: "rounds", "aria-label": "Rounds" }, ...counts.map((n) => h("option", { value: n, text: String(n) })));
  const amount = (name: string, label: string, required = false) =>
    h("label", { class: "setting" }, h("span", { text: label }), h("input", { name, inputmode: "decimal", placeholder: required ? "required" : "off", "aria-label": label, required }));
  const check = (name: string, label: string) => h("label", { class: "setting" }, h("input", { type: "checkbox", name }), h("span", { text: label }));
  const message = h("p", { role: "alert", class: "message" });
  const form = h(
    "form",
    { class: "autoplay-form" },
    h("label", { class: "setting" }, h("span", { text: "Rounds" }), rounds),
    amount("cash_decrease", "Stop if cash decreases by (loss limit)", rules.autoplay.loss_limit_required),
    h("fieldset", {}, h("legend", { text: "Advanced stops" }), check("stop_on_any_win", "On any win"), check("stop_on_feature", "If free spins or a bonus is won"), amount("single_win_at_least", "If a single win is at least"), amount("cash_increase", "If cash increases by")),
    h("p", { class: "autoplay-rule", text: AUTOPLAY_RULE }),
    message,
  );
  const go = h("button", { text: "Start autoplay" });
  const box = dialog("Autoplay", form, [go]);
  go.addEventListener("click", async () => {
    const data = new FormData(form);
    const plan: Record<string, unknown> = { game, bet, rounds: Number(data.get("rounds")) };
    for (const name of ["stop_on_any_win", "stop_on_feature"]) plan[name] = data.get(name) === "on";
    for (const name of ["cash_decrease", "single_win_at_least", "cash_increase"]) {
      const value = String(data.get(name) ?? "").trim();
      if (value) plan[name] = value;
    }
    const wrong = autoplayFormProblem(plan, rules);
    if (wrong) {
      message.textContent = wrong;
      return;
    }
    try {
      const answer = await request<AutoplayPlan>("POST", "/v1/autoplay", plan);
      box.close();
      start(answer);
    } catch (error) {
      message.textContent = explain(error);
    }
  });
}

/** What autoplay does at a decision, said in its dialog. */
export const AUTOPLAY_RULE = "Autoplay never gambles: a win that offers a gamble is collected. It stops at a pick (a bonus's choice) for you to make.";

const AMOUNT_NAMES: Record<string, string> = {
  cash_decrease: "The loss limit",
  single_win_at_least: "The single win to stop on",
  cash_increase: "The cash increase to stop on",
};

/** What is wrong with an autoplay plan's amounts, in words (null: nothing): each an amount of
 * money such as 50 or 12.50, above zero; the loss limit given where the jurisdiction wants one. */
export function autoplayFormProblem(plan: Record<string, unknown>, rules: Pick<Jurisdiction, "autoplay">): string | null {
  if (rules.autoplay.loss_limit_required && !plan.cash_decrease) return "A loss limit is required here: enter the most you are willing to lose, such as 50.00.";
  for (const [name, what] of Object.entries(AMOUNT_NAMES)) {
    const value = plan[name];
    if (value === undefined) continue;
    if (typeof value !== "string" || !/^[0-9]{1,12}(\.[0-9]{1,2})?$/.test(value)) return `${what} must be an amount of money such as 50 or 12.50 (digits, at most two after the point).`;
    if (!/[1-9]/.test(value)) return `${what} must be more than zero.`;
  }
  return null;
}

/** The intro screen (the settings turn it off). */
export function showIntro(model: GameModel, screen: GameScreen, settings: Settings): void {
  const again = h("input", { type: "checkbox", checked: true, name: "intro-again" });
  const go = h("button", { class: "play", text: "Play" });
  const box = document.createElement("dialog");
  box.className = "intro";
  box.setAttribute("aria-label", `${model.name} intro`);
  box.append(
    h("div", { class: "picture", html: screen.picture }),
    h("p", { text: `Return to player ${rtpText(model)} · volatility ${volatilityLevel(model.volatility)?.word ?? "not published"}` }),
    h("label", { class: "setting" }, again, h("span", { text: "Show this screen next time" })),
    go,
  );
  go.addEventListener("click", () => {
    settings.intro = again.checked;
    saveSettings(settings);
    box.close();
  });
  openModal(box);
}
