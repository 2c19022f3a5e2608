// A server's first start compiles each game's round function in the background (a minute or two
// per game): the lobby marks the games still being prepared, and a game page says so, shows how
// far the server is, and starts by itself the moment its game is playable.

import { request } from "./api";
import { h } from "./dom";

export interface GameWarmup {
  state: "queued" | "compiling" | "loading" | "ready" | "failed";
  ready: boolean;
  for_s?: number;
  seconds?: number;
  error?: string;
}

export interface Health {
  status: string;
  ready: boolean;
  games: Record<string, GameWarmup>;
}

const POLL_MS = 1000;

export function health(): Promise<Health> {
  return request<Health>("GET", "/v1/health");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How far the server is, in words: "compiling for 45 s; 2 of 5 games ready". */
export function progressText(game: GameWarmup, all: Health): string {
  const games = Object.values(all.games);
  const ready = games.filter((g) => g.ready).length;
  const step =
    game.state === "queued"
      ? "waiting for a free core"
      : game.state === "loading"
        ? "almost ready"
        : `compiling for ${Math.round(game.for_s ?? 0)} s`;
  return `${step}; ${ready} of ${games.length} games ready`;
}

/** Wait, showing the warm-up in ``root``, until game ``code`` is playable on this server. */
export async function untilPlayable(root: HTMLElement, code: string, name: string): Promise<void> {
  let progress: HTMLElement | null = null;
  for (;;) {
    const now = await health();
    const game = now.games[code];
    if (!game || game.ready) return; // a game the server does not offer: the game page says so
    if (game.state === "failed") throw new Error(`${name} cannot be played on this server: ${game.error ?? "it failed to compile"}`);
    if (!progress) {
      progress = h("p", { class: "warmup-progress", role: "status", "aria-live": "polite" });
      root.replaceChildren(
        h(
          "section",
          { class: "warmup", "aria-label": "Preparing the game" },
          h("div", { class: "spinner", "aria-hidden": "true" }),
          h("h1", { text: `Preparing ${name}…` }),
          h("p", { text: "The server is starting for the first time and compiles each game once. The game starts by itself when it is ready." }),
          progress,
          h("a", { href: "/", text: "Back to the lobby" }),
        ),
      );
      document.title = `Preparing ${name} · slotforge`;
      root.dataset.ready = "warming";
    }
    progress.textContent = progressText(game, now);
    await sleep(POLL_MS);
  }
}

/** Mark the lobby's cards whose game is still being prepared, until every game is ready. */
export async function markWarmingCards(cards: Map<string, HTMLElement>): Promise<void> {
  for (;;) {
    const now = await health();
    for (const [code, card] of cards) {
      const game = now.games[code];
      let badge = card.querySelector<HTMLElement>(".warming");
      if (!game || game.ready) {
        badge?.remove();
        continue;
      }
      if (!badge) {
        badge = h("p", { class: "warming", role: "status" });
        card.querySelector("h2")?.after(badge);
      }
      badge.textContent = game.state === "failed" ? "Not available" : `Preparing: ${progressText(game, now)}`;
    }
    if (now.ready) return;
    await sleep(POLL_MS * 2);
  }
}
