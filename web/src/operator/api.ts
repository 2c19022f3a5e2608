// The Operator API as the back office calls it. A person signs in with their own name and
// password: the session is an HTTP-only cookie the page never sees, and every write sends the
// session's CSRF token (from the readable slotforge_csrf cookie) in X-CSRF-Token. An operator's
// API key still opens the back office for scripts and keys of the read or write scope: it is
// kept only in this tab's sessionStorage (gone when the tab closes) and sent as X-Api-Key.

import type { Me } from "./types";

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

/** Who is signed in and what they may do (the server's /v1/operator/me), once known. */
let signedIn: Me | null = null;

export function whoAmI(): Me | null {
  return signedIn;
}

export function remember(me: Me | null): void {
  signedIn = me;
}

/** Whether the signed-in user's role, or the key's scopes, allow an ability ("void", "admin" ...). */
export function can(ability: string): boolean {
  return signedIn?.abilities.includes(ability) ?? false;
}

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function keepKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

function csrfToken(): string {
  const found = document.cookie.split("; ").find((pair) => pair.startsWith("slotforge_csrf="));
  return found ? decodeURIComponent(found.slice("slotforge_csrf=".length)) : "";
}

/** Whether a sign-in's cookies are here (the session's own is HTTP-only: its CSRF twin tells). */
export function hasSessionCookie(): boolean {
  return csrfToken() !== "";
}

/** Call the Operator API; an error answer becomes an OfficeError with its message. */
export async function call<T>(method: string, path: string, body?: unknown, key = storedKey()): Promise<T> {
  const headers: Record<string, string> = {};
  if (key) headers["X-Api-Key"] = key;
  else if (method !== "GET") headers["X-CSRF-Token"] = csrfToken();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(path, {
    method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
  });
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
