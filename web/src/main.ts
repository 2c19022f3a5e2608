// Routes: `/` the lobby, `/play` (an operator's launch URL) the lobby with the player's session,
// `/play/GAME` the game.

import "./style.css";
import { ApiError, adoptLaunchToken, explain, request, storeSession, storedSession } from "./api";
import { h } from "./dom";
import { openGame } from "./game";
import { ensureSession, openLobby } from "./lobby";
import { untilPlayable } from "./warmup";

async function route(root: HTMLElement): Promise<void> {
  adoptLaunchToken();
  const match = /^\/play\/([^/]+)\/?$/.exec(location.pathname);
  if (!match) return openLobby(root);
  const code = decodeURIComponent(match[1]);
  await ensureSession();
  const named = await request<{ name: string }>("GET", `/v1/games/${encodeURIComponent(code)}`).catch(() => null);
  await untilPlayable(root, code, named?.name ?? code);
  try {
    await openGame(root, code);
  } catch (error) {
    // A fun session that expired is simply replaced; a real one must come from the casino again.
    if (error instanceof ApiError && error.code === "INVALID_SESSION" && storedSession()?.mode === "fun") {
      storeSession(null);
      await ensureSession();
      return openGame(root, code);
    }
    throw error;
  }
}

const root = document.getElementById("app")!;
route(root).catch((error) => {
  root.replaceChildren(h("p", { class: "message fatal", role: "alert", text: explain(error) }), h("a", { href: "/", text: "Back to the lobby" }));
  root.dataset.ready = "error";
});
