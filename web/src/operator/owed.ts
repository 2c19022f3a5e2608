// What is still owed for the operator's rounds: outbox messages to the wallet and the jackpot
// service not yet acknowledged, and rounds waiting at a seamless wallet.

import { call } from "./api";
import { esc, table, when } from "./dom";
import type { RoundLine } from "./types";

interface Owed {
  backlog: Record<string, number>;
  messages: { id: number; target: string; kind: string; key: string; round_id: number | null; created_at: string;
    due_at: string; attempts: number; last_error: string | null }[];
  wallet_pending: RoundLine[];
}

export async function showOwed(view: HTMLElement): Promise<void> {
  const owed = await call<Owed>("GET", "/v1/operator/outbox");
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
    ]), "wallet pending")}`;
}
