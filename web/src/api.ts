// The public Player API, and nothing else: every request goes to this page's own server.

export interface ApiErrorBody {
  error: string;
  message: string;
  field?: string;
  balance?: string;
  reason?: string;
  round?: number;
  refunded?: boolean;
  period?: string;
  remaining?: string;
  minutes?: number;
  until?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    readonly retryAfter: number | null,
  ) {
    super(body.message);
  }
  get code(): string {
    return this.body.error;
  }
}

const TOKEN_KEY = "slotforge.session";

export interface StoredSession {
  token: string;
  mode: "fun" | "real";
}

export function storedSession(): StoredSession | null {
  const raw = sessionStorage.getItem(TOKEN_KEY);
  return raw ? (JSON.parse(raw) as StoredSession) : null;
}

export function storeSession(session: StoredSession | null): void {
  if (session) sessionStorage.setItem(TOKEN_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** An operator's launch URL carries the token (`/play?token=...`): keep it for this tab and take
 * it out of the address bar, so that it is not bookmarked or shared. */
export function adoptLaunchToken(): void {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (!token) return;
  storeSession({ token, mode: "real" });
  url.searchParams.delete("token");
  history.replaceState(null, "", url.pathname + url.search + url.hash);
}

function newKey(): string {
  return crypto.randomUUID();
}

/** One request; a state-changing one carries its own Idempotency-Key, reused if it is retried. */
export async function request<T>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const session = storedSession();
  if (session) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method === "POST") headers["Idempotency-Key"] = key ?? newKey();
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { error: "NETWORK", message: "the game server cannot be reached" }, null);
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const errorBody =
      parsed && typeof parsed === "object" && "error" in parsed
        ? (parsed as ApiErrorBody)
        : { error: "HTTP_ERROR", message: `the server answered ${response.status}` };
    const retry = response.headers.get("Retry-After");
    throw new ApiError(response.status, errorBody, retry ? Number(retry) : null);
  }
  return parsed as T;
}

/** A server-sent event stream of the Player API, one handler per event name. An EventSource
 * cannot send headers, so the session's token goes in the query; the browser reconnects by
 * itself after a dropped connection and gives up (calling ``onClosed``) only on a refusal. */
export function listen(path: string, handlers: Record<string, (data: any) => void>, onClosed: () => void): EventSource {
  const session = storedSession();
  const url = session ? `${path}?token=${encodeURIComponent(session.token)}` : path;
  const source = new EventSource(url);
  for (const [event, handle] of Object.entries(handlers)) {
    source.addEventListener(event, (message) => handle(JSON.parse((message as MessageEvent).data)));
  }
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) onClosed();
  };
  return source;
}

/** A message a player understands, for every error the API gives. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return `Something went wrong: ${String(error)}`;
  const b = error.body;
  switch (b.error) {
    case "INSUFFICIENT_FUNDS":
      return `Not enough money for this stake${b.balance ? ` (balance ${b.balance})` : ""}. Lower the stake or add funds.`;
    case "INVALID_SESSION":
      return "Your session has expired or is not valid. Return to the lobby (or your casino) to start a new one.";
    case "MIN_ROUND_DURATION":
      return `Rounds must be further apart here: wait ${error.retryAfter ?? 1} s and spin again.`;
    case "ROUND_IN_PROGRESS":
      return "A round of this game is waiting for your decision: finish it first.";
    case "REQUEST_IN_PROGRESS":
      return "Your last request is still being handled; try again in a moment.";
    case "AUTOPLAY_STOPPED":
      return `Autoplay stopped: ${describeStop(b.reason)}.`;
    case "LOSS_LIMIT_REACHED":
      return `Your loss limit per ${b.period ?? "period"} is reached (${b.remaining ?? "0.00"} left). Play resumes as older rounds leave the period.`;
    case "SESSION_LIMIT_REACHED":
      return `Your session time limit${b.minutes ? ` of ${b.minutes} minutes` : ""} is reached: no more rounds in this session.`;
    case "TIMED_OUT":
      return `You took a time-out: no play until ${b.until ?? "it ends"}.`;
    case "LIMIT_EXCEEDED":
      return `That is above the limit allowed here: ${b.message}`;
    case "FEATURE_DISABLED":
      return `Not available here: ${b.message}`;
    case "GAME_NOT_ALLOWED":
      return `This game is not offered to you: ${b.message}`;
    case "INVALID_BET":
      return `That bet is not valid: ${b.message}`;
    case "INVALID_CHOICE":
      return `That choice is not valid now: ${b.message}`;
    case "JACKPOT_UNAVAILABLE":
      return "The jackpot is unavailable just now; nothing was taken. Try again shortly.";
    case "WALLET_UNAVAILABLE":
      return "Your casino's wallet did not answer; nothing was taken. Try again shortly.";
    case "MALFUNCTION":
      return "Malfunction: the round is void and your stake has been refunded.";
    case "NETWORK":
      return "The game server cannot be reached. Check your connection and try again.";
    case "NOT_FOUND":
      return `Not found: ${b.message}`;
    case "VALIDATION":
      // The server's text names patterns and types: a player is told which value, in words.
      return `${b.field ? `The value for ${b.field.replace(/^.*\./, "").replace(/_/g, " ")}` : "A value"} was not accepted: check it and try again.`;
    default:
      return `${b.error}: ${b.message}`;
  }
}

export function describeStop(reason: string | undefined): string {
  const reasons: Record<string, string> = {
    any_win: "a win",
    feature: "a feature was won",
    single_win_at_least: "a single win reached your amount",
    cash_increase: "your balance rose by your amount",
    cash_decrease: "your loss limit was reached",
    rounds: "all rounds played",
    player: "stopped by you",
  };
  return reason ? (reasons[reason] ?? reason) : "stopped";
}
