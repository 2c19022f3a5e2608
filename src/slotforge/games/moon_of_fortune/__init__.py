"""Moon of Fortune: count pays on 16 independent reels, Sticky to Infinity and Hold the Jackpot."""

from slotforge.games.moon_of_fortune.rules import MoonOfFortune

__all__ = ["MoonOfFortune"]
