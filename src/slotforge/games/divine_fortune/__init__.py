"""Divine Fortune: Falling Wilds Re-Spins, Wild on Wild, Free Spins and a Jackpot Bonus game."""

from slotforge.games.divine_fortune.rules import DivineFortune

__all__ = ["DivineFortune"]
