"""The Player API in this process, on SQLite and on PostgreSQL: exactly once, exact money,
replayable rounds, a player seeing only their own, jurisdictions, interrupted rounds, fun play,
malfunctions and the Mega paid inside a round's total win."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from sqlalchemy import select

from slotforge.engine import round as runner
from slotforge.games.dynasty import Dynasty
from slotforge.rgs.api import access
from slotforge.rgs.audit import audit
from slotforge.rgs.schema import rounds
from slotforge.rgs.store.general import lock_player

from .conftest import losing_screen, make_operator, screen_winning

# Rounds per game and database recalled and replayed here; the crash test replays its rounds too.
ROUNDS_PER_GAME = 150
QUIET = [["TEN", "KING", "MEDUSA", "ACE", "QUEEN"],
         ["ACE", "QUEEN", "LION", "JACK", "TEN"],
         ["JACK", "EAGLE", "MINOTAUR", "KING", "ACE"]]


def bonus_screen(*cells: int) -> list[list[str]]:
    """A Jackpot Bonus game screen landing BONUS on ``cells`` (0-14, reading order)."""
    return [["BONUS" if r * 5 + c in cells else "BLANK" for c in range(5)] for r in range(3)]


# Divine Fortune: three BONUS start the bonus game on cells 0-2, then the grid fills: the Mega.
MEGA_SCRIPT = {
    "screens": [[["BONUS", "BONUS", "BONUS", "ACE", "QUEEN"], *QUIET[1:]],
                bonus_screen(*range(3, 8)), bonus_screen(*range(8, 14)), bonus_screen(14)],
    "draws": {"bonus_cell": [0, 1, 2], "bonus_value": [10] * 15},
}


def books_balance(api) -> None:
    with api.client.app.state.server.engine.connect() as conn:
        assert audit(conn) == []


def balance(player) -> Decimal:
    return Decimal(player.get("/v1/session").json()["balance"])


# -- guarantee 2: exactly once ----------------------------------------------------------------

def test_the_same_key_and_body_returns_the_stored_answer_and_takes_one_stake(api):
    player = api.player("10.00")
    first = player.play(key="k1")
    again = player.play(key="k1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    stake = Decimal(first.json()["round"]["total_bet"])
    assert Decimal(first.json()["round"]["balance_before"]) == Decimal("10.00")
    assert Decimal(first.json()["round"]["balance_after"]) == Decimal("10.00") - stake + (
        Decimal(first.json()["round"]["total_win"]) if first.json()["round"]["status"] == "complete" else 0)
    assert len(player.get("/v1/rounds").json()["rounds"]) == 1
    books_balance(api)


def test_the_same_key_with_another_body_is_refused(api):
    player = api.player("10.00")
    assert player.play(key="k1").status_code == 200
    other = player.play(bet={"lines": 5}, key="k1")
    assert other.status_code == 422
    assert other.json()["error"] == "IDEMPOTENCY_KEY_REUSED"


def test_a_request_without_a_key_is_refused_and_changes_nothing(api):
    player = api.player("10.00")
    answer = player.client.post("/v1/rounds", json={"game": "dynasty"}, headers=player.headers)
    assert answer.status_code == 400
    assert answer.json()["error"] == "IDEMPOTENCY_KEY_MISSING"
    assert balance(player) == Decimal("10.00")


def test_keys_are_scoped_to_the_player(api):
    one, two = api.player("10.00"), api.player("10.00")
    first, second = one.play(key="same"), two.play(key="same")
    assert first.status_code == second.status_code == 200
    assert first.json()["round"]["id"] != second.json()["round"]["id"]


# -- guarantee 3: exact money ------------------------------------------------------------------

def test_a_stake_above_the_balance_is_refused_with_the_balance(api):
    player = api.player("0.10")
    answer = player.play()  # the default Dynasty bet is 20 lines x 0.01 = 0.20
    assert answer.status_code == 402
    assert answer.json() == {"error": "INSUFFICIENT_FUNDS", "message": answer.json()["message"], "balance": "0.10"}
    assert balance(player) == Decimal("0.10")


def test_deposits_are_idempotent_on_their_reference_and_withdrawals_stop_at_zero(api):
    player = api.player("5.00")
    path = f"/v1/operator/players/{player.player_id}/transactions"
    again = api.operator("POST", path, json={"kind": "deposit", "amount": "5.00", "reference": f"d-{player.player_id}"})
    assert again.json()["balance"] == "5.00"
    reused = api.operator("POST", path, json={"kind": "deposit", "amount": "6.00", "reference": f"d-{player.player_id}"})
    assert reused.status_code == 422
    too_much = api.operator("POST", path, json={"kind": "withdrawal", "amount": "5.01", "reference": "w1"})
    assert too_much.status_code == 402
    out = api.operator("POST", path, json={"kind": "withdrawal", "amount": "1.25", "reference": "w2"})
    assert out.json()["balance"] == "3.75"
    books_balance(api)


@pytest.mark.parametrize("amount", [12.5, 12, "12.505", "-1.00", "1e3", "0.00"])
def test_an_amount_must_be_a_positive_decimal_string_of_cents(api, amount):
    player = api.player("1.00")
    path = f"/v1/operator/players/{player.player_id}/transactions"
    answer = api.operator("POST", path, json={"kind": "deposit", "amount": amount, "reference": "x"})
    assert answer.status_code == 422
    assert answer.json()["field"] == "amount"
    assert balance(player) == Decimal("1.00")


# -- guarantee 4: every round replays ----------------------------------------------------------

@pytest.mark.parametrize("game", ["dynasty", "divine-fortune", "golden-grimoire"])
def test_recall_returns_the_newest_rounds_first_and_each_replays(api, game):
    player = api.player("1000.00")
    played = [player.finish(player.play(game))["round"]["id"] for _ in range(ROUNDS_PER_GAME)]
    newest = player.get("/v1/rounds", params={"limit": 10}).json()["rounds"]
    assert [r["id"] for r in newest] == played[::-1][:10]
    page = player.get("/v1/rounds", params={"limit": 5, "before": newest[-1]["id"]}).json()["rounds"]
    assert [r["id"] for r in page] == played[::-1][10:15]
    server = api.client.app.state.server
    with server.engine.connect() as conn:
        records = [json.loads(r) for r in conn.execute(select(rounds.c.record).where(rounds.c.game == game)).scalars()]
    assert len(records) == ROUNDS_PER_GAME
    assert all(runner.replay(server.games[game], record)[0] for record in records)
    assert player.get(f"/v1/rounds/{played[0]}").json()["verified"] is True
    books_balance(api)


def test_a_tampered_record_does_not_verify(api):
    player = api.player("10.00")
    round_id = player.finish(player.play())["round"]["id"]
    server = api.client.app.state.server
    with server.transaction() as conn:
        record = json.loads(conn.execute(select(rounds.c.record).where(rounds.c.id == round_id)).scalar_one())
        record["total_win"] = "999.00"
        conn.execute(rounds.update().where(rounds.c.id == round_id).values(record=json.dumps(record)))
    assert player.get(f"/v1/rounds/{round_id}").json()["verified"] is False


# -- guarantee 6: a player sees only their own ---------------------------------------------------

def test_another_players_round_is_not_found(api):
    owner, other = api.player("10.00"), api.player("10.00")
    round_id = owner.play().json()["round"]["id"]
    assert other.get(f"/v1/rounds/{round_id}").status_code == 404
    assert other.post(f"/v1/rounds/{round_id}/decisions", {"choice": "collect"}).status_code == 404


def test_a_forged_or_expired_token_is_refused(api, clock):
    player = api.player("10.00")
    forged = api.client.get("/v1/session", headers={"Authorization": "Bearer " + "A" * 43})
    assert forged.status_code == 401 and forged.json()["error"] == "INVALID_SESSION"
    assert player.get("/v1/session").status_code == 200
    clock.advance(29 * 60)
    assert player.get("/v1/session").status_code == 200  # activity renews the session
    clock.advance(31 * 60)
    expired = player.get("/v1/session")
    assert expired.status_code == 401 and expired.json()["error"] == "INVALID_SESSION"


def test_bad_requests_name_the_field_and_change_nothing(api):
    player = api.player("10.00")
    headers = {**player.headers, "Idempotency-Key": "bad", "Content-Type": "application/json"}
    cases = [
        (b"{not json", "body"),
        (json.dumps({"game": "dynasty", "colour": "red"}).encode(), "colour"),
        (json.dumps({"game": "dynasty", "bet": {"coin_value": 0.01}}).encode(), "bet.coin_value"),
        (json.dumps({"game": "dynasty", "bet": {"lines": 21}}).encode(), "bet.lines"),
        (json.dumps({"game": 7}).encode(), "game"),
        (b"{" + b'"game": "dynasty", "pad": "' + b"x" * 100_000 + b'"}', "body"),
    ]
    for body, field in cases:
        answer = player.client.post("/v1/rounds", content=body, headers=headers)
        assert 400 <= answer.status_code < 500, (field, answer.status_code)
        assert answer.json()["field"] == field, answer.json()
        assert "Traceback" not in answer.text
    assert balance(player) == Decimal("10.00")
    assert player.get("/v1/rounds").json()["rounds"] == []


# -- fun play and QA scripts ------------------------------------------------------------------------

def test_fun_play_has_play_money_and_no_history(api):
    player = api.fun_player()
    assert player.get("/v1/session").json()["mode"] == "fun"
    assert balance(player) == Decimal("1000.00")
    assert player.play().status_code == 200
    recall = player.get("/v1/rounds")
    assert recall.status_code == 403 and recall.json()["error"] == "FEATURE_DISABLED"


def test_scripts_need_a_qa_server_and_a_fun_session(make_api, games):
    screen = losing_screen(games["dynasty"])
    plain = make_api()
    refused = plain.fun_player().play(script={"screens": [screen]})
    assert refused.status_code == 403 and refused.json()["field"] == "script"
    qa = make_api(qa=True)
    assert qa.player("10.00").play(script={"screens": [screen]}).status_code == 403
    forced = qa.fun_player().play(script={"screens": [screen]})
    assert forced.status_code == 200
    assert forced.json()["round"]["steps"][0]["screen"] == screen
    assert forced.json()["round"]["total_win"] == "0.00"


def test_fun_rounds_never_touch_the_jackpot_pool(make_api):
    qa = make_api(qa=True)
    fun = qa.fun_player()
    before = fun.get("/v1/jackpots").json()
    for _ in range(20):
        fun.finish(fun.play("divine-fortune"))
    full_grid = fun.finish(fun.play("divine-fortune", bet={"bet_level": 2, "coin_value": "0.05"}, script=MEGA_SCRIPT))
    assert full_grid["round"]["jackpot_win"] == "0.00"
    assert full_grid["round"]["total_win"] == "15.00"  # 15 coins of 10 x level 2 x 0.05: the coins only
    assert fun.get("/v1/jackpots").json() == before


# -- the Mega, paid inside the round's total win ----------------------------------------------

def test_a_mega_win_is_claimed_in_the_round_and_paid_inside_its_total_win(api, games):
    """Forced through the round service (real play takes no script over HTTP)."""
    server = api.client.app.state.server
    game = games["divine-fortune"]
    player = api.player("100.00")
    auth = server_auth(api, player)
    bet = game.parse_bet({"bet_level": 2, "coin_value": "0.05"})  # 20 x 2 x 0.05 = 2.00
    script = runner.parse_script(game, {"bet": bet.as_json(), **MEGA_SCRIPT})
    with server.transaction() as conn:
        status, body = server.start_round(conn, lock_player(conn, auth.player_id), auth, game, bet, script, None)
    assert body["round"]["status"] == "awaiting"
    pot = Decimal("10000") + Decimal("2.00") * Decimal("0.037") * Decimal("0.8")  # seed + 80% of 3.7% of 2.00
    done = player.post(f"/v1/rounds/{body['round']['id']}/decisions", {"choice": "start_bonus"}).json()
    record = done["round"]
    coins = sum(Decimal(w["amount"]) for step in record["steps"] for w in step["wins"])
    assert Decimal(record["jackpot_win"]) == pot.quantize(Decimal("0.01"), rounding="ROUND_DOWN") == Decimal("10000.05")
    assert Decimal(record["total_win"]) == coins + Decimal(record["jackpot_win"])
    assert Decimal(done["balance"]) == Decimal("100.00") - Decimal("2.00") + Decimal(record["total_win"])
    # The pool re-seeds at 10,000 plus the reserve (20% of the contribution) plus the cent's fraction left.
    left = pot - Decimal("10000.05")
    assert Decimal(player.get("/v1/jackpots").json()["pools"][0]["current"]) == (
        Decimal("10000") + Decimal("2.00") * Decimal("0.037") * Decimal("0.2") + left).quantize(
        Decimal("0.01"), rounding="ROUND_DOWN")
    books_balance(api)


def server_auth(api, player):
    return access.authenticate(api.client.app.state.server, f"Bearer {player.token}")


# -- interrupted rounds ------------------------------------------------------------------------

def open_gamble(player, games):
    """A Dynasty round that waits at the gamble (found by playing until one does)."""
    for _ in range(500):
        answer = player.play()
        assert answer.status_code == 200, answer.text
        if answer.json()["round"]["status"] == "awaiting":
            return answer.json()["round"]
    raise AssertionError("no winning round in 500")


def test_an_open_round_survives_a_restart_and_comes_back_in_a_new_session(make_api, games):
    api = make_api()
    player = api.player("100.00", player_id="returning")
    waiting = open_gamble(player, games)
    blocked = player.play()
    assert blocked.status_code == 409 and blocked.json()["error"] == "ROUND_IN_PROGRESS"
    api.client.app.state.server.engine.dispose()
    restarted = make_api(operator_key=api.operator_key)  # a new server on the same database
    later = restarted.player("0.00", player_id="returning")  # a new session of the same player
    shown = later.get("/v1/session").json()["open_rounds"]
    assert [r["id"] for r in shown] == [waiting["id"]]
    done = later.post(f"/v1/rounds/{waiting['id']}/decisions", {"choice": "collect"})
    assert done.json()["round"]["status"] == "complete"
    assert done.json()["round"]["total_win"] == waiting["awaiting"]["win"]
    books_balance(restarted)


def test_a_round_left_past_the_limit_is_collected_for_the_player(api, games, clock):
    player = api.player("100.00", player_id="gone")
    waiting = open_gamble(player, games)
    before = Decimal(waiting["balance_after"])
    clock.advance(89 * 86400)
    assert api.player("0.00", player_id="gone").get("/v1/session").json()["open_rounds"] != []
    clock.advance(2 * 86400)
    back = api.player("0.00", player_id="gone")
    session = back.get("/v1/session").json()
    assert session["open_rounds"] == []
    recalled = back.get(f"/v1/rounds/{waiting['id']}").json()
    assert recalled["round"]["status"] == "complete"
    assert recalled["round"]["steps"][-1]["events"][-1]["type"] == "collect"
    assert recalled["round"]["total_win"] == waiting["awaiting"]["win"]
    assert Decimal(session["balance"]) == before + Decimal(waiting["awaiting"]["win"])
    assert recalled["verified"] is True
    books_balance(api)


# -- malfunction -----------------------------------------------------------------------------

class BrokenDynasty(Dynasty):
    """Dynasty whose round function fails: the server must void the round and refund."""

    def run(self, *args, **kwargs):
        raise RuntimeError("the round function failed")


def test_a_failing_round_function_voids_the_round_and_refunds_the_stake(make_api):
    api = make_api(game_objects={"dynasty": BrokenDynasty()})
    player = api.player("10.00")
    answer = player.play(key="m1")
    assert answer.status_code == 500
    body = answer.json()
    assert body["error"] == "MALFUNCTION" and body["refunded"] is True and body["balance"] == "10.00"
    assert "Traceback" not in answer.text and "RuntimeError" not in answer.text
    assert player.play(key="m1").json() == body  # the retry gets the same answer, no second stake
    recalled = player.get(f"/v1/rounds/{body['round']}").json()
    assert recalled["round"]["status"] == "void"
    assert balance(player) == Decimal("10.00")
    books_balance(api)


def test_the_operator_voids_an_open_round_and_the_stake_comes_back(api, games):
    player = api.player("100.00")
    waiting = open_gamble(player, games)
    voided = api.operator("POST", f"/v1/operator/rounds/{waiting['id']}/void", json={"reason": "reel display fault"})
    assert voided.status_code == 200
    assert voided.json()["round"]["status"] == "void"
    assert Decimal(voided.json()["balance"]) == Decimal(waiting["balance_before"])
    assert player.play().status_code == 200  # the game is free again
    books_balance(api)


# -- jurisdictions and autoplay -----------------------------------------------------------------

def test_uk_refuses_autoplay_and_rounds_closer_than_two_and_a_half_seconds(api, clock):
    player = api.player("10.00", jurisdiction="uk")
    plan = player.post("/v1/autoplay", {"game": "dynasty", "rounds": 10, "cash_decrease": "5.00"})
    assert plan.status_code == 403 and plan.json()["error"] == "FEATURE_DISABLED"
    player.finish(player.play())
    clock.advance(2.4)
    soon = player.play()
    assert soon.status_code == 429 and soon.json()["error"] == "MIN_ROUND_DURATION"
    assert soon.headers["Retry-After"] == "1"
    clock.advance(0.1)
    assert player.play().status_code == 200
    session = player.get("/v1/session").json()
    assert session["jurisdiction"]["show_net_position"] and session["jurisdiction"]["show_session_timer"]


def test_default_autoplay_needs_a_loss_limit_and_stays_within_its_rounds(api):
    player = api.player("100.00")
    assert player.post("/v1/autoplay", {"game": "dynasty", "rounds": 10}).json()["field"] == "cash_decrease"
    too_many = player.post("/v1/autoplay", {"game": "dynasty", "rounds": 101, "cash_decrease": "5.00"})
    assert too_many.status_code == 403 and too_many.json()["error"] == "LIMIT_EXCEEDED"


def run_autoplay(player, screens, **conditions):
    """Play forced screens under an autoplay plan until it stops; the rounds played and why."""
    plan = player.post("/v1/autoplay", {"game": "dynasty", "cash_decrease": "90.00", **conditions}).json()
    played = []
    for screen in screens:
        answer = player.play(autoplay=plan["id"], script={"screens": [screen]})
        if answer.status_code == 409:
            assert answer.json()["error"] == "AUTOPLAY_STOPPED"
            return played, answer.json()["reason"]
        played.append(player.finish(answer)["round"])
    raise AssertionError("autoplay never stopped")


@pytest.fixture
def forced(make_api, games):
    """A fun player of a --qa server, and Dynasty screens: losing, a win below 0.20, a win of 0.50 or more."""
    game = games["dynasty"]
    lose = losing_screen(game)
    small, small_win = screen_winning(game, lambda amount: Decimal("0") < amount < Decimal("0.20"))
    big, big_win = screen_winning(game, lambda amount: amount >= Decimal("0.50"))
    return make_api(qa=True).fun_player(), lose, (small, Decimal(small_win)), (big, Decimal(big_win))


def test_autoplay_stops_after_its_rounds(forced):
    player, lose, _, _ = forced
    played, reason = run_autoplay(player, [lose] * 10, rounds=5)
    assert reason == "rounds" and len(played) == 5


def test_autoplay_stops_on_any_win(forced):
    player, lose, (small, _), _ = forced
    played, reason = run_autoplay(player, [lose, lose, small, lose], rounds=100, stop_on_any_win=True)
    assert reason == "any_win" and len(played) == 3


def test_autoplay_stops_at_the_loss_limit(forced):
    player, lose, _, _ = forced
    # Five losing rounds of 0.20 lose 1.00: the limit is reached after the fifth.
    played, reason = run_autoplay(player, [lose] * 10, rounds=100, cash_decrease="1.00")
    assert reason == "cash_decrease" and len(played) == 5


def test_autoplay_stops_on_a_single_win(forced):
    player, lose, (small, _), (big, _) = forced
    played, reason = run_autoplay(player, [small, lose, big, lose], rounds=100, single_win_at_least="0.40")
    assert reason == "single_win_at_least" and len(played) == 3


def test_autoplay_stops_on_a_cash_increase(forced):
    player, lose, _, (big, big_win) = forced
    # A losing round, then the big win: net -0.20 - 0.20 + big_win >= 0.01 after the second round.
    assert big_win - Decimal("0.40") >= Decimal("0.01")
    played, reason = run_autoplay(player, [lose, big, lose, lose], rounds=100, cash_increase="0.01")
    assert reason == "cash_increase" and len(played) == 2


def test_autoplay_stops_on_a_feature(make_api, games):
    api = make_api(qa=True)
    fun = api.fun_player()
    plan = fun.post("/v1/autoplay", {"game": "dynasty", "rounds": 10, "stop_on_feature": True,
                                     "cash_decrease": "100.00"}).json()
    quiet = losing_screen(games["dynasty"])
    assert fun.play(autoplay=plan["id"], script={"screens": [quiet]}).status_code == 200
    scatters = [["EMPEROR", "ACE", "EMPEROR", "KING", "EMPEROR"], *quiet[1:]]
    fun.finish(fun.play(autoplay=plan["id"], script={"screens": [scatters]}))
    stopped = fun.play(autoplay=plan["id"])
    assert stopped.status_code == 409 and stopped.json()["reason"] == "feature"


def test_an_autoplay_plan_belongs_to_its_session(api):
    player = api.player("100.00", player_id="reloader")
    plan = player.post("/v1/autoplay", {"game": "dynasty", "rounds": 5, "cash_decrease": "5.00"}).json()
    reloaded = api.player("0.00", player_id="reloader")
    assert reloaded.get(f"/v1/autoplay/{plan['id']}").status_code == 404
    assert reloaded.play(autoplay=plan["id"]).status_code == 404


def test_ontario_recalls_only_the_last_ten_rounds(api):
    player = api.player("100.00", jurisdiction="ontario")
    ids = [player.finish(player.play())["round"]["id"] for _ in range(12)]
    assert [r["id"] for r in player.get("/v1/rounds", params={"limit": 50}).json()["rounds"]] == ids[::-1][:10]


def test_a_stake_above_the_jurisdictions_limit_is_refused(make_api):
    api = make_api(jurisdictions={"capped": {"max_stake": "1.00"}})
    player = api.player("100.00", jurisdiction="capped")
    answer = player.play(bet={"lines": 20, "coin_value": "0.10"})  # 2.00
    assert answer.status_code == 403 and answer.json()["error"] == "LIMIT_EXCEEDED"
    assert player.play(bet={"lines": 10, "coin_value": "0.10"}).status_code == 200  # 1.00


def test_a_jurisdiction_without_gamble_collects_every_win(make_api):
    api = make_api(jurisdictions={"nogamble": {"gamble": False}})
    player = api.player("100.00", jurisdiction="nogamble")
    for _ in range(100):
        assert player.play().json()["round"]["status"] == "complete"


def test_the_game_report_shows_actual_and_model_rtp(api):
    player = api.player("100.00")
    for _ in range(50):
        player.finish(player.play())
    report = api.operator("GET", "/v1/operator/reports/games").json()["games"]
    assert [g["game"] for g in report] == ["dynasty"]
    row = report[0]
    assert row["rounds"] == 50 and row["stakes"] == "10.00"
    assert Decimal(row["ggr"]) == Decimal(row["stakes"]) - Decimal(row["wins"])
    assert Decimal(row["rtp"]) == (Decimal(row["wins"]) / Decimal("10.00")).quantize(Decimal("0.000001"))
    assert row["model_rtp"] == "0.95"
    # Both figures are exact decimal strings, of the same kind.
    assert isinstance(row["rtp"], str) and isinstance(row["rtp_ci99"], str) and Decimal(row["rtp_ci99"]) > 0


def test_the_operator_sees_its_players_rounds_and_position(api):
    player = api.player("10.00")
    ids = [player.finish(player.play())["round"]["id"] for _ in range(3)]
    listed = api.operator("GET", "/v1/operator/rounds", params={"player": player.player_id, "game": "dynasty"})
    assert [r["id"] for r in listed.json()["rounds"]] == ids[::-1]
    info = api.operator("GET", f"/v1/operator/players/{player.player_id}").json()
    net = sum(Decimal(r["total_win"]) - Decimal(r["total_bet"]) for r in listed.json()["rounds"])
    assert Decimal(info["net_position"]) == net
    assert Decimal(info["balance"]) == Decimal("10.00") + net
    stranger = make_operator(api.client.app)
    assert api.client.get("/v1/operator/rounds", headers={"X-Api-Key": stranger}).json()["rounds"] == []
    assert api.client.get(f"/v1/operator/players/{player.player_id}", headers={"X-Api-Key": stranger}).status_code == 404


def test_a_session_needs_a_known_jurisdiction_and_operator_key(api):
    unknown = api.operator("POST", "/v1/operator/sessions", json={"player_id": "x", "currency": "EUR",
                                                                  "jurisdiction": "atlantis"})
    assert unknown.status_code == 422 and unknown.json()["field"] == "jurisdiction"
    forged = api.client.post("/v1/operator/sessions", json={"player_id": "x", "currency": "EUR"},
                             headers={"X-Api-Key": "forged"})
    assert forged.status_code == 401
    # An operator key is not a player's session: its own code, naming the header.
    assert forged.json()["error"] == "INVALID_API_KEY" and forged.json()["field"] == "X-Api-Key"


# -- "Malfunction voids all plays and pays": after completion too --------------------------------

def winning_round(player, games) -> dict:
    """A completed Dynasty round that won (its gamble, when offered, collected)."""
    for _ in range(500):
        answer = player.play()
        assert answer.status_code == 200, answer.text
        played = player.finish(answer)["round"]
        if played["status"] == "complete" and Decimal(played["total_win"]) > 0:
            return played
    raise AssertionError("no winning round in 500")


def ledger_of(api, round_id: int) -> dict[str, tuple[int, str | None]]:
    from sqlalchemy import select

    from slotforge.rgs.schema import ledger

    with api.client.app.state.server.engine.connect() as conn:
        rows = conn.execute(select(ledger.c.kind, ledger.c.amount, ledger.c.reference).where(
            ledger.c.round_id == round_id)).all()
    return {kind: (amount, reference) for kind, amount, reference in rows}


def test_a_completed_round_voided_refunds_its_stake_and_reverses_its_win_with_the_reason(api, games):
    player = api.player("100.00")
    won = winning_round(player, games)
    before = balance(player)
    stake, win = Decimal(won["total_bet"]), Decimal(won["total_win"])
    voided = api.operator("POST", f"/v1/operator/rounds/{won['id']}/void", json={"reason": "RNG fault 42"})
    assert voided.status_code == 200, voided.text
    body = voided.json()
    assert body["round"]["status"] == "void" and body["round"]["void_reason"] == "RNG fault 42"
    assert Decimal(body["win_reversed"]) == win and body["win_not_reversed"] == "0.00" and "report" not in body
    # As if the round had never been played: the stake back, the win taken back.
    assert balance(player) == before + stake - win == Decimal(body["balance"])
    entries = ledger_of(api, won["id"])
    assert entries["refund"][0] == int(stake * 100) and "RNG fault 42" in entries["refund"][1]
    assert entries["reversal"][0] == int(win * 100) and "RNG fault 42" in entries["reversal"][1]
    # The history shows it void, with what was moved.
    history = player.get(f"/v1/rounds/{won['id']}").json()["round"]
    assert history["status"] == "void" and history["void"]["win_reversed"] == str(win)
    books_balance(api)
    again = api.operator("POST", f"/v1/operator/rounds/{won['id']}/void", json={"reason": "RNG fault 42"})
    assert again.status_code == 200 and balance(player) == Decimal(body["balance"])  # voiding twice moves nothing
    books_balance(api)


def test_a_void_never_takes_the_balance_below_zero_and_reports_what_it_could_not_reverse(api, games):
    player = api.player("100.00")
    won = winning_round(player, games)
    stake, win = Decimal(won["total_bet"]), Decimal(won["total_win"])
    left = balance(player)
    withdrawn = api.operator("POST", f"/v1/operator/players/{player.player_id}/transactions",
                             json={"kind": "withdrawal", "amount": str(left), "reference": "w-all"})
    assert withdrawn.status_code == 200, withdrawn.text
    voided = api.operator("POST", f"/v1/operator/rounds/{won['id']}/void", json={"reason": "display fault"}).json()
    # The refunded stake is all the balance holds: that much of the win is reversed, the rest reported.
    reversed_ = min(win, stake)
    assert Decimal(voided["win_reversed"]) == reversed_
    assert Decimal(voided["win_not_reversed"]) == win - reversed_
    assert balance(player) == Decimal(voided["balance"]) >= 0
    if win > stake:
        assert voided["report"].startswith(f"round {won['id']}: {win - stake:.2f} of its win")
    books_balance(api)


def test_the_audit_finds_a_void_whose_reversal_does_not_match_its_record(api, games):
    import json as json_

    from sqlalchemy import update

    from slotforge.rgs.schema import rounds as rounds_table

    player = api.player("100.00")
    won = winning_round(player, games)
    api.operator("POST", f"/v1/operator/rounds/{won['id']}/void", json={"reason": "fault"})
    server = api.client.app.state.server
    with server.engine.begin() as conn:
        record = json_.loads(conn.execute(rounds_table.select().where(rounds_table.c.id == won["id"])).mappings()
                             .one()["record"])
        record["void"]["win_not_reversed"] = "0.01"
        conn.execute(update(rounds_table).where(rounds_table.c.id == won["id"]).values(record=json_.dumps(record)))
    with server.engine.connect() as conn:
        assert any("void after completion" in line for line in audit(conn))
