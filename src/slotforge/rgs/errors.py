"""What the server refuses, in the domain's words: the services raise these, and the HTTP layer
answers each with the status and code of its one table (``slotforge.rgs.api.answers.REFUSALS``,
which ``/openapi.json``'s error answers are built from): ``{"error": CODE, "message": ...,
"field"?: ..., ...details}``."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A request refused. ``message`` says why in words, naming the field; ``field`` is the
    field refused; ``retry_after_s`` when trying again later helps; ``details`` are more fields
    of the answer (``balance``, ``round``, ``reason`` ...)."""

    def __init__(self, message: str, *, field: str | None = None, retry_after_s: int | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.retry_after_s = retry_after_s
        self.details = details


# -- who asks --------------------------------------------------------------------------------------
class InvalidSession(DomainError):
    """A missing, unknown or expired session token."""


class InvalidApiKey(DomainError):
    """A missing or unknown operator key."""


class SignInFailed(DomainError):
    """A back-office sign-in refused: wrong name or password, a locked or disabled account."""


class Forbidden(DomainError):
    """A key's scopes or a user's role that do not allow what is asked."""


class CsrfRefused(Forbidden):
    """A signed-in user's write without the session's CSRF token."""


# -- what is asked ---------------------------------------------------------------------------------
class Invalid(DomainError):
    """A field the server refuses."""


class TooLarge(Invalid):
    """A body larger than the server takes."""


class InvalidBet(DomainError):
    """A bet (or a script) the game refuses."""


class InvalidChoice(DomainError):
    """A choice not offered, or a round that waits for none."""


class NotFound(DomainError):
    """No such thing of the asker's."""


class NoSuchPath(NotFound):
    """A code that makes no path of the API."""


class FeatureDisabled(DomainError):
    """What the jurisdiction or the mode forbids."""


class LimitExceeded(DomainError):
    """Above the jurisdiction's limit."""


class GameNotAllowed(DomainError):
    """A game not offered here, or not in this currency."""


class GambleNotAllowed(DomainError):
    """A gamble whose cap cannot be converted into the player's currency."""


# -- twin requests ---------------------------------------------------------------------------------
class KeyMissing(DomainError):
    """A state-changing request without its Idempotency-Key."""


class KeyReused(DomainError):
    """A key (or reference) used before for another request."""


class RequestInProgress(DomainError):
    """The same request, or the round's debit at a seamless wallet, is still running."""


# -- the round's rules -----------------------------------------------------------------------------
class InsufficientFunds(DomainError):
    """The amount is above the balance: nothing was taken."""


class RoundInProgress(DomainError):
    """A round of the game waits for a decision."""


class AutoplayStopped(DomainError):
    """The autoplay plan stopped."""


# A round the player's own limits stop (see :mod:`slotforge.rgs.limits`):
class LossLimitReached(DomainError):
    """A stake that would take the player's net loss of a period past their own loss limit."""


class SessionLimitReached(DomainError):
    """A session past the player's own session time limit."""


class TimedOut(DomainError):
    """A player in a time-out they took."""


class TooSoon(DomainError):
    """Rounds closer than the jurisdiction allows."""


class RateLimited(DomainError):
    """Too many requests of a kind from one address."""


# -- other systems ---------------------------------------------------------------------------------
class ClaimNotCommitted(DomainError):
    """A held jackpot claim whose round has not committed it, and may still be committing it."""


class JackpotUnavailable(DomainError):
    """The jackpot service cannot be reached: nothing was taken."""


class GameWarmingUp(DomainError):
    """The game's round function is still being compiled."""


class Internal(DomainError):
    """An error of the server's own: nothing was changed."""


def field_of(message: str) -> str | None:
    """The field an engine error names ("bet.lines: expected ..." -> "bet.lines")."""
    head = message.split(":", 1)[0]
    return head if head and " " not in head else None


def invalid(field: str, message: str, kind: type[DomainError] = Invalid) -> DomainError:
    """A field refused, naming it: ``kind`` is the refusal (:class:`Invalid`, :class:`InvalidBet`,
    :class:`InvalidChoice`)."""
    return kind(message, field=field)


def not_found(what: str) -> NotFound:
    return NotFound(f"{what} not found")
