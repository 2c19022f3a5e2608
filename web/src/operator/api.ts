// The Operator API as the back office calls it: the operator's key, kept only in this tab's
// sessionStorage (gone when the tab closes), sent as X-Api-Key.

const KEY = "slotforge.operatorKey";

export class OfficeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function keepKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

/** Call the Operator API; an error answer becomes an OfficeError with its message. */
export async function call<T>(method: string, path: string, body?: unknown, key = storedKey()): Promise<T> {
  const headers: Record<string, string> = { "X-Api-Key": key ?? "" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    throw new OfficeError(answer.status, data.error ?? "HTTP_ERROR", data.message ?? `HTTP ${answer.status}`, data.field);
  }
  return data as T;
}

/** A query string of the given parameters, the empty ones left out. */
export function query(params: Record<string, string | undefined | null>): string {
  const kept = Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== "");
  return kept.length ? "?" + new URLSearchParams(kept as [string, string][]).toString() : "";
}
