// Small helpers to write the back office's pages as HTML text, every value escaped.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/** A table: headings, then rows of cells already written as HTML. */
export function table(headings: string[], rows: string[][], label: string): string {
  if (!rows.length) return `<p class="empty">Nothing to show.</p>`;
  const head = headings.map((h) => `<th scope="col">${esc(h)}</th>`).join("");
  const body = rows.map((cells) => `<tr>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("");
  return `<table aria-label="${esc(label)}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

export function percent(ratio: string | null | undefined): string {
  if (ratio === null || ratio === undefined) return "–";
  return `${(Number(ratio) * 100).toFixed(2)}%`;
}

/** A UTC time from the API in the browser's time zone and its locale's way of writing dates: the
 * same as the date pickers on the page (which follow the browser). */
export function when(iso: string | null | undefined, zone?: string): string {
  if (!iso) return "–";
  return new Date(iso).toLocaleString(undefined, { timeZone: zone, dateStyle: "short", timeStyle: "medium" });
}

/** A calendar day ("2026-12-04") as the browser's locale writes a date, as its date pickers do. */
export function day(isoDay: string): string {
  return new Date(`${isoDay}T12:00:00Z`).toLocaleDateString(undefined, { timeZone: "UTC", dateStyle: "short" });
}

export function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing`);
  return found;
}

/** The form's fields by name, trimmed. */
export function fields(form: HTMLFormElement): Record<string, string> {
  const data: Record<string, string> = {};
  new FormData(form).forEach((value, name) => (data[name] = String(value).trim()));
  return data;
}
