// The jackpot ticker above the reels: fixed jackpots from the stake (the game's screen module),
// the progressive pool live from the server's stream (values every second, each win at once),
// polled instead where the stream is refused.

import { listen, request } from "./api";
import { h } from "./dom";
import { formatMoney } from "./money";
import type { GameScreen } from "./screens/screen";
import type { GameModel, JackpotValue, JackpotWin } from "./types";

export class JackpotTicker {
  readonly element = h("div", { class: "jackpots", "aria-label": "Jackpots", role: "group" });
  private news = h("p", { class: "jackpot-news", "aria-live": "polite" });
  private pools: { current: string; currency: string }[] = [];

  constructor(
    private model: GameModel,
    private screen: GameScreen,
    private currency: string,
    private bet: () => { stake: string; fields: Record<string, string | number> },
  ) {}

  /** Whether the game shows any jackpot. */
  get shown(): boolean {
    return !!(this.model.jackpot || this.screen.jackpots);
  }

  follow(): void {
    this.render();
    if (!this.model.jackpot) return;
    const code = this.model.code;
    listen("/v1/jackpots/stream", {
      values: ({ pools }: { pools: JackpotValue[] }) => {
        this.pools = pools.filter((p) => p.pool === code);
        this.render();
      },
      win: (win: JackpotWin) => {
        if (win.pool === code) this.announce(win);
      },
    }, () => {
      void this.poll();
      setInterval(() => void this.poll(), 5000);
    });
  }

  private async poll(): Promise<void> {
    try {
      const { pools } = await request<{ pools: { game: string; current: string; currency: string }[] }>("GET", "/v1/jackpots");
      this.pools = pools.filter((p) => p.game === this.model.code);
    } catch {
      return; // shown again on the next poll
    }
    this.render();
  }

  /** Someone (this player or another) has just won the pool: said, and the pot lit a moment. */
  private announce(win: JackpotWin): void {
    const name = this.screen.poolName ?? "Jackpot";
    this.news.textContent = `${name} jackpot won: ${formatMoney(win.amount, this.pools[0]?.currency ?? "EUR")}`;
    this.element.classList.add("just-won");
    setTimeout(() => this.element.classList.remove("just-won"), 4000);
    setTimeout(() => {
      if (this.news.textContent?.startsWith(`${name} jackpot won`)) this.news.textContent = "";
    }, 10000);
  }

  /** The values at the current bet (fixed ones follow the stake). */
  render(): void {
    const { stake, fields } = this.bet();
    const fixed = (this.screen.jackpots?.(stake, fields, this.model) ?? []).map((j) => ({ ...j, currency: this.currency }));
    // A pool is kept in its own currency (EUR), whatever the player's.
    const shown = [...fixed, ...this.pools.map((p) => ({ name: this.screen.poolName ?? "Jackpot", amount: p.current, currency: p.currency }))];
    this.element.replaceChildren(
      ...shown.map((j) =>
        h("div", { class: `jackpot ${j.name.toLowerCase()}` }, h("span", { text: j.name }), h("output", { "aria-label": `${j.name} jackpot`, text: formatMoney(j.amount, j.currency) })),
      ),
      this.news,
    );
  }
}
