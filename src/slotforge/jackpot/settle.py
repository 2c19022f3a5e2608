"""Settling a round with the jackpot pool: its contribution, and its claim when it won.

A round function never touches the pool (a round must replay to the same record). The server
settles the committed round: a real-money round contributes its share, and a round whose
record says the progressive jackpot was won claims it. The amount paid is the pool's at claim
time, in the pool's currency (EUR); the round's coin win is paid as usual besides.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from slotforge.jackpot.pool import Claim, Contribution, JackpotPool


@dataclass(frozen=True)
class Settlement:
    """What the pool did for one round."""

    contribution: Contribution | None
    claim: Claim | None

    @property
    def payout(self) -> Decimal:
        """The jackpot paid to the round (0 when it won none)."""
        return self.claim.amount if self.claim else Decimal("0.00")


def settle(pool: JackpotPool, round_id: str, stake: Decimal, won: bool, fun_play: bool = False) -> Settlement:
    """Contribute a real-money stake and claim the jackpot if the round won it.

    Fun play neither contributes nor claims (its rounds cannot win the jackpot).
    """
    if fun_play:
        if won:
            raise ValueError(f"round {round_id}: a fun-play round cannot win the jackpot")
        return Settlement(None, None)
    contribution = pool.contribute(round_id, stake)
    claim = pool.claim(round_id) if won else None
    return Settlement(contribution, claim)
