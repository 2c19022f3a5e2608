"""The database plumbing under the game server and the jackpot service: connecting, committing
writes durably, and the column types their tables share. It knows no table of either."""

from slotforge.db.columns import Id
from slotforge.db.engine import GroupCommit, Writer, connect, write_connection, write_transaction

__all__ = ["GroupCommit", "Id", "Writer", "connect", "write_connection", "write_transaction"]
