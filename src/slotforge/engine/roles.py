"""What a game declares beside its rules: its capabilities, and the role its maths plays.

A game is three roles kept apart (docs/engine.md, "A game's files"):

- the **rules** (:class:`slotforge.engine.game.Game`, in the game's ``rules.py``): the model,
  the compiled round, bets, scripts, carried state and the record's wording;
- the **maths** (:class:`slotforge.maths.game_maths.GameMaths`, in the game's ``maths.py``): the RTP report, the
  simulator's feature figures, a jackpot pool's share and the PAR sheet's own sections. It
  stands above the rules (it reads their tables) and the rules never import it;
- the **capabilities** (:class:`Capabilities`): what the server and the command line may
  rely on, declared on the rules' class instead of guessed from which methods it has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Capabilities:
    """What a game does beyond a plain round, as its rules declare it.

    ``carries_state``: a player's rounds carry state from one to the next (the game overrides
    ``state_array`` and ``updated_state``); ``jackpot_pool``: a progressive jackpot pool pays
    part of its wins (the game offers ``pool_config``); ``rtp_follows_strategy``: its RTP report
    follows ``RtpOptions.strategy`` (its decisions can move the return, or its report simulates
    them), so ``slotforge rtp --strategy`` is accepted.
    """

    carries_state: bool = False
    jackpot_pool: bool = False
    rtp_follows_strategy: bool = False


@dataclass(frozen=True)
class RtpOptions:
    """What an RTP report is asked for: which bet and strategy, and, where the report simulates,
    its budget (rounds or seconds; the game's default when neither is given), a progress
    callback ``(done, total)`` and the Dask cluster to run its chunks on (an address or
    ``local:N``; see :mod:`slotforge.maths.cluster`)."""

    bet: dict[str, Any] | None = None
    strategy: str | None = None
    rounds: int | None = None
    seconds: float | None = None
    progress: Callable[[int, int], None] | None = None
    cluster: str | None = None
