// Money as the API writes it: decimal strings ("12.50"). Sums are done in integer minor units
// (bigint), never in floating point.

const SCALE = 100n;

/** "12.50" -> 1250n; "-0.3" -> -30n. */
export function toMinor(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) throw new Error(`not an amount: ${text}`);
  const [, sign, whole, frac = ""] = match;
  const minor = BigInt(whole) * SCALE + BigInt((frac + "00").slice(0, 2));
  return sign ? -minor : minor;
}

/** 1250n -> "12.50". */
export function fromMinor(minor: bigint): string {
  const sign = minor < 0n ? "-" : "";
  const abs = minor < 0n ? -minor : minor;
  return `${sign}${abs / SCALE}.${(abs % SCALE).toString().padStart(2, "0")}`;
}

/** An amount for people: thousands grouped, with the currency. */
export function formatMoney(text: string, currency = ""): string {
  const minor = toMinor(text);
  const plain = fromMinor(minor < 0n ? -minor : minor);
  const [whole, frac] = plain.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${minor < 0n ? "-" : ""}${grouped}.${frac}${currency ? " " + currency : ""}`;
}

export function add(a: string, b: string): string {
  return fromMinor(toMinor(a) + toMinor(b));
}

export function sub(a: string, b: string): string {
  return fromMinor(toMinor(a) - toMinor(b));
}

/** amount x an integer (a stake from a coin value and counts). */
export function times(amount: string, factor: number): string {
  return fromMinor(toMinor(amount) * BigInt(factor));
}
