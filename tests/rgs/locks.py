"""Calls that wait for a row lock on PostgreSQL, for the tests of a round's database functions."""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import Engine, text


def caller_waits(engine: Engine) -> bool:
    """Whether a session of the test's database waits for a lock (seen from a connection of its own)."""
    with engine.connect() as conn:
        return bool(conn.execute(text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                      "AND datname = current_database()")).scalar_one())


def waiting_for_a_lock(engine: Engine, call: Callable[[], None]) -> threading.Thread:
    """``call`` started in a thread of its own, once it waits for a lock the test holds."""
    caller = threading.Thread(target=call)
    caller.start()
    for _ in range(200):
        if caller_waits(engine):
            break
        caller.join(0.05)
    assert caller.is_alive(), "the call waits for the player's row"
    return caller
