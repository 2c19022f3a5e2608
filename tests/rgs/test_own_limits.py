"""Players' own limits, scenario by scenario, on SQLite and PostgreSQL: a loss limit stops play at
the limit exactly, on the internal wallet and at a seamless wallet; tightening holds at once,
loosening only after the cooling-off (the server's clock moved by the test); a time-out blocks
play until it ends; a session time limit stops the session's rounds; bad input names the field.
The rounds are the engine's own, their outcomes forced (a losing screen, a known win) so that the
loss is known to the cent."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import content_type_conformance, response_schema_conformance, status_code_conformance

from slotforge.engine import round as runner
from slotforge.rgs import limits
from slotforge.rgs.api import access, answers
from slotforge.rgs.settings import SettingsError, load_settings

from .conftest import Api, losing_screen, screen_winning
from .wallets import OPERATOR, WalletProcess, seamless_operator

GUARDED = "guarded"
JURISDICTIONS = {GUARDED: {"gamble": False, "limits": {"enabled": True, "cooling_off_hours": 24,
                                                        "time_out_hours": [1, 24], "max_session_minutes": 120}}}
# Sessions that outlast the days the tests move the clock by (a session idle 30 minutes expires).
LONG_SESSIONS = 90 * 24 * 60
HALF = {"lines": 10}  # Dynasty's bet of 0.10 (the default is 0.20)


@pytest.fixture
def forced(monkeypatch, games):
    """Every round's first screen as the test sets ``forced.screen`` (a losing one at first): the
    round function runs as ever, its outcome forced by a script, so a real-money round loses or
    wins exactly what the test says."""
    game = games["dynasty"]
    real = runner.play_round

    class Forced:
        screen = losing_screen(game)

    def play_round(game, bet, script=None, **options):
        script = runner.parse_script(game, {"screens": [Forced.screen], "bet": bet.as_json()})
        return real(game, bet, script=script, **options)

    monkeypatch.setattr(runner, "play_round", play_round)
    return Forced


@pytest.fixture(scope="module")
def wallet(tmp_path_factory):
    process = WalletProcess(tmp_path_factory.mktemp("wallet")).start()
    yield process
    process.kill()


def internal_api(make_api, games) -> Api:
    """A server keeping its players' money itself."""
    return make_api({"dynasty": games["dynasty"]}, jurisdictions=JURISDICTIONS, session_minutes=LONG_SESSIONS)


def casino_api(make_api, games, wallet: WalletProcess) -> Api:
    """A server whose operator ``casino`` keeps its players' money at the reference wallet."""
    api = make_api({"dynasty": games["dynasty"]}, operators=seamless_operator(wallet.url),
                   jurisdictions=JURISDICTIONS, session_minutes=LONG_SESSIONS)
    server = api.client.app.state.server
    with server.transaction() as conn:
        key = access.add_operator(conn, OPERATOR, server.now())
    return Api(api.client, key)


@pytest.fixture
def internal(make_api, games) -> Api:
    return internal_api(make_api, games)


@pytest.fixture
def casino(make_api, games, wallet) -> Api:
    return casino_api(make_api, games, wallet)


@pytest.fixture(params=["internal", "seamless"])
def any_player(request, make_api, games, wallet):
    """A player of the guarded jurisdiction with 100.00, on each wallet in turn."""
    if request.param == "internal":
        return internal_player(internal_api(make_api, games))
    return seamless_player(casino_api(make_api, games, wallet), wallet)


def internal_player(api: Api, balance: str = "100.00"):
    return api.player(balance, jurisdiction=GUARDED)


def seamless_player(api: Api, wallet: WalletProcess, balance: str = "100.00"):
    player = api.player("0.00", jurisdiction=GUARDED)
    wallet.deposit(player.player_id, balance)
    return player


def set_limits(player, **body):
    return player.client.put("/v1/limits", json=body, headers=player.headers)


def play_until_refused(player, bet=None) -> tuple[list[str], dict]:
    """Rounds until one is refused: the stakes played and the refusal."""
    stakes = []
    for _ in range(100):
        answer = player.play(bet=bet)
        if answer.status_code != 200:
            return stakes, {"status": answer.status_code, **answer.json()}
        assert answer.json()["round"]["status"] == "complete", answer.text
        stakes.append(answer.json()["round"]["total_bet"])
    raise AssertionError("a hundred rounds and no refusal")


# -- a loss limit stops play at the limit exactly --------------------------------------------------

def test_a_loss_limit_stops_play_at_the_limit_exactly(any_player, forced):
    """Limit 0.90: four losing rounds of 0.20 (0.80 lost), then 0.20 more is refused with 0.10
    remaining; a round of 0.10 reaches the limit exactly and is played; then nothing is."""
    player = any_player
    set = set_limits(player, loss={"day": "0.90"})
    assert set.status_code == 200, set.text
    assert set.json()["loss"]["day"] == {"limit": "0.90", "pending": None, "net_loss": "0.00", "remaining": "0.90"}
    stakes, refused = play_until_refused(player)
    assert stakes == ["0.20"] * 4
    assert refused["status"] == 403 and refused["error"] == "LOSS_LIMIT_REACHED", refused
    assert (refused["field"], refused["period"], refused["limit"], refused["remaining"]) == (
        "loss.day", "day", "0.90", "0.10")
    assert "loss limit of 0.90" in refused["message"] and "0.10 remains" in refused["message"]
    exact = player.play(bet=HALF)
    assert exact.status_code == 200, exact.text
    assert exact.json()["round"]["total_bet"] == "0.10"
    again = player.play(bet=HALF)
    assert again.status_code == 403 and again.json()["remaining"] == "0.00"
    answers.ErrorAnswer.model_validate(again.json())  # as /openapi.json declares it
    whole = answers.Limits.model_validate(player.get("/v1/limits").json())
    assert whole.loss.day.model_dump() == {"limit": "0.90", "pending": None, "net_loss": "0.90", "remaining": "0.00"}
    # A new limit for another period counts the rounds already played.
    week = set_limits(player, loss={"day": "0.90", "week": "5.00"}).json()["loss"]["week"]
    assert (week["net_loss"], week["remaining"]) == ("0.90", "4.10")


def test_rounds_sent_at_once_stop_at_the_limit_too(any_player, forced):
    """Eight losing rounds of 0.20 sent together under a limit of 0.60: exactly three are played,
    each round's check seeing the rounds committed before it (the player's row locked)."""
    set_limits(any_player, loss={"day": "0.60"})
    with ThreadPoolExecutor(8) as pool:
        statuses = sorted(answer.status_code for answer in pool.map(lambda _: any_player.play(), range(8)))
    assert statuses == [200] * 3 + [403] * 5, statuses
    assert any_player.get("/v1/limits").json()["loss"]["day"]["net_loss"] == "0.60"


def test_each_period_counts_its_own_rounds_and_a_win_frees_what_it_won(internal, forced, games, clock):
    player = internal_player(internal)
    set_limits(player, loss={"day": "0.40", "week": "1.00"})
    assert play_until_refused(player)[0] == ["0.20"] * 2
    # Two days later the day's loss is gone, the week's is not.
    clock.advance(2 * 24 * 3600)
    stakes, refused = play_until_refused(player)
    assert stakes == ["0.20"] * 2 and refused["period"] == "day"
    clock.advance(2 * 24 * 3600)
    stakes, refused = play_until_refused(player)
    assert stakes == ["0.20"] and refused["period"] == "week" and refused["remaining"] == "0.00"
    # A round won pays back into the period: net loss is stakes less wins.
    screen, amount = screen_winning(games["dynasty"], lambda win: Decimal("0.20") < win <= Decimal("1.00"))
    clock.advance(7 * 24 * 3600 + 1)
    forced.screen = screen
    assert player.play().status_code == 200
    week = player.get("/v1/limits").json()["loss"]["week"]
    ahead = Decimal(amount) - Decimal("0.20")
    assert week["net_loss"] == "0.00" and Decimal(week["remaining"]) == Decimal("1.00") + ahead, week


# -- tightening at once, loosening after the cooling-off -------------------------------------------

def test_tightening_holds_at_once_and_loosening_only_after_the_cooling_off(internal, forced, clock):
    player = internal_player(internal)
    assert set_limits(player, loss={"day": "1.00"}).json()["loss"]["day"]["limit"] == "1.00"
    tighter = set_limits(player, loss={"day": "0.20"}).json()["loss"]["day"]
    assert tighter["limit"] == "0.20" and tighter["pending"] is None
    assert play_until_refused(player)[0] == ["0.20"]
    answer = set_limits(player, loss={"day": "0.60"}).json()
    answers.Limits.model_validate(answer)
    looser = answer["loss"]["day"]
    assert looser["limit"] == "0.20", "the old limit holds during the cooling-off"
    assert looser["pending"]["limit"] == "0.60"
    applies_at = looser["pending"]["applies_at"]
    refused = player.play()
    assert refused.status_code == 403 and refused.json()["limit"] == "0.20"
    # Asking again does not put the change off.
    clock.advance(3600)
    assert set_limits(player, loss={"day": "0.60"}).json()["loss"]["day"]["pending"]["applies_at"] == applies_at
    clock.advance(23 * 3600 - 1)
    assert player.play().status_code == 403, "a second before the cooling-off ends"
    clock.advance(1)
    shown = player.get("/v1/limits").json()["loss"]["day"]
    assert shown["limit"] == "0.60" and shown["pending"] is None
    assert player.play().status_code == 200


def test_removing_a_limit_waits_and_asking_for_the_limit_in_force_cancels_it(internal, forced, clock):
    player = internal_player(internal)
    set_limits(player, loss={"week": "0.20"}, session_minutes=60)
    removed = set_limits(player).json()
    assert removed["loss"]["week"]["limit"] == "0.20" and removed["loss"]["week"]["pending"]["limit"] is None
    assert removed["session_minutes"]["limit"] == 60 and removed["session_minutes"]["pending"]["limit"] is None
    kept = set_limits(player, loss={"week": "0.20"}, session_minutes=60).json()
    assert kept["loss"]["week"]["pending"] is None and kept["session_minutes"]["pending"] is None
    clock.advance(25 * 3600)
    assert player.get("/v1/limits").json()["loss"]["week"]["limit"] == "0.20", "the cancelled removal never applies"


# -- time-outs and session time limits --------------------------------------------------------------

def test_a_time_out_blocks_play_cannot_be_shortened_and_expires(internal, forced, clock):
    player = internal_player(internal)
    taken = player.post("/v1/limits/time-out", {"hours": 24})
    assert taken.status_code == 200, taken.text
    until = taken.json()["time_out"]["until"]
    refused = player.play()
    assert refused.status_code == 403 and refused.json()["error"] == "TIMED_OUT"
    assert refused.json()["until"] == until and int(refused.headers["Retry-After"]) == 24 * 3600
    shorter = player.post("/v1/limits/time-out", {"hours": 1})
    assert shorter.status_code == 200 and shorter.json()["time_out"]["until"] == until, "never shortened"
    clock.advance(24 * 3600 - 1)
    assert player.play().status_code == 403
    clock.advance(1)
    assert player.play().status_code == 200
    assert player.get("/v1/limits").json()["time_out"] is None


def test_a_session_time_limit_stops_the_sessions_rounds(any_player, forced, clock):
    player = any_player
    set_limits(player, session_minutes=30)
    clock.advance(30 * 60 - 1)
    assert player.play().status_code == 200
    clock.advance(1)
    refused = player.play()
    assert refused.status_code == 403, refused.text
    assert (refused.json()["error"], refused.json()["field"], refused.json()["minutes"]) == (
        "SESSION_LIMIT_REACHED", "session_minutes", 30)


@pytest.mark.parametrize("wallet_kind", ["internal", "seamless"])
def test_a_free_round_stakes_nothing_of_a_loss_limit_but_a_time_out_stops_it(wallet_kind, make_api, games, wallet,
                                                                              forced, clock):
    """A free round's stake is the operator's: a player at their loss limit still plays it, and it
    counts nothing against the limit; a time-out stops free rounds as it stops the rest."""
    api = internal_api(make_api, games) if wallet_kind == "internal" else casino_api(make_api, games, wallet)
    player = internal_player(api) if wallet_kind == "internal" else seamless_player(api, wallet)
    start = datetime.fromtimestamp(clock.now, UTC)
    campaign = api.operator("POST", "/v1/operator/free-rounds/campaigns", json={
        "reference": f"c-{secrets.token_hex(4)}", "name": "Spins", "games": ["dynasty"],
        "bets": {"EUR": {"lines": 20, "coins_per_line": 1, "coin_value": "0.05"}}, "rounds": 2,
        "valid_from": (start - timedelta(minutes=1)).isoformat(), "valid_until": (start + timedelta(days=2)).isoformat()})
    assert campaign.status_code == 200, campaign.text
    granted = api.operator("POST", f"/v1/operator/free-rounds/campaigns/{campaign.json()['reference']}/grants",
                           json={"players": [{"player_id": player.player_id, "currency": "EUR"}]})
    grant_id = granted.json()["grants"][0]["grant"]
    set_limits(player, loss={"day": "0.40"})
    stakes, refused = play_until_refused(player)
    assert stakes == ["0.20", "0.20"] and refused["error"] == "LOSS_LIMIT_REACHED"
    free = player.play(free_round=grant_id)
    assert free.status_code == 200, free.text
    assert free.json()["round"]["total_bet"] == "1.00" and free.json()["round"]["free_round"]["grant"] == grant_id
    assert player.get("/v1/limits").json()["loss"]["day"]["net_loss"] == "0.40", "the operator's stake is not a loss"
    assert player.post("/v1/limits/time-out", {"hours": 1}).status_code == 200
    timed_out = player.play(free_round=grant_id)
    assert timed_out.status_code == 403 and timed_out.json()["error"] == "TIMED_OUT"
    clock.advance(3600)
    assert player.play(free_round=grant_id).status_code == 200, "the grant's last round, after the time-out"


def test_a_time_out_at_a_seamless_wallet_sends_no_debit(casino, wallet, forced):
    player = seamless_player(casino, wallet, "5.00")
    assert player.post("/v1/limits/time-out", {"hours": 1}).status_code == 200
    assert player.play().status_code == 403
    assert wallet.balance(player.player_id) == "5.00", "nothing was debited"


# -- refusals of bad input and where limits are not offered ---------------------------------------

def test_bad_input_names_the_field_and_what_is_allowed(internal):
    player = internal_player(internal)
    cases = [
        ({"loss": {"day": "0.001"}}, "loss.day", "0.001"),
        ({"loss": {"day": 5}}, "loss.day", ""),
        ({"loss": {"day": "0.00"}}, "loss.day", ""),
        ({"loss": {"fortnight": "5.00"}}, "loss.fortnight", ""),
        ({"session_minutes": 121}, "session_minutes", "1 to 120"),
        ({"session_minutes": 0}, "session_minutes", ""),
    ]
    for body, field, words in cases:
        refused = set_limits(player, **body)
        assert refused.status_code == 422, (body, refused.text)
        assert refused.json()["field"] == field, (body, refused.json())
        assert words in refused.json()["message"]
    odd = player.post("/v1/limits/time-out", {"hours": 2})
    assert odd.status_code == 422 and odd.json()["field"] == "hours"
    assert "[1, 24]" in odd.json()["message"]
    assert player.get("/v1/limits").json()["loss"]["day"]["limit"] is None, "nothing refused was kept"


def test_limits_are_refused_where_the_jurisdiction_does_not_offer_them_and_in_fun_play(internal):
    plain = internal.player("10.00")
    for answer in (plain.get("/v1/limits"), set_limits(plain, session_minutes=5),
                   plain.post("/v1/limits/time-out", {"hours": 1}), internal.fun_player().get("/v1/limits")):
        assert answer.status_code == 403 and answer.json()["error"] == "FEATURE_DISABLED", answer.text
    rules = internal_player(internal).get("/v1/session").json()["jurisdiction"]["limits"]
    assert rules == {"enabled": True, "cooling_off_hours": 24, "time_out_hours": [1, 24], "max_session_minutes": 120}


def test_a_jurisdictions_limits_are_validated_on_load_naming_the_field():
    for limits_field, words in (({"time_out_hours": [24, 0]}, "time_out_hours: .*at least 1"),
                                ({"time_out_hours": [24, 24]}, "time_out_hours: .*distinct"),
                                ({"cooling_off_hours": -1}, "cooling_off_hours"),
                                ({"enabled": True, "cooling_of_hours": 1}, "cooling_of_hours: Extra inputs")):
        with pytest.raises(SettingsError, match=rf"jurisdictions\.x\.limits\.{words}"):
            load_settings(None, jurisdictions={"x": {"limits": limits_field}})
    assert load_settings(None).jurisdiction("uk").limits.enabled is False, "offered only where the operator says"


# -- the arithmetic -----------------------------------------------------------------------------

@given(limit=st.integers(1, 10_000), rounds=st.lists(st.tuples(st.integers(1, 500), st.integers(0, 1_000)),
                                                      max_size=60))
def test_play_under_a_loss_limit_never_loses_more_than_the_limit(limit, rounds):
    """Whatever the stakes and wins, a round starts only if losing its whole stake stays within the
    limit; so the net loss never passes it, and a round is refused only when it would."""
    loss = 0
    for stake, win in rounds:
        if limits.allows(limit, loss, stake):
            assert loss + stake <= limit and limits.remaining(limit, loss) >= stake
            loss += stake - win
        else:
            assert loss + stake > limit and limits.remaining(limit, loss) < stake
        assert loss <= limit


@given(held=st.none() | st.integers(1, 10**6), wanted=st.none() | st.integers(1, 10**6),
       wait=st.integers(0, 48 * limits.HOUR_MS))
def test_a_limit_never_loosens_before_its_cooling_off(held, wanted, wait):
    now, cooling = 10**12, 24 * limits.HOUR_MS
    changed = limits.Limit(held).asked(wanted, now, cooling)
    later = changed.in_force(now + wait)
    if limits.looser(wanted, held):
        assert changed.in_force(now) == held
        assert later == (wanted if wait >= cooling else held)
    else:
        assert changed.in_force(now) == wanted == later


def test_generated_requests_to_the_limits_never_get_a_server_error(internal, forced):
    """Schemathesis against the limits' operations, for a player whose jurisdiction offers them:
    every answer is one the operation declares, in its declared shape, and none is a 5xx."""
    player = internal_player(internal)
    schema = schemathesis.openapi.from_asgi("/openapi.json", internal.client.app)
    operations = [result.ok() for result in schema.get_all_operations()]
    operations = [operation for operation in operations if operation.path.startswith("/v1/limits")]
    assert len(operations) == 3
    for operation in operations:

        @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def no_server_error(case):
            case.headers = {**(case.headers or {}), **player.headers, "Idempotency-Key": secrets.token_hex(8)}
            response = case.call()
            assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
            case.validate_response(response, checks=[status_code_conformance, content_type_conformance,
                                                     response_schema_conformance])

        no_server_error()
    assert player.play().status_code in (200, 403)
