// The lobby: every game the server offers, with its picture, RTP and volatility.

import { explain, request, storeSession, storedSession } from "./api";
import { h, rtpStrategies, rtpText, volatilityScale } from "./dom";
import { screenFor } from "./screens";
import type { CatalogueEntry } from "./types";
import { markWarmingCards } from "./warmup";

/** A session to play with: the operator's (real) if the launch URL gave one, else play money. */
export async function ensureSession(): Promise<void> {
  if (storedSession()) return;
  const fun = await request<{ token: string }>("POST", "/v1/fun-sessions", { currency: "EUR" });
  storeSession({ token: fun.token, mode: "fun" });
}

export async function openLobby(root: HTMLElement): Promise<void> {
  const { games } = await request<{ games: CatalogueEntry[] }>("GET", "/v1/games");
  const real = storedSession()?.mode === "real";
  const message = h("p", { class: "message", role: "alert" });
  const cards = games.map((game) => {
    const screen = screenFor(game.code, game.name);
    const play = h("button", { class: "play", "aria-label": `Play ${game.name}${real ? "" : " for fun"}`, text: real ? "Play" : "Play for fun" });
    play.addEventListener("click", async () => {
      try {
        await ensureSession();
        location.assign(`/play/${game.code}${location.search}`);
      } catch (error) {
        message.textContent = explain(error);
      }
    });
    return h(
      "article",
      { class: "game-card", "data-game": game.code },
      h("div", { class: "picture", html: screen.picture }),
      h("h2", { text: game.name }),
      h("p", { class: "rtp", text: `RTP ${rtpText(game)}`, title: rtpStrategies(game) || undefined }),
      h("p", { class: "volatility" }, "Volatility: ", volatilityScale(game.volatility)),
      game.jackpot ? h("p", { class: "jackpot", text: "Progressive jackpot" }) : null,
      play,
    );
  });
  document.title = "slotforge · lobby";
  root.replaceChildren(
    h("header", { class: "lobby-top" }, h("h1", { text: "slotforge" }), h("span", { class: `mode ${real ? "real" : "fun"}`, text: real ? "REAL MONEY" : "FUN PLAY" })),
    message,
    h("section", { class: "lobby", "aria-label": "Games" }, ...cards),
  );
  root.dataset.ready = "true";
  const byCode = new Map(cards.map((card) => [card.dataset.game ?? "", card]));
  markWarmingCards(byCode).catch(() => undefined); // the lobby works without it: a game page waits by itself
}
