"""Coroutines run from a plain test, whatever event loop the test's thread already has."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Result = TypeVar("Result")


def in_a_loop_of_its_own(main: Callable[[], Awaitable[Result]]) -> Result:
    """``asyncio.run(main())`` in a thread of its own: a browser test earlier in the same test
    process (Playwright's synchronous API) may have left an event loop running in this thread,
    where ``asyncio.run`` refuses to start another."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, main()).result()
