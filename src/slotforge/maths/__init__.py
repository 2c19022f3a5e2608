"""Exact calculators, the simulator and its statistics."""
