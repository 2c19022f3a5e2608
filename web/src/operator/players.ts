// Players: look one up by any part of its id; a player's balance, sessions, open rounds,
// autoplay plans (each can be stopped) and ledger.

import { call, can, query } from "./api";
import { esc, fields, table, when } from "./dom";
import type { PlanLine, PlayerList, PlayerOverview } from "./types";

export async function showPlayers(view: HTMLElement, text = ""): Promise<void> {
  const found = await call<PlayerList>("GET", `/v1/operator/players${query({ q: text })}`);
  view.innerHTML = `
    <h1>Players</h1>
    <form id="find" class="filters">
      <label>Player id contains <input name="q" value="${esc(text)}"></label>
      <button type="submit">Find</button>
    </form>
    ${table(
      ["Player", "Currency", "Balance", "Wallet", "Last round"],
      found.players.map((p) => [
        `<a href="#/players/${encodeURIComponent(p.player_id)}">${esc(p.player_id)}</a>`, esc(p.currency),
        esc(p.balance), esc(p.wallet), when(p.last_round_at),
      ]),
      "players",
    )}`;
  const form = view.querySelector("#find") as HTMLFormElement;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    showPlayers(view, fields(form).q).catch((error) => (view.innerHTML = `<p class="error">${esc(error.message)}</p>`));
  });
}

export async function showPlayer(view: HTMLElement, playerId: string): Promise<void> {
  const p = await call<PlayerOverview>("GET", `/v1/operator/players/${encodeURIComponent(playerId)}/overview`);
  view.innerHTML = `
    <h1>Player ${esc(p.player_id)}</h1>
    <dl class="facts">
      <dt>Balance</dt><dd id="balance">${esc(p.balance)} ${esc(p.currency)}</dd>
      <dt>Wallet</dt><dd>${esc(p.wallet)}</dd>
      <dt>Since</dt><dd>${when(p.created_at)}</dd>
    </dl>
    <p><a href="#/rounds?player=${encodeURIComponent(p.player_id)}">This player's rounds</a></p>
    <h2>Open rounds</h2>
    ${table(["Round", "Game", "Status", "Stake", "Started"], p.open_rounds.map((r) => [
      `<a href="#/rounds/${r.id}">${r.id}</a>`, esc(r.game), esc(r.status), esc(r.stake), when(r.started_at),
    ]), "open rounds")}
    <h2>Autoplay plans</h2>
    ${table(["Plan", "Game", "Played", "Of", "Net", "Stopped", ""], p.autoplays.map(planRow), "autoplay plans")}
    <h2>Sessions</h2>
    ${table(["Session", "Jurisdiction", "Language", "Started", "Last seen"], p.sessions.map((s) => [
      String(s.id), esc(s.jurisdiction), esc(s.language ?? "–"), when(s.started_at), when(s.last_seen),
    ]), "sessions")}
    <h2>Ledger (latest first)</h2>
    ${table(["Entry", "Kind", "Amount", "Round", "Reference", "When"], p.ledger.map((e) => [
      String(e.id), esc(e.kind), esc(e.amount), e.round_id ? `<a href="#/rounds/${e.round_id}">${e.round_id}</a>` : "–",
      esc(e.reference ?? ""), when(e.created_at),
    ]), "ledger")}`;
  view.querySelectorAll<HTMLButtonElement>("button[data-stop]").forEach((button) =>
    button.addEventListener("click", async () => {
      button.disabled = true;
      await call("POST", `/v1/operator/autoplays/${button.dataset.stop}/stop`);
      await showPlayer(view, playerId);
    }),
  );
}

function planRow(plan: PlanLine): string[] {
  const stop = plan.stopped || !can("support") ? "" : `<button type="button" data-stop="${plan.id}">Stop</button>`;
  return [String(plan.id), esc(plan.game ?? ""), String(plan.played), String(plan.rounds ?? ""), esc(plan.net),
    esc(plan.stopped ?? "running"), stop];
}
