// The compliance records in the back office: the change log (newest first, with the chain's
// verdict) and the download of an export of rounds as CSV.

import { call, OfficeError, query, storedKey } from "./api";
import { esc, table, when } from "./dom";

interface ChangeEntry {
  id: number;
  created_at: string;
  actor: string;
  kind: string;
  subject: string;
  before: unknown;
  after: unknown;
  hash: string;
}

interface ChainVerdict {
  intact: boolean;
  checked: number;
  head: string;
  problem?: string | null;
}

function shown(state: unknown): string {
  return state === null || state === undefined ? "–" : `<code>${esc(JSON.stringify(state))}</code>`;
}

export async function showChanges(view: HTMLElement): Promise<void> {
  const [page, chain] = await Promise.all([
    call<{ changes: ChangeEntry[] }>("GET", "/v1/operator/changes?limit=200"),
    call<ChainVerdict>("GET", "/v1/operator/changes/verify"),
  ]);
  const verdict = chain.intact
    ? `<p class="ok" id="chain">The chain holds: ${chain.checked} entries, head <code>${esc(chain.head)}</code>.</p>`
    : `<p class="error" role="alert" id="chain">The chain is broken: ${esc(chain.problem)}</p>`;
  view.innerHTML = `
    <h1>Changes</h1>
    ${verdict}
    ${table(["#", "When", "Who", "What", "Subject", "Before", "After"], page.changes.map((c) => [
      String(c.id), when(c.created_at), esc(c.actor), esc(c.kind), esc(c.subject), shown(c.before), shown(c.after),
    ]), "changes")}`;
}

/** Download an export (its query's filters) as a file: fetched with the operator's key, then
 *  handed to the browser as a download. */
export async function downloadExport(kind: "rounds" | "transactions", params: Record<string, string>): Promise<void> {
  const answer = await fetch(`/v1/operator/exports/${kind}${query({ ...params, format: "csv" })}`, {
    headers: { "X-Api-Key": storedKey() ?? "" },
  });
  if (!answer.ok) {
    const data = await answer.json().catch(() => ({}));
    throw new OfficeError(answer.status, data.error ?? "HTTP_ERROR", data.message ?? `HTTP ${answer.status}`, data.field);
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await answer.blob());
  link.download = `${kind}.csv`;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(link.href);
}
