// The player's own limits (where the jurisdiction offers them): loss limits per rolling day,
// week and month, a session time limit, and a time-out. The server enforces them; this panel
// sets them and shows what is in force and any loosening still waiting out the cooling-off.

import { explain, request } from "./api";
import type { components } from "./api-schema";
import { dialog, h } from "./dom";
import { formatMoney } from "./money";

export type Limits = components["schemas"]["Limits"];
const PERIODS = ["day", "week", "month"] as const;
type Period = (typeof PERIODS)[number];

/** A pending change, in words ("no limit from 2026-12-08 10:00 UTC"). */
export function pendingText(limit: string | number | null, appliesAt: string, show: (value: string | number) => string): string {
  const when = appliesAt.replace("T", " ").replace(/:\d\d\.\d+Z$/, " UTC");
  return `${limit === null ? "no limit" : show(limit)} from ${when}`;
}

/** The limits asked for in the form, as the server takes them (an empty field: no limit). */
export function wantedLimits(data: FormData): { loss: Record<Period, string | null>; session_minutes: number | null } {
  const text = (name: string) => String(data.get(name) ?? "").trim();
  const loss = Object.fromEntries(PERIODS.map((p) => [p, text(`loss_${p}`) || null])) as Record<Period, string | null>;
  const minutes = text("session_minutes");
  return { loss, session_minutes: minutes ? Number(minutes) : null };
}

function periodRow(period: Period, limits: Limits): HTMLElement {
  const shown = limits.loss[period];
  const money = (value: string | number) => formatMoney(String(value), limits.currency);
  const status = [
    shown.limit === null ? "no limit" : `${money(shown.net_loss)} lost, ${money(shown.remaining ?? "0.00")} left`,
    shown.pending ? `changes to ${pendingText(shown.pending.limit, shown.pending.applies_at, money)}` : "",
  ].filter(Boolean).join("; ");
  return h(
    "label",
    { class: "setting" },
    h("span", { text: `Loss limit per ${period}` }),
    h("input", { name: `loss_${period}`, inputmode: "decimal", placeholder: "no limit", value: shown.limit ?? "", "aria-label": `Loss limit per ${period}` }),
    h("small", { class: "limit-status", text: status }),
  );
}

function sessionRow(limits: Limits): HTMLElement {
  const shown = limits.session_minutes;
  const status = [
    shown.ends_at ? `this session ends ${shown.ends_at.replace("T", " ").replace(/:\d\d\.\d+Z$/, " UTC")}` : "",
    shown.pending ? `changes to ${pendingText(shown.pending.limit, shown.pending.applies_at, (m) => `${m} min`)}` : "",
  ].filter(Boolean).join("; ");
  return h(
    "label",
    { class: "setting" },
    h("span", { text: `Session time limit (minutes, at most ${limits.max_session_minutes})` }),
    h("input", { name: "session_minutes", inputmode: "numeric", placeholder: "no limit", value: shown.limit ?? "", "aria-label": "Session time limit in minutes" }),
    h("small", { class: "limit-status", text: status }),
  );
}

/** The Limits dialog: reads the player's limits, saves the form, takes a time-out. */
export async function openLimits(): Promise<void> {
  let limits: Limits;
  try {
    limits = await request<Limits>("GET", "/v1/limits");
  } catch (error) {
    dialog("Limits", h("p", { role: "alert", class: "message", text: explain(error) }));
    return;
  }
  const message = h("p", { role: "alert", class: "message" });
  const hours = h("select", { name: "hours", "aria-label": "Time-out" }, ...limits.time_out_hours.map((n) => h("option", { value: n, text: n % 24 ? `${n} hours` : `${n / 24} days` })));
  const form = h(
    "form",
    { class: "limits-form" },
    ...PERIODS.map((p) => periodRow(p, limits)),
    sessionRow(limits),
    h("p", { class: "limits-rule", text: `A lower limit holds at once; a higher one, or none, only after ${limits.cooling_off_hours} hours.` }),
    h("fieldset", {}, h("legend", { text: "Take a time-out" }), limits.time_out ? h("p", { text: `No play until ${limits.time_out.until}.` }) : hours),
    message,
  );
  const save = h("button", { text: "Save limits" });
  const pause = h("button", { text: "Take time-out", disabled: limits.time_out !== null });
  const box = dialog("Limits", form, [save, pause]);
  save.addEventListener("click", async () => {
    try {
      await request<Limits>("PUT", "/v1/limits", wantedLimits(new FormData(form)));
      box.close();
      void openLimits();
    } catch (error) {
      message.textContent = explain(error);
    }
  });
  pause.addEventListener("click", async () => {
    const chosen = Number(new FormData(form).get("hours"));
    if (!confirm(`Block your play for ${chosen} hours? A time-out cannot be undone.`)) return;
    try {
      await request<Limits>("POST", "/v1/limits/time-out", { hours: chosen });
      box.close();
      void openLimits();
    } catch (error) {
      message.textContent = explain(error);
    }
  });
}
