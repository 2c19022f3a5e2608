"""Wish Upon a Jackpot."""

from slotforge.games.wish_upon_a_jackpot.rules import WishUponAJackpot

__all__ = ["WishUponAJackpot"]
