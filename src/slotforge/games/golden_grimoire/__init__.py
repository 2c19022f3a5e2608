"""Golden Grimoire: Mystery symbols that transform and fill rows, free spins with Sticky Mysteries."""

from slotforge.games.golden_grimoire.rules import GoldenGrimoire

__all__ = ["GoldenGrimoire"]
