// What is still owed for the operator's rounds: outbox messages to the wallet and the jackpot
// service not yet acknowledged, rounds waiting at a seamless wallet, and jackpot claims the
// jackpot service still holds for the operator's rounds (each settled at the operator's word).

import { call, can } from "./api";
import { esc, table, when } from "./dom";
import type { Claims, Owed } from "./types";

export async function showOwed(view: HTMLElement): Promise<void> {
  const owed = await call<Owed>("GET", "/v1/operator/outbox");
  const claims = can("claims")
    ? await call<Claims>("GET", "/v1/operator/jackpot-claims").then((answer) => answer.claims, (error: Error) => error.message)
    : "Jackpot claims are shown to the finance and admin roles.";
  const backlog = Object.entries(owed.backlog);
  view.innerHTML = `
    <h1>Outbox and the wallet's pending calls</h1>
    <p id="backlog">${backlog.length ? backlog.map(([t, n]) => `${esc(t)}: ${n} undelivered`).join(", ") : "Nothing is owed."}</p>
    <h2>Messages not yet acknowledged</h2>
    ${table(["Message", "Target", "Kind", "Round", "Created", "Next try", "Tries", "Last error"], owed.messages.map((m) => [
      String(m.id), esc(m.target), esc(m.kind), m.round_id ? `<a href="#/rounds/${m.round_id}">${m.round_id}</a>` : "–",
      when(m.created_at), when(m.due_at), String(m.attempts), esc(m.last_error ?? ""),
    ]), "outbox")}
    <h2>Rounds waiting at the wallet</h2>
    ${table(["Round", "Player", "Game", "Status", "Wallet", "Stake", "Win"], owed.wallet_pending.map((r) => [
      `<a href="#/rounds/${r.id}">${r.id}</a>`, esc(r.player_id), esc(r.game), esc(r.status), esc(r.wallet_status ?? ""),
      esc(r.stake), esc(r.win),
    ]), "wallet pending")}
    <h2>Jackpot claims held at the jackpot service</h2>
    ${typeof claims === "string" ? `<p role="alert">${esc(claims)}</p>` : table(
      ["Claim", "Round", "Player", "Game", "EUR", "Held since", "Round committed it", ""], claims.map((c) => [
        esc(c.key), `<a href="#/rounds/${c.round}">${c.round}</a>`, esc(c.player), esc(c.game), esc(c.amount),
        when(c.held_since), c.committed ? "yes: settling confirms it" : "no: settling releases it after the lease",
        can("settle") ? `<button type="button" data-claim="${esc(c.key)}">Settle now</button>` : "",
      ]), "held claims")}
    <p role="alert" id="settle-refused" hidden></p>`;
  view.querySelectorAll<HTMLButtonElement>("button[data-claim]").forEach((button) => {
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await call("POST", `/v1/operator/jackpot-claims/${encodeURIComponent(button.dataset.claim ?? "")}/settle`);
      } catch (error) {  // a claim its round has not committed, within the lease: say why, keep it listed
        const refused = view.querySelector<HTMLElement>("#settle-refused");
        if (refused) { refused.textContent = (error as Error).message; refused.hidden = false; }
        button.disabled = false;
        return;
      }
      await showOwed(view);
    });
  });
}
