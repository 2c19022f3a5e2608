// Bet fields from the game's bet description in the session, and a bet's stake by the server's
// stake rule (no game is named here, and no game's formula is repeated).

import { fromMinor, toMinor } from "./money";
import type { StakeRule } from "./types";

export interface BetField {
  name: string;
  label: string;
  values: (string | number)[];
  value: string | number;
}

const SINGULAR: Record<string, string> = { coin_values: "coin_value", bets: "bet", chance_levels: "chance_level" };

function singular(key: string): string {
  return SINGULAR[key] ?? key.replace(/s$/, "");
}

function label(name: string): string {
  return name.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}

export function betFields(spec: Record<string, unknown>, extra: Record<string, string[]> = {}): BetField[] {
  const fields: BetField[] = [];
  for (const [key, raw] of Object.entries(spec)) {
    if (raw && typeof raw === "object" && !Array.isArray(raw) && "min" in raw) {
      const range = raw as { min: number; max: number; default: number };
      const values = Array.from({ length: range.max - range.min + 1 }, (_, i) => range.min + i);
      fields.push({ name: key, label: label(key), values, value: range.default });
    } else if (raw && typeof raw === "object" && !Array.isArray(raw) && "values" in raw) {
      const choice = raw as { values: (string | number)[]; default: string | number };
      const name = singular(key);
      fields.push({ name, label: label(name), values: choice.values, value: choice.default });
    } else if (Array.isArray(raw)) {
      const name = singular(key);
      const fallback = spec[`default_${name}`] as string | number | undefined;
      fields.push({ name, label: label(name), values: raw as (string | number)[], value: fallback ?? raw[0] });
    }
  }
  for (const [key, raw] of Object.entries(spec)) {
    const name = key.replace(/^default_/, "");
    if (key.startsWith("default_") && !fields.some((f) => f.name === name)) {
      fields.push({ name, label: label(name), values: extra[name] ?? [raw as string], value: raw as string });
    }
  }
  return fields;
}

export function betOf(fields: BetField[]): Record<string, string | number> {
  return Object.fromEntries(fields.map((field) => [field.name, field.value]));
}

/** A bet's stake by the game's stake rule from the server: the amount field x each count field x
 * the factor, in exact minor units ("" while a field is missing). */
export function stakeOf(rule: StakeRule, bet: Record<string, string | number>): string {
  const amount = bet[rule.amount];
  if (amount === undefined) return "";
  let minor = toMinor(String(amount)) * BigInt(rule.factor);
  for (const name of rule.times) {
    const count = bet[name];
    if (typeof count !== "number" && !/^\d+$/.test(String(count))) return "";
    minor *= BigInt(count);
  }
  return fromMinor(minor);
}
