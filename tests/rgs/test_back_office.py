"""The back office's Operator API: per-day figures in the operator's time zone, live RTP against
its band, players, rounds, voids, autoplay stops, what is owed, ``/metrics`` - and another
operator's key sees none of it.

One server per backend for the module, on a clock set just before midnight UTC (so that the
operator's day differs from UTC's); each test's expected figures come from the rounds' own answers
or from scipy, never from the report under test."""

from __future__ import annotations

import math
import secrets
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from backoffice_runs import play_real, seeded, winning_screen
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families
from scipy.stats import norm
from sqlalchemy import create_engine, delete, func, literal, select

from slotforge.rgs import outbox
from slotforge.rgs.api import backoffice as answers
from slotforge.rgs.app import create_app
from slotforge.rgs.backoffice import band
from slotforge.rgs.backoffice.reports import day_starts, local_day
from slotforge.rgs.schema import jackpot_pools, rounds
from slotforge.rgs.schema import outbox as messages
from slotforge.rgs.settings import load_settings
from slotforge.rgs.volatility import volatility

from .conftest import Api, FakeClock, audit, make_operator

LATE_EVENING = datetime(2026, 3, 10, 23, 30, tzinfo=UTC).timestamp()  # 00:30 on the 11th in Malta (UTC+1)
GAME = "dynasty"
IN_MEMORY = create_engine("sqlite://")  # for SQL expressions alone


@pytest.fixture(scope="module")
def office(module_database_url, games):
    """A server on the module's database with two operators: A, whose players have played, and B."""
    clock = FakeClock()
    clock.now = LATE_EVENING
    app = create_app(load_settings(None, database_url=module_database_url, currencies=["EUR", "GBP"]), games=games,
                     clock=clock)
    client = TestClient(app)
    a, b = Api(client, make_operator(app)), Api(client, make_operator(app))
    players = {name: a.player(player_id=f"{name}-{secrets.token_hex(3)}") for name in ("ann", "bob")}
    played = {name: [players[name].finish(players[name].play(GAME))["round"] for _ in range(count)]
              for name, count in (("ann", 6), ("bob", 4))}
    fun = a.fun_player()
    fun.finish(fun.play(GAME))
    yield a, b, players, played, app, module_database_url
    app.state.server.engine.dispose()


def cents(text: str) -> int:
    return int(Decimal(text) * 100)


def rounds_of(played):
    return [r for rounds in played.values() for r in rounds]


# -- per day ------------------------------------------------------------------------------------
def test_the_daily_report_counts_the_real_money_rounds_in_the_operators_day(office):
    a, _b, _players, played, _app, _url = office
    everything = rounds_of(played)
    malta = a.operator("GET", "/v1/operator/reports/daily",
                       params={"from": "2026-03-09", "to": "2026-03-12", "tz": "Europe/Malta"}).json()
    utc = a.operator("GET", "/v1/operator/reports/daily",
                     params={"from": "2026-03-09", "to": "2026-03-12", "tz": "UTC"}).json()
    assert [d["day"] for d in malta["days"]] == ["2026-03-11"]
    assert [d["day"] for d in utc["days"]] == ["2026-03-10"]
    answers.DailyReport.model_validate(malta)
    day = malta["days"][0]
    stakes = sum(cents(r["total_bet"]) for r in everything)
    wins = sum(cents(r["total_win"]) for r in everything)
    assert (day["game"], day["currency"], day["rounds"], day["players"]) == (GAME, "EUR", 10, 2)
    assert (cents(day["stakes"]), cents(day["wins"]), cents(day["ggr"])) == (stakes, wins, stakes - wins)
    hits = sum(1 for r in everything if cents(r["total_win"]) > 0)
    assert Decimal(day["hit_rate"]) == (Decimal(hits) / 10).quantize(Decimal("0.000001"))
    assert day["jackpot_payouts"] == "0.00" and Decimal(day["jackpot_contributions"]) == 0


def test_the_daily_report_keeps_each_currency_apart(office):
    multi = Api(office[0].client, make_operator(office[4]))
    played = {}
    for currency, count in (("EUR", 2), ("GBP", 3)):
        player = multi.player(currency=currency)
        played[currency] = [player.finish(player.play(GAME))["round"] for _ in range(count)]
    days = multi.operator("GET", "/v1/operator/reports/daily", params={"from": "2026-03-10", "to": "2026-03-10"}
                          ).json()["days"]
    assert [(d["currency"], d["rounds"], cents(d["stakes"])) for d in days] == [
        (currency, len(rounds), sum(cents(r["total_bet"]) for r in rounds)) for currency, rounds in played.items()]


@pytest.mark.parametrize(("params", "field"), [
    ({"tz": "Mars/Olympus"}, "tz"), ({"tz": "America"}, "tz"), ({"tz": "zone.tab"}, "tz"), ({"from": "2026-03-12", "to": "2026-03-01"}, "from"),
    ({"from": "2024-01-01", "to": "2026-03-01"}, "from"), ({"from": "yesterday"}, "from"),
    ({"from": "9999-12-31", "to": "9999-12-31"}, "from"), ({"from": "1969-12-31", "to": "1970-01-05"}, "from"),
    ({"to": "0001-01-01"}, "to"),
])
def test_a_bad_daily_report_request_names_its_field(office, params, field):
    answer = office[0].operator("GET", "/v1/operator/reports/daily", params=params)
    assert answer.status_code == 422 and answer.json()["field"] == field, answer.text


@pytest.mark.parametrize("start", ["\x00", "a\x00b", "%", "o'brien"])
def test_a_player_search_with_characters_no_player_id_has_names_its_field(office, start):
    """A NUL reached PostgreSQL as a 500; a LIKE wildcard would match every player."""
    answer = office[0].operator("GET", "/v1/operator/players", params={"q": start})
    assert answer.status_code == 422 and answer.json()["field"] == "q", answer.text


# -- live RTP -----------------------------------------------------------------------------------
def scipy_band(rtp: Decimal, std: float, stakes: list[int]) -> tuple[float, float]:
    """The 99% interval of sum(W)/sum(s), each W_i of mean rtp*s_i and deviation std*s_i."""
    scale = std * math.sqrt(sum(s * s for s in stakes)) / sum(stakes)
    low, high = norm.interval(0.99, loc=float(rtp), scale=scale)
    return max(0.0, low), high  # a return is never negative


def test_the_live_rtp_stands_beside_the_theory_and_its_band(office, games):
    a, _b, _players, played, _app, _url = office
    everything = rounds_of(played)
    report = answers.RtpReport.model_validate(a.operator("GET", "/v1/operator/reports/rtp").json()).model_dump()
    [line] = report["games"]
    stakes = [cents(r["total_bet"]) for r in everything]
    wins = sum(cents(r["total_win"]) for r in everything)
    assert (line["game"], line["rounds"], cents(line["stakes"]), cents(line["wins"])) == (GAME, 10, sum(stakes), wins)
    assert Decimal(line["rtp"]) == (Decimal(wins) / sum(stakes)).quantize(Decimal("0.000001"))
    assert Decimal(line["theoretical_rtp"]) == games[GAME].spec.rtp
    low, high = scipy_band(games[GAME].spec.rtp, float(volatility(GAME)["std"]), stakes)
    assert float(line["band_low"]) == pytest.approx(low, abs=2e-6)
    assert float(line["band_high"]) == pytest.approx(high, abs=2e-6)
    assert line["outside_band"] is (not low <= float(line["rtp"]) <= high)
    later = a.operator("GET", "/v1/operator/reports/rtp", params={"from": "2026-03-11T00:00:00Z"}).json()
    assert later["games"] == []


def test_a_forced_run_raises_the_flag_and_an_honest_run_does_not(office, games):
    """Two more operators: one's player plays 300 honest rounds, the other's 40 forced to win."""
    _a, _b, _players, _played, app, _url = office
    honest, forced = Api(office[0].client, make_operator(app)), Api(office[0].client, make_operator(app))
    server = app.state.server
    with seeded(7):
        play_real(server, honest.player(balance="500.00").token, GAME, 300)
    screen = winning_screen(games[GAME], Decimal("1.00"))
    play_real(server, forced.player(balance="50.00").token, GAME, 40, script={"screens": [screen]})
    fair = honest.operator("GET", "/v1/operator/reports/rtp").json()["games"][0]
    rigged = forced.operator("GET", "/v1/operator/reports/rtp").json()["games"][0]
    assert (fair["rounds"], rigged["rounds"]) == (300, 40)
    assert fair["outside_band"] is False
    assert Decimal(fair["band_low"]) <= Decimal(fair["rtp"]) <= Decimal(fair["band_high"])
    assert rigged["outside_band"] is True and Decimal(rigged["rtp"]) > Decimal(rigged["band_high"])


@settings(max_examples=200, deadline=None)
@given(rtp=st.decimals("0.80", "0.99", places=4), std=st.decimals("0.5", "30", places=3),
       stakes=st.lists(st.integers(1, 10_000), min_size=1, max_size=50))
def test_the_band_is_scipys_normal_interval(rtp, std, stakes):
    found = band.band(rtp, std, sum(stakes), sum(s * s for s in stakes))
    low, high = scipy_band(rtp, float(std), stakes)
    assert float(found.low) == pytest.approx(low, abs=2e-6) and float(found.high) == pytest.approx(high, abs=2e-6)
    assert found.low <= rtp <= found.high and found.high - rtp == found.half_width
    assert found.low == max(Decimal(0), rtp - found.half_width)


def test_an_honest_game_leaves_the_99_percent_band_about_once_in_a_hundred_runs():
    """Simulated runs of a known game (pays 10 x the stake with probability 0.096): the band holds
    the actual RTP in about 99% of them (the normal approximation at 2,000 rounds a run)."""
    import numpy as np

    generator = np.random.default_rng(11)
    p, pays, rounds, runs = 0.096, 10, 2000, 4000
    rtp, std = Decimal(str(p * pays)), Decimal(repr(math.sqrt(p * pays * pays - (p * pays) ** 2)))
    found = band.band(rtp, std, rounds, rounds)  # stakes of 1
    actual = generator.binomial(rounds, p, size=runs) * pays / rounds
    outside = np.mean((actual < float(found.low)) | (actual > float(found.high)))
    assert 0.002 < outside < 0.025


# -- players and rounds -------------------------------------------------------------------------
def test_a_player_is_found_with_balance_sessions_and_ledger(office):
    a, _b, players, played, _app, _url = office
    ann = players["ann"].player_id
    assert [p["player_id"] for p in a.operator("GET", "/v1/operator/players", params={"q": ann[:6]}).json()[
        "players"]] == [ann]
    seen = a.operator("GET", f"/v1/operator/players/{ann}/overview").json()
    answers.PlayerOverview.model_validate(seen)
    stakes = [e for e in seen["ledger"] if e["kind"] == "stake"]
    assert len(stakes) >= len(played["ann"]) and all(cents(e["amount"]) < 0 for e in stakes)
    assert seen["ledger"][-1]["kind"] == "deposit" and seen["ledger"][-1]["amount"] == "100.00"
    assert sum(cents(e["amount"]) for e in seen["ledger"]) == cents(seen["balance"])  # every entry, signed
    assert len(seen["sessions"]) == 1 and seen["open_rounds"] == []


def test_a_player_is_found_by_any_part_of_the_id_in_any_case(office):
    a, _b, players, _played, _app, _url = office
    ann = players["ann"].player_id  # "ann-1f2e3d": its random tail is in no other id
    tail = ann.split("-")[1]
    for part in (tail, tail[2:].upper(), "nn-"):  # its end, its middle, in capitals
        assert [p["player_id"] for p in a.operator("GET", "/v1/operator/players", params={"q": part}).json()[
            "players"]] == [ann], part


def test_a_search_forms_blank_fields_mean_any(office):
    """A form sends every field, the blank ones as ``?player=&game=``: the same rounds as none sent."""
    a = office[0]
    blank = {field: "" for field in ("player", "game", "status", "from", "to", "min_win", "max_win")}
    answer = a.operator("GET", "/v1/operator/rounds/search", params=blank)
    assert answer.status_code == 200, answer.text
    assert answer.json() == a.operator("GET", "/v1/operator/rounds/search").json()
    assert answer.json()["rounds"]


def test_rounds_are_found_by_player_game_status_and_win_and_open_with_their_record(office):
    a, _b, players, played, _app, _url = office
    bob = players["bob"].player_id
    found = a.operator("GET", "/v1/operator/rounds/search", params={"player": bob, "game": GAME,
                                                                     "status": "complete"}).json()["rounds"]
    assert [r["id"] for r in found] == sorted((r["id"] for r in played["bob"]), reverse=True)
    floor = "0.01"
    winners = a.operator("GET", "/v1/operator/rounds/search", params={"min_win": floor}).json()["rounds"]
    assert {r["id"] for r in winners} == {r["id"] for r in rounds_of(played) if cents(r["total_win"]) >= 1}
    detail = answers.RoundDetail.model_validate(a.operator("GET", f"/v1/operator/rounds/{found[0]['id']}").json()
                                                ).model_dump()
    answers.RoundList.model_validate({"rounds": found})
    assert detail["verified"] is True and detail["round"]["steps"] and detail["summary"]["player_id"] == bob
    assert [e["kind"] for e in detail["ledger"]][:1] == ["stake"]
    assert a.operator("GET", "/v1/operator/rounds/search", params={"min_win": "1.505"}).json()["field"] == "min_win"


def test_voiding_a_completed_round_reverses_it_and_the_books_still_balance(office):
    a, _b, players, played, _app, url = office
    target = next(r for r in played["ann"] if cents(r["total_win"]) == 0) if any(
        cents(r["total_win"]) == 0 for r in played["ann"]) else played["ann"][0]
    before = cents(a.operator("GET", f"/v1/operator/players/{players['ann'].player_id}/overview").json()["balance"])
    voided = a.operator("POST", f"/v1/operator/rounds/{target['id']}/void", json={"reason": "reels froze"})
    assert voided.status_code == 200, voided.text
    detail = a.operator("GET", f"/v1/operator/rounds/{target['id']}").json()
    assert detail["summary"]["status"] == "void" and detail["summary"]["void_reason"] == "reels froze"
    assert [e["kind"] for e in detail["ledger"]][-1] in ("refund", "reversal")
    after = cents(a.operator("GET", f"/v1/operator/players/{players['ann'].player_id}/overview").json()["balance"])
    assert after == before + cents(target["total_bet"]) - cents(target["total_win"])
    checked = audit(url)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_operator_stops_a_players_autoplay(office):
    a, _b, _players, _played, _app, _url = office
    player = a.player()
    plan = player.post("/v1/autoplay", {"game": GAME, "rounds": 10, "cash_decrease": "5.00"}).json()
    stopped = a.operator("POST", f"/v1/operator/autoplays/{plan['id']}/stop")
    assert stopped.status_code == 200 and stopped.json()["stopped"] == "operator", stopped.text
    refused = player.play(GAME, autoplay=plan["id"])
    assert refused.status_code == 409 and refused.json()["error"] == "AUTOPLAY_STOPPED"
    assert a.operator("GET", f"/v1/operator/players/{player.player_id}/overview").json()["autoplays"][0][
        "stopped"] == "operator"


def test_nothing_is_owed_for_rounds_of_the_internal_wallet(office):
    owed = answers.Owed.model_validate(office[0].operator("GET", "/v1/operator/outbox").json()).model_dump()
    assert owed == {"backlog": {}, "messages": [], "wallet_pending": []}


def test_a_message_owed_for_an_operators_round_is_listed_for_it_alone(office):
    """A message held in the outbox for one of A's rounds (as a seamless wallet's credit waits
    there): A's outbox lists it with its backlog, B's does not."""
    a, b, _players, played, app, _url = office
    server = app.state.server
    round_id = played["bob"][-1]["id"]
    with server.transaction() as conn:
        outbox.enqueue(conn, "wallet", "credit", f"test-credit-{round_id}", {"amount": "1.00"}, now=server.now(),
                       round_id=round_id, hold_ms=3_600_000)
    try:
        owed = answers.Owed.model_validate(a.operator("GET", "/v1/operator/outbox").json()).model_dump()
        assert owed["backlog"] == {"wallet": 1}
        assert [(m["kind"], m["round_id"], m["attempts"]) for m in owed["messages"]] == [("credit", round_id, 0)]
        assert [r["id"] for r in owed["wallet_pending"]] == [round_id]
        assert b.operator("GET", "/v1/operator/outbox").json() == {"backlog": {}, "messages": [], "wallet_pending": []}
    finally:
        with server.transaction() as conn:
            assert conn.execute(delete(messages).where(messages.c.key == f"test-credit-{round_id}")).rowcount == 1


# -- another operator -------------------------------------------------------------------------------
def test_another_operators_key_sees_none_of_the_first_operators_players_rounds_or_figures(office):
    a, b, players, played, _app, _url = office
    ann, some_round = players["ann"].player_id, played["bob"][0]["id"]
    assert a.operator("GET", "/v1/operator/players").json()["players"]  # A sees its own
    assert b.operator("GET", "/v1/operator/players").json() == {"players": []}
    assert b.operator("GET", "/v1/operator/players", params={"q": ann}).json() == {"players": []}
    assert b.operator("GET", f"/v1/operator/players/{ann}/overview").status_code == 404
    assert b.operator("GET", "/v1/operator/rounds/search").json() == {"rounds": []}
    assert b.operator("GET", "/v1/operator/rounds/search", params={"player": ann}).json() == {"rounds": []}
    assert b.operator("GET", f"/v1/operator/rounds/{some_round}").status_code == 404
    assert b.operator("POST", f"/v1/operator/rounds/{some_round}/void", json={"reason": "x"}).status_code == 404
    assert b.operator("GET", "/v1/operator/reports/daily", params={"from": "2026-03-01", "to": "2026-03-31"}
                      ).json()["days"] == []
    assert b.operator("GET", "/v1/operator/reports/rtp").json()["games"] == []
    assert b.operator("GET", "/v1/operator/outbox").json()["backlog"] == {}
    plan = players["bob"].post("/v1/autoplay", {"game": GAME, "rounds": 5, "cash_decrease": "5.00"}).json()
    assert b.operator("POST", f"/v1/operator/autoplays/{plan['id']}/stop").status_code == 404
    assert a.operator("GET", f"/v1/operator/players/{players['bob'].player_id}/overview").json()["autoplays"][0][
        "stopped"] is None
    assert b.client.get("/v1/operator/reports/rtp").status_code == 401


# -- metrics and the document -------------------------------------------------------------------
def families(client) -> dict:
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in text_string_to_metric_families(answer.text)
            for s in f.samples}


def test_metrics_count_rounds_and_errors_for_prometheus(office):
    a, _b, _players, _played, app, _url = office
    with app.state.server.engine.connect() as conn:
        real = conn.execute(select(func.count()).where(rounds.c.fun.is_(False), rounds.c.game == GAME,
                                                       rounds.c.currency == "EUR")).scalar_one()
    first = families(a.client)
    assert first[("slotforge_rounds_started_total", (("currency", "EUR"), ("game", GAME), ("mode", "real")))] == real
    assert first[("slotforge_rounds_started_total", (("currency", "EUR"), ("game", GAME), ("mode", "fun")))] >= 1
    errors = ("slotforge_errors_total", (("code", "INVALID_API_KEY"),))
    a.client.get("/v1/operator/reports/rtp")  # no key
    player = a.player()
    player.play(GAME)
    second = families(a.client)
    assert second[errors] == first.get(errors, 0) + 1
    assert second[("slotforge_rounds_started_total", (("currency", "EUR"), ("game", GAME), ("mode", "real")))] == real + 1
    assert ("slotforge_request_seconds_count", (("route", "GET /v1/operator/reports/rtp"),)) in second


def test_the_openapi_document_describes_the_back_office_answers(office):
    doc = office[0].client.get("/openapi.json").json()
    for path, model in (("/v1/operator/reports/rtp", "RtpReport"), ("/v1/operator/reports/daily", "DailyReport"),
                        ("/v1/operator/rounds/{round_id}", "RoundDetail"), ("/v1/operator/outbox", "Owed"),
                        ("/v1/operator/players/{player_id}/overview", "PlayerOverview")):
        schema = doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema["$ref"].endswith("/" + model)
    assert "outside_band" in doc["components"]["schemas"]["RtpLine"]["properties"]


def test_jackpot_contributions_are_summed_exactly_and_the_pool_is_scraped(office, games):
    """A jackpot game's rounds: each stake's share goes to the pool (Divine Fortune's model says
    3.7%), summed per day to the fraction of a cent; ``/metrics`` shows the pool's value."""
    _a, _b, _players, _played, app, _url = office
    jackpot = Api(office[0].client, make_operator(app))
    player = jackpot.player()
    played = [player.finish(player.play("divine-fortune"))["round"] for _ in range(5)]
    share = Decimal(games["divine-fortune"].spec.model_dump()["features"]["mega"]["contribution"])
    day = jackpot.operator("GET", "/v1/operator/reports/daily",
                           params={"from": "2026-03-10", "to": "2026-03-10"}).json()["days"]
    assert [(d["game"], d["rounds"]) for d in day] == [("divine-fortune", 5)]
    assert Decimal(day[0]["jackpot_contributions"]) == sum(Decimal(r["total_bet"]) * share for r in played)
    with app.state.server.engine.connect() as conn:
        pools = dict(conn.execute(select(jackpot_pools.c.name, jackpot_pools.c.current)).all())
    scraped = families(jackpot.client)
    assert pools and all(scraped[("slotforge_jackpot_pool", (("pool", name),))] == pytest.approx(float(value))
                         for name, value in pools.items())


def test_a_local_day_is_23_or_25_hours_long_when_the_clocks_change():
    """Malta moves its clocks on the last Sundays of March and October: those days are 23 and 25
    hours long, and each starts at local midnight (UTC+1 in winter, UTC+2 in summer)."""
    malta = ZoneInfo("Europe/Malta")
    spring = day_starts(date(2026, 3, 29), date(2026, 3, 29), malta)
    autumn = day_starts(date(2026, 10, 25), date(2026, 10, 25), malta)
    hour = 3_600_000
    assert spring[0] == datetime(2026, 3, 28, 23, tzinfo=UTC).timestamp() * 1000
    assert (spring[1] - spring[0], autumn[1] - autumn[0]) == (23 * hour, 25 * hour)


@settings(max_examples=300, deadline=None)
@given(moment=st.integers(datetime(2000, 1, 2, tzinfo=UTC).timestamp() * 1000,
                          datetime(2040, 12, 30, tzinfo=UTC).timestamp() * 1000),
       zone=st.sampled_from(["Europe/Malta", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe", "UTC",
                             "Pacific/Chatham", "America/St_Johns"]))
def test_the_databases_local_day_of_an_instant_is_pythons(moment, zone):
    """The day index SQL computes (SQLite here) is the local date Python's zoneinfo gives."""
    tz = ZoneInfo(zone)
    local = datetime.fromtimestamp(moment / 1000, tz).date()
    first = local - timedelta(days=moment % 20)  # the range's first day, up to 19 days before
    starts = day_starts(first, local + timedelta(days=moment % 7), tz)
    with IN_MEMORY.connect() as conn:
        index = conn.execute(select(local_day(literal(moment), starts, tz))).scalar_one()
    assert first + timedelta(days=index) == local

