"""What a void does beyond the money: the reason must say something, and the state a round
carried to the player's next rounds of its game (Moon of Fortune's sticky symbols) is put back as
it was before the round, unless a later round of the game has played on it (docs/server.md)."""

from __future__ import annotations

import pytest

from slotforge.rgs.audit import audit
from tests.games.test_moon_of_fortune import KEY, QUIET, put
from tests.rounds import open_forced_round

MOON = "moon-of-fortune"
FOUR_CASH = {"bet": {"bet": "1.00"}, "screens": [put(QUIET, {0: "C", 1: "C", 2: "C", 3: "C"})],
             "draws": {"cash_value": [1, 2, 3, 4]}}  # 4 CASH stick for the next spin


def as_screens(script: dict) -> dict:
    from tests.games.test_moon_of_fortune import screen

    return {**script, "screens": [screen(rows) for rows in script["screens"]]}


def forced(api, player, script: dict) -> dict:
    server = api.client.app.state.server
    return open_forced_round(server, f"Bearer {player.token}", server.games[MOON], as_screens(script))


def carried(api, player) -> dict:
    server = api.client.app.state.server
    with server.engine.connect() as conn:
        auth_player = conn.exec_driver_sql(
            "SELECT id FROM players WHERE external_id = ?" if conn.dialect.name == "sqlite" else
            "SELECT id FROM players WHERE external_id = %(p)s",
            (player.player_id,) if conn.dialect.name == "sqlite" else {"p": player.player_id}).scalar_one()
        return server.carried_state(conn, auth_player, server.games[MOON])


def void(api, round_id: int, reason: str = "display fault"):
    return api.operator("POST", f"/v1/operator/rounds/{round_id}/void", json={"reason": reason})


def books_balance(api) -> None:
    with api.client.app.state.server.engine.connect() as conn:
        assert audit(conn) == []


@pytest.mark.parametrize("reason", ["", " ", "   \u3000 "])
def test_a_reason_of_only_spaces_is_refused_naming_the_field(api, games, reason):
    player = api.player("10.00")
    played = player.finish(player.play())["round"]
    refused = void(api, played["id"], reason)
    assert refused.status_code == 422, refused.text
    assert refused.json()["field"] == "reason"
    assert player.get(f"/v1/rounds/{played['id']}").json()["round"]["status"] == "complete"


def test_voiding_the_round_that_left_sticky_symbols_puts_back_the_state_before_it(api, games):
    player = api.player("100.00")
    sticky = forced(api, player, FOUR_CASH)
    assert sticky["status"] == "complete" and len(carried(api, player)[KEY]["held"]) == 4
    voided = void(api, sticky["id"])
    assert voided.status_code == 200, voided.text
    assert voided.json()["state_restored"] is True
    assert carried(api, player) == {}  # the next spin shows no CASH of the voided round
    books_balance(api)


def test_a_void_leaves_the_state_a_later_round_played_on(api, games):
    player = api.player("100.00")
    sticky = forced(api, player, FOUR_CASH)
    later = forced(api, player, {"bet": FOUR_CASH["bet"], "screens": FOUR_CASH["screens"]})  # the stickies expire
    assert later["status"] == "complete" and carried(api, player) == {}
    voided = void(api, sticky["id"])
    assert voided.status_code == 200 and voided.json()["state_restored"] is False
    assert carried(api, player) == {}
    # Voiding the later round too: nothing counts before it, so the state is the empty one again,
    # never the voided first round's stickies (which the later round's record started from).
    assert void(api, later["id"]).json()["state_restored"] is True
    assert carried(api, player) == {}
    books_balance(api)


def test_a_void_of_a_round_of_a_game_without_state_says_nothing_of_state(api, games):
    player = api.player("10.00")
    played = player.finish(player.play())["round"]
    voided = void(api, played["id"])
    assert voided.status_code == 200 and "state_restored" not in voided.json()
