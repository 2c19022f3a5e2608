"""``python -m slotforge.cli``: the ``slotforge`` command."""

from slotforge.cli import app

app()
