// The dashboard: per game and local day (the browser's time zone, or one chosen), stakes, wins,
// GGR, rounds, players, hit rate and jackpot money, per currency; a uPlot chart per currency.

import uPlot from "uplot";
import { call, query } from "./api";
import { day, esc, fields, percent, table } from "./dom";
import type { Alerts, DailyReport, DayLine } from "./types";

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export async function showDashboard(view: HTMLElement, asked: Record<string, string> = {}): Promise<void> {
  const tz = asked.tz || browserZone;
  const [report, firing] = await Promise.all([
    call<DailyReport>("GET", `/v1/operator/reports/daily${query({ from: asked.from, to: asked.to, tz })}`),
    call<Alerts>("GET", "/v1/operator/alerts"),
  ]);
  view.innerHTML = `
    <h1>Dashboard</h1>
    ${alertList(firing)}
    <form id="range" class="filters">
      <label>From <input name="from" type="date" value="${esc(report.first)}"></label>
      <label>To <input name="to" type="date" value="${esc(report.last)}"></label>
      <label>Time zone <input name="tz" value="${esc(report.time_zone)}"></label>
      <button type="submit">Show</button>
    </form>
    ${totals(report.days)}
    <div id="charts"></div>
    <h2>Per game and day</h2>
    ${table(
      ["Day", "Game", "Currency", "Rounds", "Players", "Stakes", "Wins", "GGR", "Hit rate", "Jackpot contributions", "Jackpot payouts"],
      report.days.map((d) => [
        day(d.day), esc(d.game), esc(d.currency), String(d.rounds), String(d.players), esc(d.stakes), esc(d.wins),
        esc(d.ggr), percent(d.hit_rate), esc(d.jackpot_contributions), esc(d.jackpot_payouts),
      ]),
      "per game and day",
    )}`;
  const form = view.querySelector("#range") as HTMLFormElement;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    showDashboard(view, fields(form)).catch((error) => (view.innerHTML = `<p class="error">${esc(error.message)}</p>`));
  });
  drawCharts(view.querySelector("#charts") as HTMLElement, report.days, everyDay(report.first, report.last));
}

/** The alerts firing now (the same the shipped Prometheus rules raise), or a line saying none is. */
function alertList(firing: Alerts): string {
  if (!firing.alerts.length) return `<p class="no-alerts" id="alerts">No alert is firing.</p>`;
  return `<section class="alerts" id="alerts" role="alert" aria-label="alerts"><h2>Alerts</h2><ul>${firing.alerts
    .map((a) => `<li data-alert="${esc(a.alert)}"><strong>${esc(a.alert)}</strong> ${esc(a.subject)}: ${esc(a.summary)}</li>`)
    .join("")}</ul></section>`;
}

/** Exact sums of decimal texts with two places (in cents, as BigInt: no float touches money). */
function sum(values: string[]): string {
  const cents = values.reduce((total, value) => total + toCents(value), 0n);
  const sign = cents < 0n ? "-" : "";
  const size = cents < 0n ? -cents : cents;
  return `${sign}${size / 100n}.${String(size % 100n).padStart(2, "0")}`;
}

function toCents(text: string): bigint {
  const negative = text.startsWith("-");
  const [whole, part = "00"] = text.replace("-", "").split(".");
  const cents = BigInt(whole) * 100n + BigInt(part.padEnd(2, "0").slice(0, 2));
  return negative ? -cents : cents;
}

function totals(days: DayLine[]): string {
  const currencies = [...new Set(days.map((d) => d.currency))].sort();
  if (!currencies.length) return `<p class="empty">No real-money round finished in these days.</p>`;
  return `<div class="totals">${currencies
    .map((currency) => {
      const mine = days.filter((d) => d.currency === currency);
      const rounds = mine.reduce((n, d) => n + d.rounds, 0);
      return `<dl class="total" data-currency="${esc(currency)}">
        <dt>Stakes</dt><dd data-figure="stakes">${sum(mine.map((d) => d.stakes))} ${esc(currency)}</dd>
        <dt>Wins</dt><dd data-figure="wins">${sum(mine.map((d) => d.wins))} ${esc(currency)}</dd>
        <dt>GGR</dt><dd data-figure="ggr">${sum(mine.map((d) => d.ggr))} ${esc(currency)}</dd>
        <dt>Rounds</dt><dd data-figure="rounds">${rounds}</dd>
        <dt>Jackpot payouts</dt><dd>${sum(mine.map((d) => d.jackpot_payouts))} ${esc(currency)}</dd>
      </dl>`;
    })
    .join("")}</div>`;
}

/** Every day from ``first`` to ``last`` (YYYY-MM-DD), so that a chart's days without rounds show as 0. */
function everyDay(first: string, last: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** One chart per currency: stakes, wins and GGR per day, all games together. */
function drawCharts(holder: HTMLElement, days: DayLine[], dates: string[]): void {
  for (const currency of [...new Set(days.map((d) => d.currency))].sort()) {
    const per = (figure: "stakes" | "wins" | "ggr") =>
      dates.map((day) => Number(sum(days.filter((d) => d.currency === currency && d.day === day).map((d) => d[figure]))));
    const x = dates.map((day) => Date.parse(`${day}T12:00:00Z`) / 1000);
    const box = document.createElement("figure");
    box.className = "chart";
    box.innerHTML = `<figcaption>Per day, ${esc(currency)}</figcaption>`;
    holder.append(box);
    new uPlot(
      {
        width: Math.min(900, holder.clientWidth || 900),
        height: 260,
        series: [
          {},
          { label: "Stakes", stroke: "#1e88e5", width: 2 },
          { label: "Wins", stroke: "#e53935", width: 2 },
          { label: "GGR", stroke: "#43a047", width: 2, fill: "#43a04722" },
        ],
        scales: { x: { time: true } },
        axes: [{}, { label: currency, size: 70 }],
      },
      [x, per("stakes"), per("wins"), per("ggr")],
      box,
    );
  }
}
