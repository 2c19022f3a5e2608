"""What a test needs from the machine beyond Python: a database server, a browser, a command.

Every such test says so with :func:`require` (or :func:`missing` where finding out is an
attempt that failed) before it uses the service. Where the service is missing the test skips on
a developer's machine, so that the rest of the suite still runs there, but FAILS under CI (the
environment variable ``CI`` set), so that a CI run never passes by skipping what it was meant to
test. Import it as ``from services import require`` (``tests/`` is on the import path).

    require(shutil.which("dieharder") is not None, "dieharder is not installed: apt-get install dieharder")

    try:
        connection = psycopg.connect(...)
    except psycopg.OperationalError as error:
        missing(f"PostgreSQL at 127.0.0.1:5432 is not reachable: {error}")
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def require(available: bool, reason: str) -> None:
    """Go on when ``available``; else skip the test, or fail it under CI. ``reason`` says what
    is missing and how to get it (it is the skip's or the failure's message)."""
    __tracebackhide__ = True  # pytest reports the skip or failure where the test asked
    if not available:
        missing(reason)


def missing(reason: str) -> NoReturn:
    """Skip the test for a missing service, or fail it under CI (see :func:`require`)."""
    __tracebackhide__ = True
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (required under CI)")
    pytest.skip(reason)
