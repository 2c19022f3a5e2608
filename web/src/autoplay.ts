// Autoplay: the AUTO button, its dialog, and the plan's rounds. After each round the page asks the
// server whether the plan has stopped (a win, a limit, the rounds played), so that it never sends a
// round for the server to refuse: the round that stopped the plan stays on show. A gamble offered
// during autoplay is declined (the win collected, the usual rule): a plan stops on its own
// conditions, not at every win that offers a gamble.

import { describeStop, request } from "./api";
import { h } from "./dom";
import { openAutoplay, type AutoplayPlan } from "./panels";
import type { Jurisdiction } from "./types";

/** The option that declines a gamble and takes the win (Dynasty's, Moon of Fortune's). */
export const COLLECT = "collect";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What autoplay needs of the game page. */
export interface AutoplayHooks {
  /** Play one round counted against the plan; false when nothing was played. */
  play(planId: number): Promise<boolean>;
  /** The options of the decision a round waits for (none: it waits for nothing). */
  deciding(): string[];
  /** Answer the waiting decision with ``option``; false when it was refused. */
  decide(option: string): Promise<boolean>;
  /** The milliseconds still to wait before the next round (the jurisdiction's least gap). */
  gap(): number;
  say(text: string): void;
  /** The plan started or stopped: the controls follow. */
  changed(): void;
}

export class AutoplayControl {
  readonly button = h("button", { class: "autoplay", "aria-label": "Autoplay", text: "AUTO" });
  private plan: AutoplayPlan | null = null;

  constructor(
    private game: string,
    private rules: Jurisdiction,
    private bet: () => Record<string, string | number>,
    private hooks: AutoplayHooks,
  ) {
    this.button.addEventListener("click", () => this.toggle());
  }

  get running(): boolean {
    return this.plan !== null;
  }

  /** The plan is over on the server's side (a refused round said so): forget it. */
  forget(): void {
    this.plan = null;
    this.button.textContent = "AUTO";
  }

  private toggle(): void {
    if (this.plan) {
      void this.stop("player");
      return;
    }
    openAutoplay(this.game, this.bet(), this.rules, (plan) => void this.run(plan));
  }

  private async run(plan: AutoplayPlan): Promise<void> {
    this.plan = plan;
    this.button.textContent = "AUTO ■";
    this.hooks.changed();
    while (this.plan?.id === plan.id) {
      const wait = this.hooks.gap();
      if (wait > 0) await pause(wait);
      if (this.plan?.id !== plan.id) break;
      if (!(await this.hooks.play(plan.id))) {
        await this.stop(null);
        break;
      }
      if (!(await this.collectGambles())) {
        // Any other decision (a pick) ends the plan: the player makes it, and starts autoplay
        // again if they wish.
        await this.stop("decision");
        this.hooks.say("Autoplay stopped: this decision is yours.");
        break;
      }
      const reason = await this.stopped(plan.id);
      if (reason) {
        await this.stop(null);
        this.hooks.say(`Autoplay stopped: ${describeStop(reason)}.`);
        break;
      }
      await pause(300);
    }
  }

  /** Collect every gamble the round offers (one may follow another); false when the round
   * still waits, for a decision that is no gamble (or a refused answer). */
  private async collectGambles(): Promise<boolean> {
    while (this.hooks.deciding().includes(COLLECT)) {
      if (!(await this.hooks.decide(COLLECT))) return false;
    }
    return this.hooks.deciding().length === 0;
  }

  /** Why the server stopped the plan after the round just played, or null while it runs. */
  private async stopped(id: number): Promise<string | null> {
    try {
      return (await request<{ stopped: string | null }>("GET", `/v1/autoplay/${id}`)).stopped;
    } catch {
      return null; // the next round's answer says it if the plan has stopped
    }
  }

  /** Stop the plan; ``by`` a reason of the page's (the player, a decision, a reality check) also
   * ends it on the server. */
  async stop(by: string | null): Promise<void> {
    const plan = this.plan;
    this.forget();
    this.hooks.changed();
    if (plan && by) {
      await request("DELETE", `/v1/autoplay/${plan.id}`).catch(() => undefined);
      this.hooks.say("Autoplay stopped.");
    }
  }
}
