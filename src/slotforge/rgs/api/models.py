"""Request bodies, validated strictly: an unknown field, a float amount or a wrong type is a 422
naming the field."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from pydantic_core import PydanticCustomError

from slotforge.amounts import AmountText

# An amount as strict decimal text ("12.50"): a JSON number is refused, so no float ever carries money.
Money = AmountText
Code = Annotated[str, StringConstraints(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.:@-]+$")]
# A row id as clients may send it: positive and within the database's 64-bit integers.
Id = Annotated[int, Field(ge=1, le=2**63 - 1)]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]

# Control characters and lone surrogates: PostgreSQL's text cannot hold NUL, no encoder takes a
# lone surrogate, and a log or terminal should never receive a client's escape sequences.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MILLISECOND = timedelta(milliseconds=1)


def printable(text: str) -> str:
    """Free text as given, refused if it holds a control character (NUL, a line break, ESC ...)."""
    found = CONTROL.search(text)
    if found:
        raise PydanticCustomError("text", "expected text without control characters, found {char} at {at}",
                                  {"char": f"U+{ord(found.group()):04X}", "at": found.start()})
    return text


def not_blank(text: str) -> str:
    """Text that says something: refused if it is only spaces (or other white space)."""
    if not text.strip():
        raise PydanticCustomError("blank", "expected some text, got only white space")
    return text


def since_epoch(moment: datetime) -> datetime:
    """A time of the server's clock: one without a zone is UTC; before 1970 (the clock's epoch,
    before any round) it is refused."""
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    if moment < EPOCH:
        raise PydanticCustomError("time", "expected a time from 1970-01-01T00:00:00Z on, got {moment}",
                                  {"moment": moment.isoformat()})
    return moment


def millis(moment: datetime | None) -> int | None:
    """A checked time (:data:`Moment`) as milliseconds since the epoch, exactly (no float, and
    no conversion that could leave datetime's range)."""
    return None if moment is None else (moment - EPOCH) // MILLISECOND


# Free text (a language, a reason, a choice): no control characters; lengths are the field's.
Text = Annotated[str, AfterValidator(printable)]


# A time in a query (ISO 8601; without a zone, UTC), within the server's clock.
Moment = Annotated[datetime, AfterValidator(since_epoch)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoundRequest(Body):
    game: Code
    bet: dict[str, Any] = Field(default_factory=dict, description="the game's bet fields (defaults fill the rest)")
    autoplay: Id | None = Field(None, description="the autoplay plan this round counts against")
    script: dict[str, Any] | None = Field(None, description="forced outcomes (QA mode, fun sessions only)")
    free_round: Id | None = Field(None, description="a free-round grant of the player's (`free_rounds` of the "
                                                    "session): the round is one of its rounds, at its campaign's bet")


class DecisionRequest(Body):
    choice: Annotated[Text, StringConstraints(min_length=1, max_length=40)]


class AutoplayRequest(Body):
    game: Code
    bet: dict[str, Any] = Field(default_factory=dict)
    rounds: int = Field(ge=1, le=100_000)
    stop_on_any_win: bool = False
    stop_on_feature: bool = False
    single_win_at_least: Money | None = None
    cash_increase: Money | None = None
    cash_decrease: Money | None = Field(None, description="the loss limit")


class LossLimits(Body):
    day: Money | None = Field(None, description="the most net loss of any 24 hours; null: no limit")
    week: Money | None = Field(None, description="the most net loss of any 7 days; null: no limit")
    month: Money | None = Field(None, description="the most net loss of any 30 days; null: no limit")


class LimitsRequest(Body):
    """The limits the player wants, all of them: a limit left out or null is no limit (removing
    one, like loosening it, waits out the cooling-off)."""

    loss: LossLimits = Field(default_factory=LossLimits, description="net loss limits per rolling period, "
                                                                       "in the player's currency")
    session_minutes: int | None = Field(None, ge=1, description="the session time limit in minutes; null: none")


class TimeOutRequest(Body):
    hours: int = Field(description="how long to block play: one of the jurisdiction's `time_out_hours`")


class FunSessionRequest(Body):
    currency: Currency


class SessionRequest(Body):
    player_id: Code
    currency: Currency
    jurisdiction: Annotated[Text, StringConstraints(min_length=1, max_length=40)] = "default"
    language: Annotated[Text, StringConstraints(max_length=20)] | None = None


class TransactionRequest(Body):
    kind: Literal["deposit", "withdrawal"]
    amount: Money
    reference: Code


class VoidRequest(Body):
    reason: Annotated[Text, StringConstraints(min_length=1, max_length=500), AfterValidator(not_blank)] = Field(
        description="why the round is void (kept with the round and its ledger entries); not only spaces")


class CampaignRequest(Body):
    """A free-round campaign: its games, a bet per currency, rounds per player and its dates."""

    reference: Code = Field(description="the operator's own reference, unique per operator (a repeat with the same "
                                        "body answers the campaign)")
    name: Annotated[Text, StringConstraints(min_length=1, max_length=200), AfterValidator(not_blank)]
    games: list[Code] = Field(min_length=1, max_length=20, description="the games its rounds may be played on")
    bets: dict[Currency, dict[str, Any]] = Field(min_length=1, description="per currency, the bet of every round: "
                                                                           "the game's bet fields, a bet option of "
                                                                           "each game")
    rounds: int = Field(ge=1, le=10_000, description="free rounds per player")
    valid_from: Moment = Field(description="when its rounds may first be played (ISO 8601; UTC without a zone)")
    valid_until: Moment = Field(description="when unplayed rounds lapse (exclusive)")
    player_cap: int | None = Field(None, ge=1, le=10_000_000, description="the most players it may be granted to")
    allow_gamble: bool = Field(False, description="whether its rounds offer the gamble")
    jackpot_eligible: bool = Field(False, description="whether its rounds contribute to and may win the progressive "
                                                      "jackpot")


class GrantedPlayer(Body):
    player_id: Code = Field(description="the operator's id of the player (created on first use)")
    currency: Currency = Field(description="the player's currency: one the campaign has a bet in")


class GrantRequest(Body):
    """Players to grant a campaign's rounds to (a player granted already keeps their grant)."""

    players: list[GrantedPlayer] = Field(min_length=1, max_length=1000)


class OfferAnswer(Body):
    choice: Literal["accept", "later", "decline"] = Field(description="play now, put off, or give the rounds up")
