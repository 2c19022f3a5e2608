"""Rounds with a forced outcome, opened on a running server's database.

Real play takes no scripts over HTTP, so a test that needs a given outcome on a served server
(a Mega win, say) opens the round through the round service itself, as a second worker on that
server's database would; the player then plays it on over HTTP like any other round.
"""

from __future__ import annotations

from typing import Any

from slotforge.engine import round as runner
from slotforge.engine.game import Game
from slotforge.rgs.api import access
from slotforge.rgs.rounds.service import Server
from slotforge.rgs.store.general import lock_player


def open_forced_round(server: Server, authorization: str, game: Game, script: dict[str, Any]) -> dict[str, Any]:
    """Start ``script``'s round (its ``bet`` and forced screens and draws) for the player of
    ``authorization`` and commit it; the round as the player API shows it."""
    bet = game.parse_bet(script["bet"])
    auth = access.authenticate(server, authorization)
    forced = runner.parse_script(game, {**script, "bet": bet.as_json()})
    with server.transaction() as conn:
        _, body = server.start_round(conn, lock_player(conn, auth.player_id), auth, game, bet, forced, None)
    return body["round"]
