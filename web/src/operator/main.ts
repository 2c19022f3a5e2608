// The operator's back office (/operator): sign in with your own name and password (or an
// operator's API key), then the dashboard, live RTP, players, rounds, what is owed, the change
// log and, for admins, keys and users: one view per address (#/...), each shown only to the
// roles (or key scopes) the server allows it.

import "uplot/dist/uPlot.min.css";
import "./office.css";
import { showAccess } from "./access";
import { call, can, hasSessionCookie, keepKey, OfficeError, remember, storedKey, whoAmI } from "./api";
import { esc, fields } from "./dom";
import { showChanges } from "./compliance";
import { showDashboard } from "./dashboard";
import { showCampaign, showCampaigns } from "./campaigns";
import { showOwed } from "./owed";
import { showPlayer, showPlayers } from "./players";
import { showRound, showRounds } from "./rounds";
import { showRtp } from "./rtp";
import type { Me } from "./types";

const root = document.getElementById("office") as HTMLElement;

// Each view, its label, and the ability it needs (the server refuses the rest anyway).
const VIEWS: [string, string, string][] = [
  ["dashboard", "Dashboard", "reports"],
  ["rtp", "Live RTP", "reports"],
  ["players", "Players", "lookups"],
  ["rounds", "Rounds", "lookups"],
  ["owed", "Outbox & wallet", "lookups"],
  ["campaigns", "Free rounds", "campaigns"],
  ["changes", "Changes", "lookups"],
  ["access", "Keys & users", "read_admin"],
];

function signIn(message = ""): void {
  remember(null);
  root.innerHTML = `
    <section class="sign-in">
      <h1>slotforge back office</h1>
      <form id="sign-in">
        <label>Name <input name="name" autocomplete="username" required></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
        <button type="submit">Sign in</button>
        <p class="error" role="alert">${esc(message)}</p>
      </form>
      <details>
        <summary>Sign in with an operator API key</summary>
        <form id="key-sign-in">
          <label>Operator API key <input name="key" type="password" autocomplete="off" required></label>
          <button type="submit">Sign in with the key</button>
        </form>
        <p class="hint">The key stays in this tab only and is forgotten when the tab closes.</p>
      </details>
    </section>`;
  const form = document.getElementById("sign-in") as HTMLFormElement;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      remember(await call<Me>("POST", "/v1/operator/sign-in", fields(form), null));
      route();
    } catch (error) {
      signIn(error instanceof OfficeError ? error.message : String(error));
    }
  });
  const byKey = document.getElementById("key-sign-in") as HTMLFormElement;
  byKey.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = fields(byKey).key;
    try {
      remember(await call<Me>("GET", "/v1/operator/me", undefined, key));
      keepKey(key);
      route();
    } catch (error) {
      signIn(error instanceof OfficeError && error.status === 401 ? "That key is not an operator's key." : String(error));
    }
  });
}

function shell(current: string, me: Me): HTMLElement {
  const links = VIEWS.filter(([, , ability]) => can(ability)).map(
    ([name, label]) => `<a href="#/${name}" ${name === current ? 'aria-current="page"' : ""}>${label}</a>`,
  ).join("");
  const who = `${me.who.replace(/^(user|key):/, "")} (${me.role ?? `key: ${me.scopes.join(", ")}`})`;
  root.innerHTML = `
    <header><strong>slotforge back office</strong><nav>${links}</nav>
      <span class="who" id="who">${esc(who)} · ${esc(me.operator)}</span>
      <button id="sign-out" type="button">Sign out</button></header>
    <section id="view" aria-live="polite"></section>`;
  document.getElementById("sign-out")?.addEventListener("click", async () => {
    if (!storedKey()) await call("POST", "/v1/operator/sign-out").catch(() => undefined);
    keepKey(null);
    location.hash = "";
    signIn();
  });
  return document.getElementById("view") as HTMLElement;
}

/** Who this tab is signed in as: the key it keeps, else the session cookie (null: neither). */
async function identify(): Promise<Me | null> {
  const known = whoAmI();
  if (known) return known;
  if (!storedKey() && !hasSessionCookie()) return null; // nothing to ask the server about (no 401 logged)
  try {
    const me = await call<Me>("GET", "/v1/operator/me");
    remember(me);
    return me;
  } catch (error) {
    if (error instanceof OfficeError && error.status === 401) {
      keepKey(null);
      return null;
    }
    throw error;
  }
}

async function route(): Promise<void> {
  const me = await identify();
  if (!me) return signIn();
  const [where, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [asked, ...rest] = where.split("/");
  const allowed = VIEWS.filter(([, , ability]) => can(ability)).map(([name]) => name);
  const name = allowed.includes(asked) ? asked : allowed[0] ?? "";
  const path = rest.join("/");
  const params = new URLSearchParams(search);
  const view = shell(name, me);
  try {
    if (!name) view.innerHTML = `<p role="alert">Your role allows no view of the back office.</p>`;
    else if (name === "rtp") await showRtp(view);
    else if (name === "players" && path) await showPlayer(view, decodeURIComponent(path));
    else if (name === "players") await showPlayers(view);
    else if (name === "rounds" && /^\d+$/.test(path)) await showRound(view, Number(path));
    else if (name === "rounds") await showRounds(view, params);
    else if (name === "owed") await showOwed(view);
    else if (name === "campaigns" && path) await showCampaign(view, decodeURIComponent(path));
    else if (name === "campaigns") await showCampaigns(view);
    else if (name === "changes") await showChanges(view);
    else if (name === "access") await showAccess(view);
    else await showDashboard(view);
  } catch (error) {
    if (error instanceof OfficeError && error.status === 401) {
      keepKey(null);
      return signIn("Your session ended or the key was refused; sign in again.");
    }
    view.innerHTML = `<p class="error" role="alert">${esc(error instanceof Error ? error.message : error)}</p>`;
  }
}

window.addEventListener("hashchange", route);
route();
