"""Column types that the game server's tables and the jackpot service's share."""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer

# An autoincrementing 64-bit key (SQLite makes only INTEGER PRIMARY KEY its rowid alias).
Id = BigInteger().with_variant(Integer, "sqlite")
