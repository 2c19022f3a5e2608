// Rounds: filter by player, game, status, time and win; one round's screens as the player saw
// them (drawn with the client's own symbol art, read-only), its wins, record, replay check and
// money, and the void of a malfunctioning round.

import { symbolSvg } from "../art";
import { describeEvent, describeWin } from "../rounds";
import { screenFor } from "../screens";
import type { Win } from "../types";
import { call, can, query } from "./api";
import { downloadExport } from "./compliance";
import { esc, fields, table, when } from "./dom";
import type { Cell, RecordStep, RoundDetail, RoundList } from "./types";

const FILTERS = ["player", "game", "status", "from", "to", "min_win", "max_win"];

export async function showRounds(view: HTMLElement, params: URLSearchParams): Promise<void> {
  const asked = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ""]));
  const found = await call<RoundList>("GET", `/v1/operator/rounds/search${query({
    ...asked, from: utc(asked.from), to: utc(asked.to),
  })}`);
  const status = ["", "complete", "awaiting", "void", "pending"]
    .map((s) => `<option value="${s}" ${s === asked.status ? "selected" : ""}>${s || "any"}</option>`).join("");
  view.innerHTML = `
    <h1>Rounds</h1>
    <form id="filters" class="filters">
      <label>Player <input name="player" value="${esc(asked.player)}"></label>
      <label>Game <input name="game" value="${esc(asked.game)}"></label>
      <label>Status <select name="status">${status}</select></label>
      <label>Started from (your time) <input name="from" type="datetime-local" value="${esc(asked.from)}"></label>
      <label>to <input name="to" type="datetime-local" value="${esc(asked.to)}"></label>
      <label>Win at least <input name="min_win" inputmode="decimal" size="8" value="${esc(asked.min_win)}"></label>
      <label>at most <input name="max_win" inputmode="decimal" size="8" value="${esc(asked.max_win)}"></label>
      <button type="submit">Find</button>
      <button type="button" id="download">Download CSV</button>
    </form>
    ${table(["Round", "Player", "Game", "Status", "Stake", "Win", "Started"], found.rounds.map((r) => [
      `<a href="#/rounds/${r.id}">${r.id}</a>`, `<a href="#/players/${encodeURIComponent(r.player_id)}">${esc(r.player_id)}</a>`,
      esc(r.game), esc(r.status), `${esc(r.stake)} ${esc(r.currency)}`, esc(r.win), when(r.started_at),
    ]), "rounds")}`;
  const form = view.querySelector("#filters") as HTMLFormElement;
  view.querySelector("#download")?.addEventListener("click", () => {
    const chosen = fields(form);
    void downloadExport("rounds", {
      player: chosen.player, game: chosen.game, from: utc(chosen.from), to: utc(chosen.to),
    });
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/rounds${query(fields(form))}`;
  });
}

/** A date picker's local time ("2026-12-04T10:00", seconds optional) as the API's UTC time. */
export function utc(local: string): string {
  const moment = local ? new Date(local) : null; // a time without a zone is the browser's local time
  return moment && !Number.isNaN(moment.getTime()) ? moment.toISOString() : "";
}

export async function showRound(view: HTMLElement, id: number): Promise<void> {
  const detail = await call<RoundDetail>("GET", `/v1/operator/rounds/${id}`);
  const r = detail.summary;
  const kinds = await symbolKinds(r.game);
  const voidable = (r.status === "complete" || r.status === "awaiting") && can("void");
  view.innerHTML = `
    <h1>Round ${r.id}</h1>
    <dl class="facts">
      <dt>Player</dt><dd><a href="#/players/${encodeURIComponent(r.player_id)}">${esc(r.player_id)}</a></dd>
      <dt>Game</dt><dd>${esc(r.game)}</dd>
      <dt>Status</dt><dd id="round-status">${esc(r.status)}${r.void_reason ? ` (${esc(r.void_reason)})` : ""}</dd>
      ${detail.voided_by ? `<dt>Voided by</dt><dd id="voided-by">${esc(detail.voided_by)}</dd>` : ""}
      <dt>Stake</dt><dd>${esc(r.stake)} ${esc(r.currency)}</dd>
      <dt>Win</dt><dd>${esc(r.win)} ${esc(r.currency)}${r.jackpot_win !== "0.00" ? ` (jackpot ${esc(r.jackpot_win)})` : ""}</dd>
      <dt>Started</dt><dd>${when(r.started_at)}</dd><dt>Finished</dt><dd>${when(r.finished_at)}</dd>
      <dt>Replay check</dt><dd id="verified">${detail.verified === null ? "nothing played (void before play)"
        : detail.verified ? "the record replays to the same round" : "THE RECORD DOES NOT REPLAY"}</dd>
    </dl>
    <h2>Screens</h2>
    <div class="steps">${(detail.round.steps ?? []).map((step, n) => drawStep(r.game, step, n, kinds)).join("") || "<p>None.</p>"}</div>
    <h2>Money</h2>
    ${table(["Entry", "Kind", "Amount", "Reference", "When"], detail.ledger.map((e) => [
      String(e.id), esc(e.kind), esc(e.amount), esc(e.reference ?? ""), when(e.created_at),
    ]), "round ledger")}
    ${voidable ? voidForm() : ""}
    <details><summary>The record</summary><pre>${esc(JSON.stringify(detail.round, null, 2))}</pre></details>`;
  view.querySelector<HTMLFormElement>("#void")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const reason = fields(form).reason;
    const out = form.querySelector(".error") as HTMLElement;
    if (!reason) {
      out.textContent = "Say why the round is void (the malfunction): the reason is kept with the round.";
      return;
    }
    // A void moves the player's money and cannot be undone: asked once more, with what it does.
    if (!confirm(`Void round ${r.id} of player ${r.player_id}? Its stake of ${r.stake} ${r.currency} is refunded`
      + `${r.status === "complete" ? ` and its win of ${r.win} ${r.currency} reversed` : ""}. Reason: ${reason}`)) {
      out.textContent = "Not voided.";
      return;
    }
    try {
      await call("POST", `/v1/operator/rounds/${id}/void`, { reason });
      await showRound(view, id);
    } catch (error) {
      out.textContent = error instanceof Error ? error.message : String(error);
    }
  });
}

function voidForm(): string {
  return `<h2>Void this round</h2>
    <form id="void" class="filters">
      <label>Reason (the malfunction) <input name="reason" maxlength="500" size="40"></label>
      <button type="submit" class="danger">Void the round</button>
      <p class="error" role="alert"></p>
    </form>
    <p class="hint">An open round's stake is refunded; a completed one's stake is refunded and its win reversed, as far as
    the balance allows (the server's void rules).</p>`;
}

async function symbolKinds(game: string): Promise<Record<string, string>> {
  try {
    const model = await call<{ symbols: { code: string; kind: string }[] }>("GET", `/v1/games/${encodeURIComponent(game)}`);
    return Object.fromEntries(model.symbols.map((s) => [s.code, s.kind]));
  } catch {
    return {}; // a game this server no longer offers: plain symbols
  }
}

function cellCode(cell: Cell): string {
  return typeof cell === "string" ? cell : String(cell.symbol ?? JSON.stringify(cell));
}

function drawStep(game: string, step: RecordStep, n: number, kinds: Record<string, string>): string {
  const screen = screenFor(game);
  const art = screen.symbols;
  const rows = step.screen ?? [];
  const grid = rows.length
    ? `<div class="grid" style="--reels:${rows[0].length}" role="img" aria-label="screen ${n + 1}">${rows
        .flat()
        .map((cell) => { const code = cellCode(cell); return `<div class="cell" title="${esc(code)}">${symbolSvg(code, kinds[code] ?? "high", art[code])}</div>`; })
        .join("")}</div>`
    : `<p>${esc(step.card ?? step.drawn ?? "")}</p>`;
  // In the words the player's page uses ("Line 5: 3 × ACE: 0.15", events told, not named by id).
  const wins = step.wins.map((w) => esc(describeWin(w as Win, screen)));
  const events = step.events.map((e) => describeEvent(e, screen)).filter((text) => text !== null).map(esc);
  return `<figure class="step" data-step="${n}"><figcaption>${n + 1}. ${esc(step.kind)}</figcaption>${grid}
    <p class="step-words">${wins.length ? wins.join("; ") : "no win"}${events.length ? ` · ${events.join("; ")}` : ""}</p></figure>`;
}
