"""Progressive jackpots: the pool interface, an in-memory pool, and round settlement."""

from slotforge.jackpot.pool import (
    Claim,
    ClaimLocked,
    Contribution,
    InMemoryPool,
    JackpotError,
    JackpotPool,
    PoolConfig,
    PoolState,
    split,
)
from slotforge.jackpot.settle import Settlement, settle

__all__ = [
    "Claim", "ClaimLocked", "Contribution", "InMemoryPool", "JackpotError", "JackpotPool",
    "PoolConfig", "PoolState", "Settlement", "settle", "split",
]
