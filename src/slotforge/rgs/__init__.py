"""The game server (RGS): every game of :mod:`slotforge.games` playable over HTTP.

The server is thin: handlers validate, the engine's round runner plays the round, and the
stake, the round record, the win, the ledger entries and the jackpot contribution are committed
in one database transaction before the reply. See ``docs/server.md``.
"""
