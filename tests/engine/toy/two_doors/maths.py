"""Two Doors' maths: an exact RTP per strategy."""

from __future__ import annotations

from typing import Any

from slotforge.engine.roles import RtpOptions
from slotforge.maths import exact
from slotforge.maths.game_maths import GameMaths

from .kernels import STAKE_UNITS


class Maths(GameMaths):
    """Two Doors' reports."""

    def feature_report(self, tally, rounds, bet):
        return {}

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """Exact: the spin, the meter's pay every n-th round, and the door the strategy opens
        (doubling is fair, so it changes nothing on average)."""
        f = self.game.features
        spin = exact.screen_maths(self.game.tables.pay, self.game.tables.base, len(self.game.spec.symbols))
        door = f.left_pay if self.game.strategy_index(options.strategy) == 0 else f.right_pay / 2
        parts = {
            "spin": spin.line_rtp + spin.scatter_rtp,
            "meter": f.meter_pay / f.meter_every / STAKE_UNITS,
            "door": door / STAKE_UNITS,
        }
        return {"game": self.game.code, "method": "exact", "rtp": sum(parts.values()), "parts": parts}
