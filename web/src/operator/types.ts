// The back office's answers, as the Operator API declares them (/openapi.json).

export interface DayLine {
  day: string;
  game: string;
  currency: string;
  rounds: number;
  players: number;
  stakes: string;
  wins: string;
  ggr: string;
  hit_rate: string | null;
  jackpot_contributions: string;
  jackpot_payouts: string;
}

export interface RtpLine {
  game: string;
  rounds: number;
  stakes: string;
  wins: string;
  rtp: string | null;
  theoretical_rtp: string | null;
  std_per_round: string | null;
  effective_rounds: number;
  confidence: number;
  band_low: string | null;
  band_high: string | null;
  outside_band: boolean;
}

export interface PlayerLine {
  player_id: string;
  currency: string;
  balance: string;
  wallet: string;
  created_at: string;
  last_round_at: string | null;
}

export interface LedgerLine {
  id: number;
  kind: string;
  amount: string;
  round_id: number | null;
  reference: string | null;
  created_at: string;
}

export interface PlanLine {
  id: number;
  game: string | null;
  rounds: number | null;
  played: number;
  net: string;
  stopped: string | null;
  created_at: string;
}

export interface PlayerOverview extends PlayerLine {
  sessions: { id: number; jurisdiction: string; language: string | null; started_at: string; last_seen: string }[];
  open_rounds: { id: number; game: string; status: string; stake: string; started_at: string }[];
  autoplays: PlanLine[];
  ledger: LedgerLine[];
}

export interface RoundLine {
  id: number;
  player_id: string;
  game: string;
  status: string;
  currency: string;
  stake: string;
  win: string;
  jackpot_win: string;
  started_at: string;
  finished_at: string | null;
  void_reason: string | null;
  wallet_status: string | null;
}

export type Cell = string | { symbol?: string; [field: string]: unknown };

export interface RecordStep {
  kind: string;
  screen: Cell[][];
  wins: { kind: string; amount: string; symbol?: string | null; count?: number | null; line?: number | null }[];
  events: { type: string; [field: string]: unknown }[];
  card?: string;
  drawn?: string;
}

export interface RoundDetail {
  summary: RoundLine;
  round: { steps?: RecordStep[]; total_bet?: string; total_win?: string; bet?: Record<string, unknown>; [field: string]: unknown };
  verified: boolean | null;
  ledger: LedgerLine[];
}
