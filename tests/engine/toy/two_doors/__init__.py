"""Two Doors: a small test game for the engine's decisions, strategies and carried state, laid out
as every game is (docs/engine.md, "A game's files"): ``model.json``, ``kernels.py``, ``rules.py``
and ``maths.py``.

A 5x3 line spin (A pays on lines; STAR and MOON are two scatters with pays of their own), then:

- carried state: a meter per bet level counts the rounds played at that level; every
  ``meter_every``-th round pays ``meter_pay`` units and empties it;
- decision ``door`` (options ``left``, ``right``): left pays ``left_pay`` units, right flips a
  fair coin (draw ``coin``) for ``right_pay`` units or nothing;
- decision ``double`` (options ``keep``, ``double``), offered on any win: double or nothing on a
  fair coin.

The two decisions' options overlap nowhere in their indexes with the game's list of all choice
names, so a record that labelled options by global ids would show the wrong names.
"""

from .rules import TwoDoors

__all__ = ["TwoDoors"]
