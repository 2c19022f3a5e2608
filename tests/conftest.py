"""Shared fixtures: games are loaded once per session (compilation is cached on disk)."""

from __future__ import annotations

import pytest

from slotforge.games import load_game


@pytest.fixture(scope="session")
def dynasty():
    return load_game("dynasty")
