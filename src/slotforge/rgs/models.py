"""Request bodies, validated strictly: an unknown field, a float amount or a wrong type is a 422
naming the field."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

# An amount as a decimal string ("12.50"): a JSON number is refused, so no float ever carries money.
Money = Annotated[str, StringConstraints(pattern=r"^[0-9]{1,12}(\.[0-9]{1,2})?$")]
Code = Annotated[str, StringConstraints(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.:@-]+$")]
# A row id as clients may send it: positive and within the database's 64-bit integers.
Id = Annotated[int, Field(ge=1, le=2**63 - 1)]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoundRequest(Body):
    game: Code
    bet: dict[str, Any] = Field(default_factory=dict, description="the game's bet fields (defaults fill the rest)")
    autoplay: Id | None = Field(None, description="the autoplay plan this round counts against")
    script: dict[str, Any] | None = Field(None, description="forced outcomes (QA mode, fun sessions only)")


class DecisionRequest(Body):
    choice: Annotated[str, StringConstraints(min_length=1, max_length=40)]


class AutoplayRequest(Body):
    game: Code
    bet: dict[str, Any] = Field(default_factory=dict)
    rounds: int = Field(ge=1, le=100_000)
    stop_on_any_win: bool = False
    stop_on_feature: bool = False
    single_win_at_least: Money | None = None
    cash_increase: Money | None = None
    cash_decrease: Money | None = Field(None, description="the loss limit")


class FunSessionRequest(Body):
    currency: Currency


class SessionRequest(Body):
    player_id: Code
    currency: Currency
    jurisdiction: Annotated[str, StringConstraints(min_length=1, max_length=40)] = "default"
    language: Annotated[str, StringConstraints(max_length=20)] | None = None


class TransactionRequest(Body):
    kind: Literal["deposit", "withdrawal"]
    amount: Money
    reference: Code


class VoidRequest(Body):
    reason: Annotated[str, StringConstraints(min_length=1, max_length=500)]
