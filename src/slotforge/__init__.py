"""slotforge: slot games that follow their published rules, with exact maths and fast simulation."""

__version__ = "0.1.0"
