// The operator's free rounds on a game page: the "N free rounds: play now / later" prompt, the
// counter while they are played, and the summary once the last one is played. The server
// decides everything (the bet, what is left): the page shows what it answers.
import { explain, request } from "./api";
import { h, openModal } from "./dom";
import { formatMoney } from "./money";
import type { FreeRounds } from "./types";

/** The grant a game page offers: the first of the session's, playable on ``game``, with rounds left. */
export function offeredOn(grants: FreeRounds[], game: string): FreeRounds | undefined {
  return grants.find((g) => g.games.includes(game) && g.left > 0 && (g.state === "offered" || g.state === "accepted"));
}

/** The counter's words: "Free round 3 of 10". */
export function counter(grant: FreeRounds): string {
  return `Free round ${Math.min(grant.played + 1, grant.rounds)} of ${grant.rounds}`;
}

/** The end summary's words. */
export function summary(grant: FreeRounds, currency: string): string {
  const rounds = grant.rounds === 1 ? "1 free round" : `${grant.rounds} free rounds`;
  return `You won ${formatMoney(grant.won, currency)} in your ${rounds} of ${grant.name}.`;
}

/** Ask whether to play the grant now; resolves true for "Play now" (accepted at the server),
 * false for "Later" (it stays offered) or when the answer was refused. */
export function askToPlay(grant: FreeRounds, say: (text: string) => void): Promise<boolean> {
  return new Promise((resolve) => {
    const now = h("button", { text: "Play now" });
    const later = h("button", { text: "Later" });
    const box = document.createElement("dialog");
    box.className = "free-rounds";
    box.setAttribute("aria-label", "Free rounds");
    const rounds = grant.left === 1 ? "1 free round" : `${grant.left} free rounds`;
    box.append(h("h2", { text: `${rounds}: ${grant.name}` }), h("footer", {}, now, later));
    const answer = async (choice: "accept" | "later") => {
      box.close();
      try {
        await request<FreeRounds>("POST", `/v1/free-rounds/${grant.id}`, { choice });
        resolve(choice === "accept");
      } catch (error) {
        say(explain(error));
        resolve(false);
      }
    };
    now.addEventListener("click", () => void answer("accept"));
    later.addEventListener("click", () => void answer("later"));
    openModal(box);
  });
}

/** Show the end summary of a grant whose rounds are all played (read again from the server). */
export async function showSummary(grantId: number, currency: string): Promise<void> {
  const grant = await request<FreeRounds>("GET", `/v1/free-rounds/${grantId}`);
  const ok = h("button", { text: "OK" });
  const box = document.createElement("dialog");
  box.className = "free-rounds";
  box.setAttribute("aria-label", "Free rounds played");
  box.append(h("h2", { text: "Free rounds played" }), h("p", { text: summary(grant, currency) }), h("footer", {}, ok));
  ok.addEventListener("click", () => box.close());
  openModal(box);
}
