"""Dynasty: stacked SEAL wilds, EMPEROR scatters, doubled free spins and a card gamble."""

from slotforge.games.dynasty.rules import Dynasty

__all__ = ["Dynasty"]
