"""A gamble cap the published rules set in a currency of their own ("doubled win must not exceed
GBP 7,500"), converted into the player's currency at the operator's rates: the same table the
jackpot pools use (``jackpot_rates``, EUR per unit of a currency).

The server plays a round under the lower of the operator's own gamble limit and the converted
cap. When a rate is missing the cap cannot be converted: a real-money round is played as the
rules allow and its gamble's start is refused (the player can still collect), with a message
naming the currency and the missing rate. Fun play risks no money: there the published amount
caps the play money as it stands.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from slotforge.engine.game import GambleCapError, Game
from slotforge.rgs.errors import GambleNotAllowed

Rates = Callable[[str], Decimal | None]
COLLECT = "collect"  # the gamble decision's option that ends it (every gamble offers it)


def gamble_limit(game: Game, limit: Decimal, currency: str, rate_of: Rates, fun: bool = False) -> Decimal:
    """The most a gamble may win in ``currency``: the operator's ``limit``, lowered to the game's
    own cap converted. When the cap cannot be converted: unchanged for real money
    (:func:`refuse_gamble_start` then refuses the gamble itself), the published amount as it
    stands for fun play."""
    if limit <= 0:
        return limit
    try:
        cap = game.gamble_cap(currency, rate_of)
    except GambleCapError:
        cap = game.gamble_cap(currency, lambda _code: Decimal(1)) if fun else None
    return limit if cap is None else min(limit, cap)


def refuse_gamble_start(game: Game, decision: str | None, choice: str, currency: str, rate_of: Rates,
                        fun: bool = False) -> None:
    """Refuse (403 GAMBLE_NOT_ALLOWED, field ``currency``) a real-money choice that starts or
    continues a gamble (the round's ``decision``) whose cap the operator's rates cannot convert
    into ``currency``."""
    if fun or decision != "gamble" or choice == COLLECT:
        return
    try:
        game.gamble_cap(currency, rate_of)
    except GambleCapError as error:
        raise GambleNotAllowed(f"{error}; choose {COLLECT!r} to take the win", field="currency") from error
