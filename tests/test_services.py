"""The rule for tests needing a service (``tests/services.py``): skip locally, fail under CI."""

from __future__ import annotations

import pytest
from services import missing, require


def test_a_missing_service_skips_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="^no such thing: install it$"):
        require(False, "no such thing: install it")


def test_a_missing_service_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"^no such thing: install it \(required under CI\)$"):
        require(False, "no such thing: install it")
    with pytest.raises(pytest.fail.Exception):
        missing("no such thing")


def test_a_present_service_lets_the_test_go_on(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require(True, "never said") is None
