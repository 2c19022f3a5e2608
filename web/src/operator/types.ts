// The back office's answers: the types generated from the server's OpenAPI document
// (../api-schema.ts, by `npm run types`; a test fails when they are stale), narrowed only where
// the record is game-specific (a cell of a screen may carry a value beside its symbol).

import type { components } from "../api-schema";
import type { Known, Narrows } from "../types";

type Schemas = components["schemas"];

export type DayLine = Schemas["DayLine"];
export type RtpLine = Schemas["RtpLine"];
export type PlayerLine = Schemas["PlayerLine"];
export type LedgerLine = Schemas["LedgerLine"];
export type PlanLine = Schemas["PlanLine"];
export type PlayerOverview = Schemas["PlayerOverview"];
export type RoundLine = Schemas["RoundLine"];
export type Owed = Schemas["Owed"];
export type Claims = Schemas["Claims"];
export type DailyReport = Schemas["DailyReport"];
export type RtpReport = Schemas["RtpReport"];
export type PlayerList = Schemas["PlayerList"];
export type RoundList = Schemas["RoundList"];
export type Campaign = Schemas["Campaign"];
export type CampaignPage = Schemas["CampaignPage"];
export type CampaignShown = Schemas["CampaignShown"];
export type Grants = Schemas["Grants"];

export type Cell = string | { symbol?: string; [field: string]: unknown };

export type RecordStep = Narrows<Schemas["Step"], Omit<Known<Schemas["Step"]>, "screen"> & {
  screen: Cell[][];
  card?: string;
  drawn?: string;
}>;

export type RoundDetail = Narrows<Schemas["RoundDetail"], Omit<Schemas["RoundDetail"], "round"> & {
  round: Omit<Known<Schemas["Round"]>, "steps"> & { steps: RecordStep[] };
}>;

export type Me = Schemas["Me"];
export type KeyList = Schemas["KeyList"];
export type NewKey = Schemas["NewKey"];
export type Rotated = Schemas["Rotated"];
export type UserList = Schemas["UserList"];
export type Alerts = Schemas["Alerts"];
