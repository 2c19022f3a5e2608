// The shapes of the Player API's answers that the client reads: every one built on the types
// generated from the server's OpenAPI document (api-schema.ts, by `npm run types`; a test fails
// when they are stale). Where the server types a field loosely (the engine's round record carries
// game-specific fields; a model's pays are the model file's), the client narrows it here, and
// `Narrows` checks at compile time that the narrowed type still fits the server's.

import type { components } from "./api-schema";

type Schemas = components["schemas"];

/** ``Narrow``, checked to be assignable to the server's ``Wide``: a field renamed or retyped on the
 * server fails the build here. */
export type Narrows<Wide, Narrow extends Wide> = Narrow;

/** ``T``'s named fields (without the index signature of a body that allows extra fields). */
export type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

export type Screen = string[][];

export type Win = Narrows<Schemas["Win"], Omit<Known<Schemas["Win"]>, "symbol" | "count" | "line" | "multiplier"> & {
  symbol: string;
  count: number;
  line?: number;
  multiplier?: number;
}>;

export type GameEvent = Narrows<Schemas["Event"], Schemas["Event"] & { type: string; [field: string]: unknown }>;

export type Step = Narrows<Schemas["Step"], Omit<Known<Schemas["Step"]>, "screen" | "wins" | "events"> & {
  kind: string;
  screen: Screen;
  wins: Win[];
  events: GameEvent[];
  card?: string;
  drawn?: string;
}>;

export type Awaiting = Schemas["Awaiting"];

export type RoundRecord = Narrows<Schemas["Round"], Omit<Known<Schemas["Round"]>, "steps" | "bet" | "game" | "total_bet" | "state"> & {
  game: string;
  bet: Record<string, unknown>;
  total_bet: string;
  steps: Step[];
  state?: Record<string, unknown>; // carried to the player's next round (after this one)
}>;

export type RoundAnswer = Narrows<Schemas["RoundAnswer"], Omit<Known<Schemas["RoundAnswer"]>, "round"> & { round: RoundRecord }>;

export type Jurisdiction = Schemas["JurisdictionRules"];

/** A published RTP that the player's strategy moves: its ends and the strategy giving each. */
export type RtpRange = Schemas["RtpRange"];

/** How the server gives a game's published RTP (the top of the range when there is one). */
export type PublishedRtp = Pick<Schemas["CatalogueGame"], "rtp" | "rtp_range" | "rtp_text">;

export type SessionGame = Schemas["SessionGame"];

/** How a bet's stake follows from its fields (the server's rule for each game). */
export type StakeRule = Schemas["StakeRule"];

/** A player's free rounds: an operator's grant (the session lists those to play or to answer). */
export type FreeRounds = Schemas["FreeRounds"];

export type Session = Narrows<Schemas["Session"], Omit<Known<Schemas["Session"]>, "open_rounds"> & { open_rounds: RoundRecord[] }>;

/** A game's volatility from its PAR sheet (the server reads it). */
export type Volatility = Schemas["Volatility"];

export type CatalogueEntry = Schemas["CatalogueGame"];

type Pays = Record<string, Record<string, number | string>> | null;

export type GameModel = Narrows<Schemas["GameModel"], Schemas["GameModel"] & {
  line_pays: Pays;
  scatter_pays: Pays;
  count_pays: Pays;
  count_rule: string | null;
  pay_scale: number | null;
  wild: { symbol: string; substitutes_except?: string[] } | null;
  features: Record<string, unknown> | null;
  bet: Record<string, unknown>;
}>;

export type AutoplayPlanAnswer = Schemas["AutoplayPlan"];

/** A pool's value on the live stream (`event: values`; the stream is not described by the document). */
export interface JackpotValue {
  pool: string;
  currency: string;
  current: string;
}

/** A pool paid out (`event: win`): ``amount`` in the pool's currency, ``payout`` in the winner's. */
export interface JackpotWin {
  pool: string;
  key: string;
  amount: string;
  payout: string;
  currency: string;
}
