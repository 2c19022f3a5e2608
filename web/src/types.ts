// The shapes of the Player API's answers that the client reads.

export type Screen = string[][];

export interface Win {
  kind: string;
  symbol: string;
  count: number;
  amount: string;
  line?: number;
  multiplier?: number;
}

export interface GameEvent {
  type: string;
  [field: string]: unknown;
}

export interface Step {
  kind: string;
  screen: Screen;
  wins: Win[];
  events: GameEvent[];
  card?: string;
  drawn?: string;
}

export interface RoundRecord {
  id: number;
  game: string;
  bet: Record<string, unknown>;
  total_bet: string;
  total_win: string;
  status: string;
  awaiting: { decision: string; options: string[]; win: string } | null;
  steps: Step[];
  balance_before: string;
  balance_after: string;
  jackpot_win: string;
  currency: string;
  started_at: string;
  state?: Record<string, unknown>; // carried to the player's next round (after this one)
  inputs?: { choices?: string[] };
}

export interface RoundAnswer {
  round: RoundRecord;
  balance: string;
}

export interface Jurisdiction {
  name: string;
  autoplay: { allowed: boolean; max_rounds: number; loss_limit_required: boolean };
  min_round_ms: number;
  gamble: boolean;
  max_stake: string | null;
  show_net_position: boolean;
  show_session_timer: boolean;
  reality_check_s: number | null;
  turbo: boolean;
  recall_rounds: number;
}

/** A published RTP that the player's strategy moves: its ends and the strategy giving each. */
export interface RtpRange {
  min: string;
  max: string;
  min_strategy: string;
  max_strategy: string;
  min_strategy_text: string;
  max_strategy_text: string;
}

/** How the server gives a game's published RTP (the top of the range when there is one). */
export interface PublishedRtp {
  rtp: string;
  rtp_range: RtpRange | null;
}

export interface SessionGame extends PublishedRtp {
  code: string;
  name: string;
  bet: Record<string, unknown>;
  decisions: Record<string, string[]>;
  jackpot: boolean;
}

export interface Session {
  player: number;
  currency: string;
  mode: "fun" | "real";
  balance: string;
  jurisdiction: Jurisdiction;
  games: SessionGame[];
  open_rounds: RoundRecord[];
  net_position: string;
  elapsed_s: number;
  /** The state each game carries between this player's rounds (Moon of Fortune's stickies). */
  carried_state?: Record<string, Record<string, unknown>>;
}

/** A game's volatility from its PAR sheet (the server reads it): the index at 90% and the
 * standard deviation of one round (x stake), per bet configuration where they differ. */
export interface Volatility {
  word: string;
  std: string;
  index: string;
  by_bet: { bet: string; index: string; word: string }[];
}

export interface CatalogueEntry extends PublishedRtp {
  code: string;
  name: string;
  model: string;
  grid: { rows: number; reels: number };
  jackpot: boolean;
  volatility: Volatility | null;
}

export interface GameModel extends CatalogueEntry {
  symbols: { code: string; kind: string }[];
  line_pays: Record<string, Record<string, number | string>> | null;
  scatter_pays: Record<string, Record<string, number | string>> | null;
  count_pays: Record<string, Record<string, number | string>> | null;
  count_rule: string | null;
  pay_scale: number | null;
  wild: { symbol: string; substitutes_except?: string[] } | null;
  features: Record<string, unknown> | null;
  bet: Record<string, unknown>;
  paylines: number[][];
  decisions: Record<string, string[]>;
}

/** A pool's value on the live stream (`event: values`). */
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
