"""What the server answers: the models of every success and error body, as ``/openapi.json``
and ``/docs`` describe them.

These models document; they do not build the answers. The handlers return their dicts (the round
endpoints pre-encoded bytes) exactly as before, and the routes declare these models with
``responses=`` only (``response_model=None``), so nothing is validated or encoded a second time on
the way out. ``tests/rgs/test_openapi.py`` plays real requests and validates every answer against
its model, so a field renamed on either side fails there.

Amounts are exact decimal text (``"12.50"``), never JSON numbers. A round's record is the
engine's (``docs/scripts.md``): its steps, wins and events carry game-specific fields, so those
models allow extra fields; the server's own answers list every field they have.

Each route's declaration (its success model and the errors it may answer) is a constant at the
end of this module, named after the route: ``@router.post("/rounds", response_model=None,
responses=answers.PLAY_ROUND)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from slotforge.amounts import AmountText
from slotforge.rgs import errors, free

# -- amounts and times --------------------------------------------------------------------------
Money = Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]{2}$", examples=["12.50"],
                             description="an amount in whole cents, as decimal text")]
SignedMoney = Annotated[str, Field(pattern=r"^-?[0-9]+\.[0-9]{2}$", examples=["-1.20"],
                                   description="an amount that may be negative, as decimal text")]
# An amount of the engine's record: at least two decimals, more when a game pays fractions of a cent.
RecordMoney = Annotated[str, Field(pattern=r"^[0-9]+\.[0-9]{2,}$", examples=["0.20"],
                                   description="an amount as exact decimal text")]
# An amount echoed as it was given (a plan's limit, a setting): the strict form requests take.
GivenMoney = AmountText
Ratio = Annotated[str, Field(pattern=r"^[0-9]+(\.[0-9]+)?$", examples=["0.9500"],
                             description="a return to player as exact decimal text (0.95 is 95%)")]
Time = Annotated[str, Field(examples=["2026-12-02T23:33:58.903Z"], description="an ISO 8601 UTC time")]
RoundStatus = Literal["complete", "awaiting", "void", "pending"]
WalletKind = Literal["internal", "seamless"]


class Answer(BaseModel):
    """A body the server builds itself: every field it has is listed here."""

    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    """A body (or part of one) that carries game-specific fields beside the ones listed."""

    model_config = ConfigDict(extra="allow")


# -- the round record -----------------------------------------------------------------------------
class Win(Open):
    """One win of a step; games add fields of their own (a bonus's coins, a fixed jackpot)."""

    kind: str = Field(description="`line`, `scatter`, `count`, `gamble` or a game's own (`feature`)")
    amount: RecordMoney = Field(description="what the win pays")
    symbol: str | None = Field(None, description="the paying symbol (the card or symbol drawn in a gamble)")
    count: int | None = Field(None, description="how many symbols pay")
    line: int | None = Field(None, description="the payline, 1-based (line wins only)")
    multiplier: int | None = Field(None, description="the multiplier applied")


class Event(Open):
    """Something a client shows: free spins awarded, a gamble, a collect, a draw, a game's feature."""

    type: str = Field(description="`free_spins_awarded`, `gamble`, `collect`, `draw`, `feature` ...; "
                                  "the other fields depend on it")


class Step(Open):
    """One screen in play order (a gamble's step names its `card` or the symbol `drawn`)."""

    kind: str = Field(description="`base`, `respin`, `free`, `bonus` or `gamble`")
    screen: list[Any] = Field(description="the screen as evaluated: rows of symbol codes (empty for a gamble)")
    wins: list[Win] = Field(description="what this step paid")
    events: list[Event] = Field(description="what a client shows of this step")


class Awaiting(Open):
    """The decision a round waits for."""

    decision: str = Field(description="the decision's name (`gamble`, `pick`, `start` ...)")
    options: list[str] = Field(description="the choices offered, the safe one first")
    win: RecordMoney = Field(description="the win so far")


class Inputs(Open):
    """What replays the round."""

    random: list[str] = Field(description="the random words consumed, 16 hex digits each")
    script: dict[str, Any] | None = Field(description="forced outcomes (QA fun play), or null")
    choices: list[str] = Field(description="the choices made, in order")
    state: dict[str, Any] = Field(description="the carried state before the round")
    operator: dict[str, Any] = Field(description="the operator settings: `gamble_limit` (an amount or null), "
                                                 "`fun_play`")


class VoidEntry(Open):
    """What voiding a round after it completed moved (the operator's void)."""

    reason: str = Field(description="the operator's reason")
    after_completion: bool = Field(description="true: the round was voided after it was paid")
    refunded: Money = Field(description="the stake refunded")
    win_reversed: Money = Field(description="the part of the win taken back")
    win_not_reversed: Money = Field(description="the part of the win the balance could not give back")


class WalletState(Answer):
    """Where a seamless round stands with the operator's wallet."""

    transaction_id: str = Field(description="the debit's transaction id at the operator's wallet")
    status: Literal["debit_pending", "debited", "credit_pending", "settled", "rollback_pending",
                    "rolled_back"] = Field(description="`debit_pending` until the wallet answers the debit; "
                                                       "`credit_pending` until it acknowledges the win")


class FreeRoundMark(Answer):
    """What marks a free round."""

    grant: int = Field(description="the grant the round was one of")
    campaign: str = Field(description="the operator's reference of the campaign")


class Round(Open):
    """A round as players and operators see it: the engine's record (docs/scripts.md) and the
    server's fields. A round voided before its round function ran, or one whose stake is still
    being debited at a seamless wallet (`pending`), has only part of the record."""

    game: str | None = Field(None, description="the game's code (absent while the round is pending)")
    model: str | None = Field(None, description="the model and version that paid the round, with a fingerprint")
    code: str | None = Field(None, description="the package version and a fingerprint of the engine's and game's code")
    bet: dict[str, Any] | None = Field(None, description="the game's bet fields as played")
    total_bet: RecordMoney | None = Field(None, description="the stake")
    total_win: RecordMoney = Field(description="the win, any progressive jackpot included (so far, while "
                                               "the round waits for a decision)")
    status: RoundStatus = Field(description="`complete`; `awaiting` a decision; `void` (refunded); `pending` "
                                            "(its stake is being debited at a seamless wallet)")
    awaiting: Awaiting | None = Field(None, description="the decision the round waits for, or null")
    steps: list[Step] | None = Field(None, description="every screen in play order")
    state: dict[str, Any] | None = Field(None, description="the player's carried state after the round")
    inputs: Inputs | None = Field(None, description="what replays the round")
    void: VoidEntry | None = Field(None, description="present once the round was voided after it completed")
    id: int = Field(description="the round's id")
    player: int = Field(description="the server's id of the player")
    started_at: Time = Field(description="when the stake was taken")
    finished_at: Time | None = Field(description="when the round completed or was voided; null while open")
    balance_before: Money = Field(description="the balance before the stake")
    balance_after: Money = Field(description="the balance after the round (so far, while open)")
    jackpot_win: Money = Field(description="the progressive jackpot won, part of `total_win`")
    currency: str = Field(description="the player's currency (ISO 4217)")
    void_reason: str | None = Field(None, description="why the round is void (void rounds only)")
    wallet: WalletState | None = Field(None, description="the round at the operator's wallet (seamless only)")
    free_round: FreeRoundMark | None = Field(None, description="a free round: its grant and campaign (its stake the "
                                                               "operator's)")


class RoundAnswer(Answer):
    """A round played or resumed: the round as committed and the balance after it."""

    round: Round = Field(description="the round as committed")
    balance: Money = Field(description="the player's balance after the round")


class RoundPage(Answer):
    """Rounds, newest first, each with its full record."""

    rounds: list[Round] = Field(description="the rounds, newest first")


class VerifiedRound(Answer):
    """One round and whether replaying its inputs gives the same record."""

    round: Round = Field(description="the round as stored")
    verified: bool | None = Field(description="true: the replay matches; false: it does not; null: a void "
                                              "round (nothing was played)")


# -- sessions ---------------------------------------------------------------------------------------
class FunSession(Answer):
    """A fun session: a token for a new player with play money."""

    token: str = Field(description="the session token (`Authorization: Bearer ...`)")
    expires_at: Time = Field(description="when the session expires unless used")
    balance: Money = Field(description="the play money")


class AutoplayRules(Answer):
    """What autoplay the jurisdiction allows."""

    allowed: bool = Field(description="autoplay is offered")
    max_rounds: int = Field(description="the most rounds a plan may have")
    loss_limit_required: bool = Field(description="a plan must set `cash_decrease`")


class JurisdictionRules(Answer):
    """The rules of the session's jurisdiction profile (docs/server.md), enforced by the server."""

    name: str = Field(description="the profile's name (`default`, `uk`, `ontario`, `malta` ...)")
    autoplay: AutoplayRules = Field(description="the autoplay rules")
    min_round_ms: int = Field(description="least time between the starts of two rounds")
    gamble: bool = Field(description="the gamble is offered")
    max_stake: GivenMoney | None = Field(description="largest total bet of one round, or null")
    show_net_position: bool = Field(description="the client must show the net position")
    show_session_timer: bool = Field(description="the client must show the session's time")
    reality_check_s: int | None = Field(description="seconds between reality checks, or null")
    turbo: bool = Field(description="quick spins are allowed")
    recall_rounds: int = Field(description="how many past rounds a player may recall")
    interrupted_round_days: int = Field(description="days before an open round is completed for the player")
    inactivity_minutes: int | None = Field(description="the session's time-out; null: the server's")
    limits: PlayerLimitsRules = Field(description="the limits players may set on their own play")


class PlayerLimitsRules(Answer):
    """The limits players may set on their own play, and how."""

    enabled: bool = Field(description="players may set their own limits (`/v1/limits`)")
    cooling_off_hours: int = Field(description="how long a loosened or removed limit waits before it applies")
    time_out_hours: list[int] = Field(description="the time-outs a player may take, in hours")
    max_session_minutes: int = Field(description="the longest session time limit a player may set")


class RtpRange(Answer):
    """The ends of a game's RTP when it depends on the player's strategy."""

    min: Ratio = Field(description="the lowest RTP")
    max: Ratio = Field(description="the highest RTP")
    min_strategy: str = Field(description="the strategy giving the lowest RTP")
    max_strategy: str = Field(description="the strategy giving the highest RTP")
    min_strategy_text: str = Field(description="the lowest one's strategy, in words")
    max_strategy_text: str = Field(description="the highest one's strategy, in words")


class StakeRule(Answer):
    """How a bet's stake follows from its fields: ``amount`` x each of ``times`` x ``factor``."""

    amount: str = Field(description="the bet field holding an amount (a coin value, a stake)")
    times: list[str] = Field(description="the whole-number bet fields the amount is multiplied by")
    factor: int = Field(description="a constant multiplier (coins per bet level)")


class SessionGame(Answer):
    """A game as the session offers it."""

    code: str = Field(description="the game's code")
    name: str = Field(description="the game's name")
    model: str = Field(description="the model and version, with a fingerprint")
    rtp: Ratio = Field(description="the published RTP")
    rtp_range: RtpRange | None = Field(description="the RTP's ends by strategy, or null")
    rtp_text: str = Field(description="the published RTP as shown (`96.59%`, `92.46% to 95.26%`)")
    bet: dict[str, Any] = Field(description="the game's bet fields with their ranges or values and defaults")
    decisions: dict[str, list[str]] = Field(description="each decision a round may wait for, with its options")
    jackpot: bool = Field(description="the game plays for a progressive jackpot pool")
    stake_rule: StakeRule = Field(description="how a bet's stake follows from its fields")


class FreeRounds(Answer):
    """A player's free rounds: a grant of an operator's campaign."""

    id: int = Field(description="the grant's id: a round request's `free_round`")
    campaign: str = Field(description="the operator's reference of the campaign")
    name: str = Field(description="the campaign's name")
    games: list[str] = Field(description="the games the rounds may be played on")
    bet: dict[str, Any] = Field(description="the bet of every round (the game's bet fields), in the player's currency")
    rounds: int = Field(description="rounds granted")
    played: int = Field(description="rounds played")
    left: int = Field(description="rounds left to play")
    state: Literal["offered", "accepted", "declined", "finished", "lapsed"] = Field(
        description="`offered` (not answered yet, or put off), `accepted`, `declined`, `finished` (all played), "
                    "`lapsed` (the campaign cancelled or over with rounds left)")
    won: Money = Field(description="what the grant's completed rounds have won")
    valid_from: Time = Field(description="when its rounds may first be played")
    valid_until: Time = Field(description="when unplayed rounds lapse")
    gamble: bool = Field(description="whether its rounds offer the gamble")
    jackpot: bool = Field(description="whether its rounds contribute to and may win the progressive jackpot")


class FreeRoundsList(Answer):
    """The player's free rounds to play or to answer."""

    free_rounds: list[FreeRounds] = Field(description="one per grant, oldest first")


class Session(Answer):
    """The player's session: balance, rules, games, open rounds and carried state."""

    player: int = Field(description="the server's id of the player")
    currency: str = Field(description="the player's currency (ISO 4217)")
    mode: Literal["real", "fun"] = Field(description="real money or play money")
    balance: Money = Field(description="the balance (a seamless player's: the last one the operator's wallet "
                                       "reported)")
    wallet: WalletKind = Field(description="where the money is kept: this server, or the operator's wallet")
    jurisdiction: JurisdictionRules = Field(description="the session's jurisdiction and its rules")
    games: list[SessionGame] = Field(description="the games offered, with their bets")
    open_rounds: list[Round] = Field(description="rounds waiting for a decision, to finish before a new round of "
                                                 "their game")
    net_position: SignedMoney = Field(description="wins minus stakes of this session's finished rounds")
    elapsed_s: int = Field(description="seconds since the session opened")
    free_rounds: list[FreeRounds] = Field(description="the player's free rounds to play or to answer (play now, "
                                                      "later, or decline)")
    carried_state: dict[str, dict[str, Any]] = Field(description="per game, the state carried between its rounds "
                                                                 "(Moon of Fortune's stickies)")


# -- autoplay, jackpots, health -------------------------------------------------------------------
class AutoplayPlan(Answer):
    """An autoplay plan: its conditions as asked, and how far it got."""

    id: int = Field(description="the plan's id, given as `autoplay` with each round it counts")
    game: str = Field(description="the game the plan plays")
    bet: dict[str, Any] = Field(description="the bet the plan plays, as asked")
    rounds: int = Field(description="how many rounds the plan plays at most")
    stop_on_any_win: bool = Field(description="stop after any winning round")
    stop_on_feature: bool = Field(description="stop once free spins or a bonus are won")
    single_win_at_least: GivenMoney | None = Field(description="stop on a single win of at least this")
    cash_increase: GivenMoney | None = Field(description="stop once the plan's net gain reaches this")
    cash_decrease: GivenMoney | None = Field(description="the loss limit: stop once the plan's net loss reaches this")
    played: int = Field(description="rounds counted so far")
    net: SignedMoney = Field(description="wins minus stakes of the rounds counted")
    stopped: str | None = Field(description="why the plan stopped (`rounds`, `any_win`, `feature`, "
                                            "`single_win_at_least`, `cash_increase`, `cash_decrease`, `player`), "
                                            "or null while it runs")


# -- players' own limits --------------------------------------------------------------------------
class PendingLoss(Answer):
    """A loss limit's loosening (or removal) waiting out the cooling-off."""

    limit: Money | None = Field(description="the limit that will hold; null: none")
    applies_at: Time = Field(description="when it holds; the limit in force holds until then")


class PendingMinutes(Answer):
    """A session time limit's loosening (or removal) waiting out the cooling-off."""

    limit: int | None = Field(description="the limit that will hold, in minutes; null: none")
    applies_at: Time = Field(description="when it holds; the limit in force holds until then")


class LossLimit(Answer):
    """A net loss limit over a rolling period and where the player stands."""

    limit: Money | None = Field(description="the limit in force; null: none")
    pending: PendingLoss | None = Field(description="a loosening that waits, or null")
    net_loss: Money = Field(description="stakes less wins of the period's rounds (open rounds' stakes counted), "
                                        "0.00 when the player is ahead")
    remaining: Money | None = Field(description="what may still be staked before the limit stops play; null: no "
                                                "limit")


class LossLimits(Answer):
    """The loss limits, one per rolling period."""

    day: LossLimit = Field(description="over the last 24 hours")
    week: LossLimit = Field(description="over the last 7 days")
    month: LossLimit = Field(description="over the last 30 days")


class SessionLimit(Answer):
    """The session time limit."""

    limit: int | None = Field(description="the limit in force, in minutes; null: none")
    pending: PendingMinutes | None = Field(description="a loosening that waits, or null")
    ends_at: Time | None = Field(description="when this session's rounds stop starting; null: no limit")


class TimeOut(Answer):
    """A time-out running."""

    until: Time = Field(description="no round starts before this")


class Limits(Answer):
    """The player's own limits: each in force, any loosening pending and when it applies, a time-out
    running. Tightening holds at once; loosening or removing waits `cooling_off_hours`."""

    currency: str = Field(description="the currency of the loss limits (the player's)")
    cooling_off_hours: int = Field(description="how long a loosened or removed limit waits before it applies")
    time_out_hours: list[int] = Field(description="the time-outs the player may take, in hours")
    max_session_minutes: int = Field(description="the longest session time limit the player may set")
    loss: LossLimits = Field(description="net loss limits per rolling period")
    session_minutes: SessionLimit = Field(description="the session time limit")
    time_out: TimeOut | None = Field(description="the time-out running, or null")


class Pool(Answer):
    """A progressive jackpot pool as players see it."""

    game: str = Field(description="the game playing for the pool")
    currency: str = Field(description="the pool's currency (pools are kept in EUR)")
    current: Money = Field(description="the jackpot now, rounded down to the cent")


class Jackpots(Answer):
    """The current values of the pools the player's games use."""

    pools: list[Pool] = Field(description="one per game playing for a pool")


class GameReadiness(Answer):
    """Whether a game's round function is ready (compiled on a first start)."""

    state: Literal["queued", "compiling", "loading", "ready", "failed"] = Field(
        description="where the game's warm-up stands")
    ready: bool = Field(description="the game is playable")
    for_s: float | None = Field(None, description="seconds in this state (while compiling or loading)")
    seconds: float | None = Field(None, description="seconds the game took to become ready")
    error: str | None = Field(None, description="why it failed")


class Health(Answer):
    """The server serves; `ready` once every game offered is playable."""

    status: Literal["ok"] = Field(description="the server serves")
    ready: bool = Field(description="every game offered is playable")
    games: dict[str, GameReadiness] = Field(description="each game's readiness, by code")


# -- the public catalogue -------------------------------------------------------------------------
class Grid(Answer):
    """The size of a game's screen."""

    rows: int = Field(description="rows of the screen")
    reels: int = Field(description="reels of the screen")


class Volatility(Open):
    """How widely a game's wins vary, from its PAR sheet."""

    word: str = Field(description="the volatility in a word, as the lobby shows it")
    std: str = Field(description="the standard deviation of a round's return, as decimal text")
    index: str = Field(description="the volatility index, as decimal text")
    by_bet: list[dict[str, Any]] = Field(description="the same per bet configuration, where it varies")


class CatalogueGame(Answer):
    """A game as the lobby shows it."""

    code: str = Field(description="the game's code")
    name: str = Field(description="the game's name")
    rtp: Ratio = Field(description="the published RTP")
    rtp_range: RtpRange | None = Field(description="the RTP's ends by strategy, or null")
    rtp_text: str = Field(description="the published RTP as shown")
    model: str = Field(description="the model and version, with a fingerprint")
    grid: Grid = Field(description="the screen's size")
    jackpot: bool = Field(description="the game plays for a progressive jackpot pool")
    volatility: Volatility | None = Field(description="the game's volatility (null without figures)")


class Catalogue(Answer):
    """The games this server offers."""

    games: list[CatalogueGame] = Field(description="the games, in the lobby's order")


class Symbol(Answer):
    """A symbol of the game."""

    code: str = Field(description="the symbol's code, as screens show it")
    kind: str = Field(description="`regular`, `wild`, `scatter` ... as the model says")
    reels: list[int] | None = Field(None, description="the reels (from 1) the symbol can land on, where not every reel")


class GameModel(CatalogueGame):
    """A game's model as a player may read it: what its screen, paytable and rules page show. The
    pays and features are the model file's (docs/engine.md)."""

    symbols: list[Symbol] = Field(description="the game's symbols")
    line_pays: Any = Field(description="pays of line wins, by symbol")
    scatter_pays: Any = Field(description="pays of scatter wins, by symbol")
    count_pays: Any = Field(description="pays of count (anywhere) wins, by symbol")
    count_rule: Any = Field(description="`every` paying symbol pays, or only the `highest` win")
    pay_scale: Any = Field(description="win units per paytable unit")
    wild: Any = Field(description="the wild's rules")
    features: Any = Field(description="the game's features (and the progressive jackpot's rules)")
    bet: Any = Field(description="the game's bet fields with their ranges or values and defaults")
    paylines: list[list[int]] = Field(description="each payline's row per reel")
    decisions: dict[str, list[str]] = Field(description="each decision a round may wait for, with its options")
    stake_rule: StakeRule = Field(description="how a bet's stake follows from its fields")
    resting_screen: list[list[str]] = Field(description="a screen of the game's base reels without a win, shown "
                                                        "before the player's first spin")


# -- the operator's answers -----------------------------------------------------------------------
class OperatorSession(Answer):
    """A session token for a player."""

    token: str = Field(description="the session token (`Authorization: Bearer ...`)")
    expires_at: Time = Field(description="when the session expires unless used")
    play_url: str = Field(description="where the player plays (the settings' `play_url` with the token)")


class Transaction(Answer):
    """The balance after a deposit or withdrawal."""

    player_id: str = Field(description="the operator's id of the player")
    balance: Money = Field(description="the balance after the transaction")
    currency: str = Field(description="the player's currency (ISO 4217)")


class OperatorPlayer(Answer):
    """A player's balance, open rounds and net position."""

    player_id: str = Field(description="the operator's id of the player")
    currency: str = Field(description="the player's currency (ISO 4217)")
    balance: Money = Field(description="the balance (a seamless player's: the last one the operator's wallet reported)")
    wallet: WalletKind = Field(description="where the money is kept: this server, or the operator's wallet")
    open_rounds: list[Round] = Field(description="rounds waiting for a decision")
    net_position: SignedMoney = Field(description="wins minus stakes of all finished rounds")


class Voided(Answer):
    """A void round and the balance after it; voiding again answers the same."""

    round: Round = Field(description="the round, now void")
    balance: Money = Field(description="the player's balance after the void")
    refunded: Literal[True] = Field(description="the stake is refunded")
    win_reversed: Money | None = Field(None, description="the part of the win taken back (a completed round)")
    win_not_reversed: Money | None = Field(None, description="the part of the win the balance could not give back")
    report: str | None = Field(None, description="what could not be reversed, for the operator to recover")
    state_restored: bool | None = Field(None, description="a completed round of a game that carries state: whether "
                                                          "the player's state is back to what it was before the "
                                                          "round (false: a later round played on it)")


class GameFigures(Answer):
    """One game's figures over the period."""

    game: str = Field(description="the game's code")
    rounds: int = Field(description="completed real-money rounds")
    stakes: Money = Field(description="the stakes taken")
    wins: Money = Field(description="the wins paid")
    ggr: SignedMoney = Field(description="gross gaming revenue: stakes minus wins")
    rtp: Ratio = Field(description="the actual return: wins over stakes")
    rtp_ci99: Ratio = Field(description="half the width of the 99% interval of the mean return per round")
    model_rtp: Ratio | None = Field(description="the model's RTP (null for a game no longer offered)")


class FreeFigures(Answer):
    """One game's free rounds over the period: their bets are the operator's promotional money."""

    game: str = Field(description="the game's code")
    rounds: int = Field(description="completed free rounds")
    bets: Money = Field(description="their bets (paid by the operator's campaigns, not by players)")
    wins: Money = Field(description="the wins paid: what the free rounds cost")
    rtp: Ratio | None = Field(description="wins over bets (null without bets)")


class GameReport(Answer):
    """Per game: rounds, stakes, wins, GGR and the actual RTP beside the model's (paid rounds),
    and the free rounds apart."""

    games: list[GameFigures] = Field(description="one entry per game played in the period (paid rounds only)")
    free_rounds: list[FreeFigures] = Field(description="one entry per game with free rounds in the period")


# -- free-round campaigns ----------------------------------------------------------------------------
class Campaign(Answer):
    """A free-round campaign."""

    reference: str = Field(description="the operator's reference")
    name: str = Field(description="its name")
    games: list[str] = Field(description="the games its rounds may be played on")
    bets: dict[str, dict[str, Any]] = Field(description="per currency, the bet of every round (the game's bet fields)")
    stakes: dict[str, dict[str, Money]] = Field(description="per currency and game, a round's stake")
    rounds: int = Field(description="free rounds per player")
    valid_from: Time = Field(description="when its rounds may first be played")
    valid_until: Time = Field(description="when unplayed rounds lapse")
    player_cap: int | None = Field(description="the most players it may be granted to (null: no cap)")
    allow_gamble: bool = Field(description="whether its rounds offer the gamble")
    jackpot_eligible: bool = Field(description="whether its rounds contribute to and may win the progressive jackpot")
    state: Literal["scheduled", "active", "ended", "cancelled"] = Field(description="where it stands now")
    created_at: Time = Field(description="when it was made")
    cancelled_at: Time | None = Field(description="when it was cancelled, or null")


class CurrencyProgress(Answer):
    """A campaign's progress in one currency."""

    players: int = Field(description="players granted")
    rounds_granted: int = Field(description="rounds granted")
    rounds_played: int = Field(description="rounds started (each spends one of its grant's)")
    rounds_complete: int = Field(description="rounds complete")
    bets: Money = Field(description="the bets of the complete rounds (the operator's promotional money)")
    wins_paid: Money = Field(description="the wins paid")
    cost_so_far: Money = Field(description="what the campaign cost so far: the wins paid")
    expected_cost_of_played: Money = Field(description="the complete rounds' bets times their game's RTP")
    expected_cost: Money = Field(description="every round granted times the bet times the RTP (of the campaign's "
                                             "costliest game)")


class Progress(Answer):
    """A campaign's progress: players, rounds, cost so far beside the expected cost."""

    players: int = Field(description="players granted")
    rounds_granted: int = Field(description="rounds granted")
    rounds_played: int = Field(description="rounds started")
    by_currency: dict[str, CurrencyProgress] = Field(description="the figures of each currency")


class CampaignShown(Answer):
    """A campaign and its progress."""

    campaign: Campaign = Field(description="the campaign")
    progress: Progress = Field(description="its progress")


class CampaignPage(Answer):
    """The operator's campaigns, newest first."""

    campaigns: list[Campaign] = Field(description="the campaigns, newest first")


class Grant(Answer):
    """One player's grant of a campaign."""

    player_id: str = Field(description="the operator's id of the player")
    grant: int = Field(description="the grant's id")
    rounds: int = Field(description="rounds granted")
    played: int = Field(description="rounds played")
    state: str = Field(description="`offered`, `accepted`, `declined`, `finished` or `lapsed`")
    new: bool = Field(description="granted by this call (false: granted before, unchanged)")


class Grants(Answer):
    """The grants of a call: one per player asked for."""

    campaign: str = Field(description="the campaign's reference")
    grants: list[Grant] = Field(description="one per player, in the order asked")


# -- errors -----------------------------------------------------------------------------------------
class ErrorAnswer(Open):
    """Every answer other than success. Some errors carry more fields (listed below)."""

    error: str = Field(description="the error's code (`INSUFFICIENT_FUNDS`, `ROUND_IN_PROGRESS` ...)")
    message: str = Field(description="what went wrong, in words, naming the field")
    field: str | None = Field(None, description="the field refused (`bet.lines`, `Idempotency-Key` ...)")
    balance: Money | None = Field(None, description="the balance (`INSUFFICIENT_FUNDS`, `MALFUNCTION`)")
    round: int | None = Field(None, description="the round concerned (`ROUND_IN_PROGRESS`, `MALFUNCTION`, "
                                                "`WALLET_UNAVAILABLE`)")
    reason: str | None = Field(None, description="why the autoplay plan stopped (`AUTOPLAY_STOPPED`)")
    refunded: bool | None = Field(None, description="the round is void and its stake returned (`MALFUNCTION`)")
    warmup: GameReadiness | None = Field(None, description="the game's readiness (`GAME_WARMING_UP`)")
    period: Literal["day", "week", "month"] | None = Field(None, description="the loss limit's period "
                                                                            "(`LOSS_LIMIT_REACHED`)")
    limit: Money | None = Field(None, description="the player's loss limit of the period (`LOSS_LIMIT_REACHED`)")
    remaining: Money | None = Field(None, description="what may still be staked in the period "
                                                      "(`LOSS_LIMIT_REACHED`)")
    minutes: int | None = Field(None, description="the player's session time limit (`SESSION_LIMIT_REACHED`)")
    until: Time | None = Field(None, description="when the player's time-out ends (`TIMED_OUT`)")


@dataclass(frozen=True)
class Refusal:
    """An error a route may answer: its status, its code and when; ``error`` is the domain's
    exception it answers (None: an answer a route builds itself, with the round it concerns)."""

    status: int
    code: str
    when: str
    error: type[errors.DomainError] | None = None


KEY_MISSING = Refusal(400, "IDEMPOTENCY_KEY_MISSING", "a `POST` without its `Idempotency-Key`", errors.KeyMissing)
INVALID_SESSION = Refusal(401, "INVALID_SESSION", "a missing, unknown or expired session token",
                          errors.InvalidSession)
INVALID_API_KEY = Refusal(401, "INVALID_API_KEY", "a missing or unknown operator `X-Api-Key`", errors.InvalidApiKey)
SIGN_IN_REFUSED = Refusal(401, "SIGN_IN_REFUSED", "a wrong name or password, or a locked or disabled account",
                          errors.SignInFailed)
FORBIDDEN = Refusal(403, "FORBIDDEN", "the key's scopes or the user's role do not allow this (the attempt is "
                                      "logged)", errors.Forbidden)
CSRF_REFUSED = Refusal(403, "CSRF_REFUSED", "a signed-in user's write without the session's `X-CSRF-Token`",
                       errors.CsrfRefused)
INSUFFICIENT_FUNDS = Refusal(402, "INSUFFICIENT_FUNDS", "the amount is above the balance (with `balance`); "
                                                        "nothing was taken", errors.InsufficientFunds)
FEATURE_DISABLED = Refusal(403, "FEATURE_DISABLED", "what the jurisdiction or the mode forbids",
                           errors.FeatureDisabled)
LIMIT_EXCEEDED = Refusal(403, "LIMIT_EXCEEDED", "above the jurisdiction's limit", errors.LimitExceeded)
GAME_NOT_ALLOWED = Refusal(403, "GAME_NOT_ALLOWED", "a game not offered, or a jackpot game in a currency "
                                                    "without a rate", errors.GameNotAllowed)
GAMBLE_NOT_ALLOWED = Refusal(403, "GAMBLE_NOT_ALLOWED", "a gamble whose cap cannot be converted into the "
                                                        "player's currency; collect instead", errors.GambleNotAllowed)
LOSS_LIMIT_REACHED = Refusal(403, "LOSS_LIMIT_REACHED", "the stake would take the player's net loss of a period "
                                                        "past their own loss limit (with `period`, `limit` and "
                                                        "`remaining`)", errors.LossLimitReached)
SESSION_LIMIT_REACHED = Refusal(403, "SESSION_LIMIT_REACHED", "the session reached the player's own session time "
                                                              "limit (with `minutes`)",
                                errors.SessionLimitReached)
TIMED_OUT = Refusal(403, "TIMED_OUT", "the player took a time-out (with `until` and `Retry-After`)", errors.TimedOut)
NOT_FOUND = Refusal(404, "NOT_FOUND", "no such round, plan or player of yours", errors.NotFound)
NO_SUCH_PATH = Refusal(404, "NOT_FOUND", "a code that makes no path of this API (`..`, or one holding `/`)",
                       errors.NoSuchPath)
ROUND_IN_PROGRESS = Refusal(409, "ROUND_IN_PROGRESS", "a round of the game waits for a decision (with `round`)",
                            errors.RoundInProgress)
CLAIM_NOT_COMMITTED = Refusal(409, "CLAIM_NOT_COMMITTED", "the claim's round has not committed it and may still "
                                                          "be committing it (with `Retry-After`: until the lease "
                                                          "is over)", errors.ClaimNotCommitted)
REQUEST_IN_PROGRESS = Refusal(409, "REQUEST_IN_PROGRESS", "the same request (or the round's debit at a "
                                                          "seamless wallet) is still running", errors.RequestInProgress)
AUTOPLAY_STOPPED = Refusal(409, "AUTOPLAY_STOPPED", "the autoplay plan stopped (with `reason`)",
                           errors.AutoplayStopped)
TOO_LARGE = Refusal(413, "VALIDATION", "a body over 64 KB", errors.TooLarge)
INVALID_BET = Refusal(422, "INVALID_BET", "a bet (or a script) the game refuses", errors.InvalidBet)
INVALID_CHOICE = Refusal(422, "INVALID_CHOICE", "a choice not offered, or a round that waits for none",
                         errors.InvalidChoice)
KEY_REUSED = Refusal(422, "IDEMPOTENCY_KEY_REUSED", "the key (or `reference`) was used before for another request",
                     errors.KeyReused)
VALIDATION = Refusal(422, "VALIDATION", "a field the server refuses, named in `field`", errors.Invalid)
MIN_ROUND_DURATION = Refusal(429, "MIN_ROUND_DURATION", "rounds closer than the jurisdiction allows "
                                                        "(with `Retry-After`)", errors.TooSoon)
RATE_LIMITED = Refusal(429, "RATE_LIMITED", "too many fun sessions from one address (with `Retry-After`)",
                       errors.RateLimited)
MALFUNCTION = Refusal(500, "MALFUNCTION", "the round failed inside the game: it is void and its stake returned "
                                          "(with `refunded`, `round` and `balance`)")
INTERNAL = Refusal(500, "INTERNAL", "an error of the server's own; nothing was changed", errors.Internal)
WALLET_UNAVAILABLE = Refusal(503, "WALLET_UNAVAILABLE", "the operator's wallet did not take the debit; the round "
                                                        "is void and nothing was taken")
JACKPOT_UNAVAILABLE = Refusal(503, "JACKPOT_UNAVAILABLE", "the jackpot service cannot be reached; nothing was taken "
                                                          "(with `Retry-After`)", errors.JackpotUnavailable)
FREE_ROUNDS_UNAVAILABLE = Refusal(409, "FREE_ROUNDS_UNAVAILABLE", "the free rounds have none left to play: all "
                                                                  "played, declined, lapsed, or the campaign "
                                                                  "cancelled or outside its dates",
                                  free.FreeRoundsUnavailable)
GAME_WARMING_UP = Refusal(503, "GAME_WARMING_UP", "the game's round function is still being compiled "
                                                  "(with `warmup` and `Retry-After`)", errors.GameWarmingUp)

# The one table of the domain's refusals: the HTTP layer answers an error with its row
# (:func:`refusal_of`), and the routes declare theirs from it.
REFUSALS = (KEY_MISSING, INVALID_SESSION, INVALID_API_KEY, SIGN_IN_REFUSED, FORBIDDEN, CSRF_REFUSED,
            INSUFFICIENT_FUNDS, FEATURE_DISABLED, LIMIT_EXCEEDED, LOSS_LIMIT_REACHED, SESSION_LIMIT_REACHED, TIMED_OUT,
            GAME_NOT_ALLOWED, GAMBLE_NOT_ALLOWED, NOT_FOUND, NO_SUCH_PATH, ROUND_IN_PROGRESS, CLAIM_NOT_COMMITTED,
            REQUEST_IN_PROGRESS,
            AUTOPLAY_STOPPED, TOO_LARGE, INVALID_BET, INVALID_CHOICE, KEY_REUSED, VALIDATION, MIN_ROUND_DURATION,
            RATE_LIMITED, MALFUNCTION, INTERNAL, WALLET_UNAVAILABLE, JACKPOT_UNAVAILABLE, GAME_WARMING_UP,
            FREE_ROUNDS_UNAVAILABLE)
BY_ERROR = {refusal.error: refusal for refusal in REFUSALS if refusal.error is not None}


def refusal_of(error: errors.DomainError) -> Refusal:
    """The row of the table that answers ``error`` (its class's, else its nearest base's)."""
    for kind in type(error).__mro__:
        refusal = BY_ERROR.get(kind)
        if refusal is not None:
            return refusal
    raise LookupError(f"no refusal answers {type(error).__name__}")

Responses = dict[int | str, dict[str, Any]]


def refusing(*refusals: Refusal) -> Responses:
    """The error answers of a route, one per status, each naming its codes and when."""
    responses: Responses = {}
    for status in sorted({refusal.status for refusal in refusals}):
        cases = [f"`{refusal.code}`: {refusal.when}" for refusal in refusals if refusal.status == status]
        responses[status] = {"model": ErrorAnswer, "description": "; ".join(cases)}
    return responses


def declare(success: type[BaseModel], *refusals: Refusal) -> Responses:
    """A route's ``responses``: its success model (described by its docstring) and its errors."""
    return {200: {"model": success, "description": (success.__doc__ or "").strip()}, **refusing(*refusals)}


PLAYER = (INVALID_SESSION, VALIDATION)  # every Player API route: its token, its parameters
OPERATOR = (INVALID_API_KEY, FORBIDDEN, CSRF_REFUSED, VALIDATION)  # every Operator API route
POSTED = (KEY_MISSING, REQUEST_IN_PROGRESS, KEY_REUSED, TOO_LARGE)  # a Player API POST (exactly once)

# The Player API
HEALTH = declare(Health)
FUN_SESSION = declare(FunSession, VALIDATION, TOO_LARGE, RATE_LIMITED)
SESSION = declare(Session, *PLAYER)
PLAY_ROUND = declare(RoundAnswer, *PLAYER, *POSTED, INSUFFICIENT_FUNDS, FEATURE_DISABLED, LIMIT_EXCEEDED,
                     LOSS_LIMIT_REACHED, SESSION_LIMIT_REACHED, TIMED_OUT,
                     GAME_NOT_ALLOWED, NOT_FOUND, ROUND_IN_PROGRESS, AUTOPLAY_STOPPED, INVALID_BET,
                     MIN_ROUND_DURATION, MALFUNCTION, WALLET_UNAVAILABLE, JACKPOT_UNAVAILABLE, GAME_WARMING_UP,
                     FREE_ROUNDS_UNAVAILABLE)
DECIDE = declare(RoundAnswer, *PLAYER, *POSTED, GAMBLE_NOT_ALLOWED, NOT_FOUND, INVALID_CHOICE, MALFUNCTION,
                 JACKPOT_UNAVAILABLE, GAME_WARMING_UP)
RECALL = declare(RoundPage, *PLAYER, FEATURE_DISABLED)
ONE_ROUND = declare(VerifiedRound, *PLAYER, NOT_FOUND, GAME_WARMING_UP)
START_AUTOPLAY = declare(AutoplayPlan, *PLAYER, *POSTED, FEATURE_DISABLED, LIMIT_EXCEEDED, GAME_NOT_ALLOWED,
                         INVALID_BET, JACKPOT_UNAVAILABLE)
AUTOPLAY = declare(AutoplayPlan, *PLAYER, NOT_FOUND)
LIMITS = declare(Limits, *PLAYER, FEATURE_DISABLED)
TAKE_TIME_OUT = declare(Limits, *PLAYER, *POSTED, FEATURE_DISABLED)
FREE_ROUNDS = declare(FreeRoundsList, *PLAYER)
ONE_FREE_ROUNDS = declare(FreeRounds, *PLAYER, NOT_FOUND)
ANSWER_OFFER = declare(FreeRounds, *PLAYER, *POSTED, NOT_FOUND, FREE_ROUNDS_UNAVAILABLE)
JACKPOTS = declare(Jackpots, *PLAYER, JACKPOT_UNAVAILABLE)
JACKPOT_STREAM: Responses = {
    200: {"description": "Server-sent events: `values` every second (`{\"pools\": [{\"pool\", \"currency\", "
                         "\"wins\", \"current\"}]}`), `win` as each jackpot is won (`{\"pool\", \"key\", "
                         "\"amount\", \"payout\", \"currency\", \"rate\"}`); the stream never ends by itself",
          "content": {"text/event-stream": {"schema": {"type": "string", "description": "`event: NAME` and "
                                                       "`data: JSON` lines, an empty line after each event"}}}},
    **refusing(*PLAYER),
}

# The public catalogue
CATALOGUE = declare(Catalogue)
GAME_MODEL = declare(GameModel, GAME_NOT_ALLOWED, NO_SUCH_PATH, VALIDATION)

# The Operator API
OPEN_SESSION = declare(OperatorSession, *OPERATOR, TOO_LARGE)
TRANSACTION = declare(Transaction, *OPERATOR, TOO_LARGE, INSUFFICIENT_FUNDS, FEATURE_DISABLED, NOT_FOUND,
                      KEY_REUSED)
OPERATOR_PLAYER = declare(OperatorPlayer, *OPERATOR, NOT_FOUND)
OPERATOR_ROUNDS = declare(RoundPage, *OPERATOR)
VOID_ROUND = declare(Voided, *OPERATOR, TOO_LARGE, NOT_FOUND, REQUEST_IN_PROGRESS)
GAME_REPORT = declare(GameReport, *OPERATOR)
CREATE_CAMPAIGN = declare(Campaign, *OPERATOR, TOO_LARGE, GAME_NOT_ALLOWED, INVALID_BET, KEY_REUSED)
CAMPAIGNS = declare(CampaignPage, *OPERATOR)
CAMPAIGN = declare(CampaignShown, *OPERATOR, NOT_FOUND)
GRANT = declare(Grants, *OPERATOR, TOO_LARGE, NOT_FOUND, LIMIT_EXCEEDED, FREE_ROUNDS_UNAVAILABLE)
CANCEL_CAMPAIGN = declare(CampaignShown, *OPERATOR, NOT_FOUND)


# -- compliance: the change log, integrity, dispute links, erasure (docs/compliance.md) -----------
class ChangeEntry(Answer):
    """One entry of the change log, as appended."""

    id: int = Field(description="the entry's place in the log")
    created_at: Time = Field(description="when the change was made")
    actor: str = Field(description="who made it: `operator:NAME/key:KEY`, `operator:NAME/user:USER`, `admin` "
                                   "(the command line) or `server`")
    kind: str = Field(description="the kind of change (`configuration`, `round_voided` ...)")
    subject: str = Field(description="what it changed: `round:ID`, `game:CODE`, `server` ...")
    before: Any = Field(None, description="the state before the change (JSON), where there was one")
    after: Any = Field(None, description="the state after the change (JSON)")
    previous_hash: str = Field(description="the hash of the entry before (64 zeros for the first)")
    hash: str = Field(description="SHA-256 over this entry's fields and `previous_hash`")


class ChangePage(Answer):
    """Change log entries, newest first: the server's own and this operator's."""

    changes: list[ChangeEntry] = Field(description="the entries, newest first")


class ChainVerdict(Answer):
    """Whether the whole change log's hash chain holds, and its head."""

    intact: bool = Field(description="every entry gives its own hash and links to the one before")
    checked: int = Field(description="entries checked before the first break (all of them when intact)")
    head: str = Field(description="the hash of the last entry that holds: record it outside the server")
    problem: str | None = Field(None, description="the first break, naming the entry")


class GameIntegrity(Answer):
    """A game in play, against its certified manifest."""

    game: str = Field(description="the game's code")
    version: str = Field(description="its model's version")
    model_id: str = Field(description="game/version:fingerprint, as round records name it")
    model_sha256: str = Field(description="SHA-256 of the model file as installed")
    code: str = Field(description="the code that plays it: package version and source hash")
    manifest: str | None = Field(None, description="the certified manifest compared with, in the package")
    status: Literal["certified", "mismatch", "uncertified"] = Field(description="certified: as the manifest "
                                                                    "says; mismatch: it differs; uncertified: none")
    differences: list[str] = Field(description="each field that differs from the manifest")


class PackageDigest(Answer):
    """HMAC-SHA256 over the installed package, keyed by the lab's seed."""

    seed: str = Field(description="the seed asked with (hex)")
    hmac_sha256: str = Field(description="the digest (hex)")
    files: int = Field(description="the files it covers")


class Integrity(Answer):
    """The games in play with their models, versions and code, and their certification."""

    games: list[GameIntegrity] = Field(description="each game this server offers")
    package: PackageDigest | None = Field(None, description="the package's digest, when a seed was given")


class DisputeLinkAnswer(Answer):
    """A signed, expiring link to one round's replay page, to send to a player or a regulator."""

    round: int = Field(description="the round it opens")
    url: str = Field(description="the link: it opens that round's replay, without a login, until it expires")
    expires_at: Time = Field(description="when it stops opening")


class Erased(Answer):
    """A player's id replaced by its pseudonym; the books unchanged."""

    player_id: str = Field(description="the pseudonym that now stands for the player")


EXPORT_STREAM: Responses = {
    200: {"description": "the rows, streamed: CSV with a header line, or one JSON object a line; every amount "
                         "exact decimal text, every time ISO 8601 UTC (columns: docs/compliance.md)",
          "content": {"text/csv": {"schema": {"type": "string", "description": "CSV, a header line first"}},
                      "application/x-ndjson": {"schema": {"type": "string",
                                                          "description": "a JSON object a line"}}}},
    **refusing(*OPERATOR),
}
CHANGES = declare(ChangePage, *OPERATOR)
CHAIN = declare(ChainVerdict, *OPERATOR)
INTEGRITY = declare(Integrity, *OPERATOR)
DISPUTE_LINK = declare(DisputeLinkAnswer, *OPERATOR, TOO_LARGE, NOT_FOUND)
ERASE = declare(Erased, *OPERATOR, TOO_LARGE, NOT_FOUND)
