"""How the server processes log: a line per record, its time, level and logger first.

httpx's own line for every request it sends is left out: a game server calls its jackpot
service every second (the held claims' reconciler) and its outbox calls wallets all the time,
and the callers log what went wrong themselves.
"""

from __future__ import annotations

import logging

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure() -> None:
    """Log INFO and above to standard error, without httpx's line per request."""
    logging.basicConfig(level=logging.INFO, format=FORMAT)
    logging.getLogger("httpx").setLevel(logging.WARNING)
