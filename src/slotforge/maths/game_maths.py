"""The maths role every game's ``maths.py`` plays: its reports, apart from its rules.

Part of the maths core: it knows the engine's :class:`~slotforge.engine.game.Game`, no game of
its own. A game's ``Maths`` class stands above that game's rules (it reads their tables) and
the rules never import it; :func:`slotforge.games.maths_of` finds it by the registration.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from slotforge.engine.bet import Bet
from slotforge.engine.game import Game
from slotforge.engine.roles import RtpOptions


class GameMaths(ABC):
    """A game's maths reports, for the game it is made with (a shipped model or a variant)."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @abstractmethod
    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """The RTP with ``method`` ("exact", or how else) and ``parts``; see ``slotforge rtp``."""

    @abstractmethod
    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
        """Feature frequencies and RTP parts from the simulator's tallies."""

    def jackpot_share(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, float] | None:
        """A progressive jackpot's share of RTP in a simulation, as the game's RTP report counts
        it (``total`` and its parts), or None for a game without one. Its wins are paid by a
        jackpot pool, not by the round, so the simulator adds this share to what players get
        back."""
        return None

    def rtp_configurations(self) -> list[dict[str, Any]]:
        """Bet configurations whose RTP may differ, for the PAR sheet's RTP per configuration (bet
        fields, as ``--bet`` takes them). The default bet alone when every bet has the same RTP."""
        return [{}]

    def par_sections(self) -> list[str]:
        """Game-specific Markdown sections of the PAR sheet (feature tables the model holds)."""
        return []
