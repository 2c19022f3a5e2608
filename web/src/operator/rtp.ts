// Live RTP against theory over a chosen period: each game's actual RTP beside its published RTP
// and the 99% band it should fall in after that many rounds (a game outside its band is flagged),
// and a chart per game of its RTP converging over its rounds inside the band (uPlot).

import uPlot from "uplot";
import { call, query } from "./api";
import { esc, fields, percent, table } from "./dom";
import { utc } from "./rounds";
import type { RoundLine, RoundList, RtpLine, RtpReport } from "./types";

/** The most rounds a game's chart reads (the latest of the period), a page of the search at a time. */
const CHART_ROUNDS = 5_000;
const PAGE = 500;
const Z99 = 2.576; // the normal quantile of a two-sided 99% band

/** A period of local days, both included (``from`` and ``to`` as a date picker gives them). */
interface Period {
  from: string;
  to: string;
}

export async function showRtp(view: HTMLElement, period: Period = { from: "", to: "" }): Promise<void> {
  const range = { from: utc(period.from && `${period.from}T00:00`), to: utc(period.to && nextDay(period.to)) };
  const report = await call<RtpReport>("GET", `/v1/operator/reports/rtp${query(range)}`);
  const flagged = report.games.filter((g) => g.outside_band);
  view.innerHTML = `
    <h1>Live RTP against theory</h1>
    <form id="period" class="filters">
      <label>Rounds finished from (day) <input name="from" type="date" value="${esc(period.from)}"></label>
      <label>to (day, included) <input name="to" type="date" value="${esc(period.to)}"></label>
      <button type="submit">Show</button>
    </form>
    <p class="${flagged.length ? "alarm" : "calm"}" role="status" id="rtp-summary">${
      flagged.length
        ? `${flagged.length} game${flagged.length > 1 ? "s" : ""} outside the 99% band: ${flagged.map((g) => esc(`${g.game} ${g.version ?? ""}`.trim())).join(", ")}`
        : "Every game within its 99% band."
    }</p>
    ${table(
      ["Game", "RTP version", "Rounds", "Stakes", "Wins", "Actual RTP", "Theoretical RTP", "99% band", "Status"],
      report.games.map((g) => [
        esc(g.game), esc(g.version ?? "–"), String(g.rounds), esc(g.stakes), esc(g.wins), percent(g.rtp), percent(g.theoretical_rtp),
        g.band_low === null ? "–" : `${percent(g.band_low)} to ${percent(g.band_high)}`,
        g.outside_band
          ? `<span class="flag" data-game="${esc(g.game)}" data-outside="true">outside the band</span>`
          : `<span class="ok" data-game="${esc(g.game)}" data-outside="false">within</span>`,
      ]),
      "live RTP",
    )}
    <div id="rtp-charts"></div>
    <p class="hint">The band is the version's RTP ± 2.576 standard deviations of the actual RTP after these rounds,
    from the PAR sheet's standard deviation of one round (normal approximation: over few rounds a slot's return is
    skewed, most runs below the RTP). Fun rounds and void rounds are not counted. Days are the browser's.</p>`;
  const form = view.querySelector("#period") as HTMLFormElement;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const asked = fields(form);
    showRtp(view, { from: asked.from, to: asked.to }).catch((error) => (view.innerHTML = `<p class="error">${esc(error.message)}</p>`));
  });
  const charts = view.querySelector("#rtp-charts") as HTMLElement;
  for (const line of report.games) {
    if (line.theoretical_rtp !== null && line.std_per_round !== null) await drawConvergence(charts, line, range);
  }
}

/** The day after ``day`` (YYYY-MM-DD) at local midnight: the end of a period that includes ``day``. */
function nextDay(day: string): string {
  const next = new Date(`${day}T00:00`);
  next.setDate(next.getDate() + 1);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${next.getFullYear()}-${pad(next.getMonth() + 1)}-${pad(next.getDate())}T00:00`;
}

/** The game's completed rounds of the period, oldest first: the latest ``CHART_ROUNDS`` of them. */
async function roundsOf(game: string, range: { from: string; to: string }): Promise<RoundLine[]> {
  const found: RoundLine[] = [];
  let before = "";
  while (found.length < CHART_ROUNDS) {
    const page = await call<RoundList>("GET", `/v1/operator/rounds/search${query({
      game, status: "complete", ...range, before, limit: String(PAGE),
    })}`);
    found.push(...page.rounds);
    if (page.rounds.length < PAGE) break;
    before = String(page.rounds[page.rounds.length - 1].id);
  }
  return found.slice(0, CHART_ROUNDS).reverse();
}

/** Cents of an amount's exact decimal text ("12.50"): integers, so sums stay exact. */
function cents(amount: string): number {
  const [whole, part = ""] = amount.split(".");
  return Number(whole) * 100 + Number(part.padEnd(2, "0").slice(0, 2));
}

/** The RTP after each round and the band around the theory after as many (the stakes' own
 * effective count: sigma * sqrt(sum s^2) / sum s). */
export function convergence(rounds: { stake: string; win: string }[], theory: number, sigma: number) {
  const actual: number[] = [], low: number[] = [], high: number[] = [];
  let staked = 0, won = 0, squares = 0;
  for (const round of rounds) {
    const stake = cents(round.stake);
    staked += stake;
    won += cents(round.win);
    squares += stake * stake;
    const spread = (Z99 * sigma * Math.sqrt(squares)) / staked;
    actual.push(won / staked);
    low.push(Math.max(0, theory - spread));
    high.push(theory + spread);
  }
  return { actual, low, high, staked, won };
}

async function drawConvergence(holder: HTMLElement, line: RtpLine, range: { from: string; to: string }): Promise<void> {
  const rounds = await roundsOf(line.game, range);
  if (!rounds.length) return;
  const theory = Number(line.theoretical_rtp);
  const { actual, low, high, staked, won } = convergence(rounds, theory, Number(line.std_per_round));
  const box = document.createElement("figure");
  box.className = "chart rtp-chart";
  box.dataset.game = line.game;
  box.dataset.rounds = String(rounds.length);
  box.dataset.lastRtp = staked ? String(won / staked) : "";
  box.dataset.lastOutside = String(actual.at(-1)! < low.at(-1)! || actual.at(-1)! > high.at(-1)!);
  const latest = rounds.length < line.rounds ? `its latest ${rounds.length.toLocaleString()} of ${line.rounds.toLocaleString()} rounds` : `its ${rounds.length.toLocaleString()} rounds`;
  box.innerHTML = `<figcaption>${esc(line.game)}: the actual RTP over ${latest} in the period, inside its 99% band</figcaption>`;
  holder.append(box);
  const x = rounds.map((_, i) => i + 1);
  new uPlot(
    {
      width: Math.min(900, holder.clientWidth || 900),
      height: 260,
      series: [
        { label: "Round" },
        { label: "Actual RTP", stroke: "#1e88e5", width: 2, value: (_u, v) => (v === null ? "–" : `${(v * 100).toFixed(2)}%`) },
        { label: "Theory", stroke: "#43a047", width: 1, dash: [6, 4] },
        { label: "99% band low", stroke: "#e53935", width: 1 },
        { label: "99% band high", stroke: "#e53935", width: 1 },
      ],
      bands: [{ series: [4, 3], fill: "#e5393514" }],
      scales: { x: { time: false } },
      axes: [{ label: "rounds" }, { label: "RTP", size: 60, values: (_u, ticks) => ticks.map((t) => `${Math.round(t * 100)}%`) }],
    },
    [x, actual, x.map(() => theory), low, high],
    box,
  );
}
