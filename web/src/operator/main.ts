// The operator's back office (/operator): sign in with the operator's API key, then the
// dashboard, live RTP, players, rounds and what is owed, one view per address (#/...).

import "uplot/dist/uPlot.min.css";
import "./office.css";
import { call, keepKey, OfficeError, storedKey } from "./api";
import { esc } from "./dom";
import { showChanges } from "./compliance";
import { showDashboard } from "./dashboard";
import { showOwed } from "./owed";
import { showPlayer, showPlayers } from "./players";
import { showRound, showRounds } from "./rounds";
import { showRtp } from "./rtp";

const root = document.getElementById("office") as HTMLElement;

const VIEWS: [string, string][] = [
  ["dashboard", "Dashboard"],
  ["rtp", "Live RTP"],
  ["players", "Players"],
  ["rounds", "Rounds"],
  ["owed", "Outbox & wallet"],
  ["changes", "Changes"],
];

function signIn(message = ""): void {
  root.innerHTML = `
    <section class="sign-in">
      <h1>slotforge back office</h1>
      <form id="sign-in">
        <label>Operator API key <input name="key" type="password" autocomplete="off" required></label>
        <button type="submit">Sign in</button>
        <p class="error" role="alert">${esc(message)}</p>
      </form>
      <p class="hint">The key stays in this tab only and is forgotten when the tab closes.</p>
    </section>`;
  const form = document.getElementById("sign-in") as HTMLFormElement;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = String(new FormData(form).get("key") ?? "").trim();
    try {
      await call("GET", "/v1/operator/players?limit=1", undefined, key);
      keepKey(key);
      route();
    } catch (error) {
      signIn(error instanceof OfficeError && error.status === 401 ? "That key is not an operator's key." : String(error));
    }
  });
}

function shell(current: string): HTMLElement {
  const links = VIEWS.map(
    ([name, label]) => `<a href="#/${name}" ${name === current ? 'aria-current="page"' : ""}>${label}</a>`,
  ).join("");
  root.innerHTML = `
    <header><strong>slotforge back office</strong><nav>${links}</nav><button id="sign-out" type="button">Sign out</button></header>
    <section id="view" aria-live="polite"></section>`;
  document.getElementById("sign-out")?.addEventListener("click", () => {
    keepKey(null);
    location.hash = "";
    signIn();
  });
  return document.getElementById("view") as HTMLElement;
}

async function route(): Promise<void> {
  if (!storedKey()) return signIn();
  const [where, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [name, ...rest] = where.split("/");
  const path = rest.join("/");
  const params = new URLSearchParams(search);
  const view = shell(name || "dashboard");
  try {
    if (name === "rtp") await showRtp(view);
    else if (name === "players" && path) await showPlayer(view, decodeURIComponent(path));
    else if (name === "players") await showPlayers(view);
    else if (name === "rounds" && /^\d+$/.test(path)) await showRound(view, Number(path));
    else if (name === "rounds") await showRounds(view, params);
    else if (name === "owed") await showOwed(view);
    else if (name === "changes") await showChanges(view);
    else await showDashboard(view);
  } catch (error) {
    if (error instanceof OfficeError && error.status === 401) {
      keepKey(null);
      return signIn("The key was refused; sign in again.");
    }
    view.innerHTML = `<p class="error" role="alert">${esc(error instanceof Error ? error.message : error)}</p>`;
  }
}

window.addEventListener("hashchange", route);
route();
