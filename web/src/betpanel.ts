// The bet panel: a select per bet field, MAX BET, and the stake by the server's stake rule.

import { betFields, betOf, stakeOf, type BetField } from "./bets";
import { h } from "./dom";
import { toMinor } from "./money";
import type { StakeRule } from "./types";

export class BetPanel {
  readonly element = h("div", { class: "bets", role: "group", "aria-label": "Bet" });
  readonly maxBetButton = h("button", { class: "max-bet", "aria-label": "Max bet", text: "MAX BET" });
  private fields: BetField[];

  /** ``changed`` runs after the player (or MAX BET) changes the bet. */
  constructor(spec: Record<string, unknown>, extra: Record<string, string[]>, private rule: StakeRule, private changed: () => void) {
    this.fields = betFields(spec, extra);
    for (const field of this.fields) this.element.append(this.control(field));
  }

  /** The bet as the API takes it. */
  get bet(): Record<string, string | number> {
    return betOf(this.fields);
  }

  /** The stake of the bet ("" while it cannot be told). */
  get stake(): string {
    return stakeOf(this.rule, this.bet);
  }

  set disabled(disabled: boolean) {
    for (const select of this.element.querySelectorAll("select")) select.disabled = disabled;
    this.maxBetButton.toggleAttribute("disabled", disabled);
  }

  private control(field: BetField): HTMLElement {
    const select = h("select", { "aria-label": field.label, name: field.name });
    for (const value of field.values) {
      select.append(h("option", { value: String(value), text: String(value), selected: value === field.value }));
    }
    select.addEventListener("change", () => {
      field.value = field.values[select.selectedIndex];
      this.changed();
    });
    return h("label", { class: "bet" }, h("span", { text: field.label }), select);
  }

  /** The largest bet within every limit given (the jurisdiction's stake limit, the balance):
   * each numeric field at its top, then lowered from the last field until the stake fits. */
  maxBet(limits: (string | null)[]): void {
    for (const field of this.fields) {
      if (field.values.every((v) => typeof v === "number" || /^\d/.test(String(v)))) field.value = field.values[field.values.length - 1];
    }
    const limit = limits.filter((l): l is string => !!l).map(toMinor).reduce((a, b) => (a < b ? a : b));
    while (this.stake && toMinor(this.stake) > limit && this.stepDown()) {
      /* lower the last field that can go lower */
    }
    this.fields.forEach((field, i) => {
      const select = this.element.querySelectorAll("select")[i];
      if (select) select.selectedIndex = field.values.indexOf(field.value);
    });
    this.changed();
  }

  private stepDown(): boolean {
    for (const field of [...this.fields].reverse()) {
      const i = field.values.indexOf(field.value);
      if (i > 0 && typeof field.values[0] !== "string") {
        field.value = field.values[i - 1];
        return true;
      }
    }
    return false;
  }
}
