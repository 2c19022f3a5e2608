"""Alerts: the shipped Prometheus rules are well-formed and name only metrics ``/metrics``
shows; the live RTP's metrics and the dashboard's alerts flag a game outside its band; failing
and late outbox messages raise the wallet's, the jackpot service's and the backlog's alerts."""

from __future__ import annotations

import re
from decimal import Decimal
from importlib import resources

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update

from slotforge.engine import round as runner
from slotforge.rgs import metrics
from slotforge.rgs import outbox as mail
from slotforge.rgs.api import backoffice as backoffice_api
from slotforge.rgs.backoffice import alerts
from slotforge.rgs.schema import outbox

from .conftest import losing_screen

RULES = yaml.safe_load(resources.files("slotforge.rgs").joinpath("alerts.rules.yml").read_text())
DURATION = re.compile(r"^\d+[smhd]$")
RULE_KEYS = {"alert", "expr", "for", "labels", "annotations"}
# A wrong RTP and a round's spread so small that a run is outside its band unless its RTP is 0.5
# to the cent (three rounds winning half their stakes could be: the test's rounds win nothing).
SKEWED = (Decimal("0.5"), Decimal("0.0001"))
# A spread so wide that no run is outside its band (a real one would be, once in a hundred runs).
LOOSE = (Decimal("0.96"), Decimal("1000"))


def rules() -> list[dict]:
    return [rule for group in RULES["groups"] for rule in group["rules"]]


def test_the_rules_file_has_the_schema_prometheus_loads():
    assert set(RULES) == {"groups"} and RULES["groups"]
    for group in RULES["groups"]:
        assert set(group) == {"name", "rules"} and isinstance(group["name"], str) and group["rules"]
    for rule in rules():
        assert set(rule) <= RULE_KEYS and {"alert", "expr"} <= set(rule), rule
        assert re.fullmatch(r"[A-Z][A-Za-z0-9]+", rule["alert"])
        assert isinstance(rule["expr"], str) and rule["expr"].count("(") == rule["expr"].count(")")
        assert DURATION.match(rule["for"]), rule["for"]
        assert rule["labels"]["severity"] in ("warning", "critical")
        assert all(isinstance(value, str) for value in (*rule["labels"].values(), *rule["annotations"].values()))
        assert "summary" in rule["annotations"]
    names = [rule["alert"] for rule in rules()]
    assert names == ["SlotforgeRtpOutOfBand", "SlotforgeWalletFailing", "SlotforgeOutboxBackingUp",
                     "SlotforgeJackpotUnreachable"]
    backing_up = next(rule for rule in rules() if rule["alert"] == "SlotforgeOutboxBackingUp")
    assert f"> {alerts.OUTBOX_LAG_S}" in backing_up["expr"]  # the dashboard's threshold, the same


def exposed(api) -> dict[str, list]:
    """The metric families of ``/metrics`` by name, with each counter's ``_total`` name too."""
    text = api.client.get("/metrics").text
    found = {}
    for family in text_string_to_metric_families(text):
        found[family.name] = family.samples
        found.update({sample.name: family.samples for sample in family.samples})
        if family.type == "counter":
            found[f"{family.name}_total"] = family.samples
    return found


def test_every_metric_a_rule_names_is_in_the_metrics(api):
    player = api.player()
    player.finish(player.play())
    shown = exposed(api)
    for rule in rules():
        named = set(re.findall(r"\bslotforge_[a-z_]+", rule["expr"]))
        assert named and named <= set(shown), (rule["alert"], named - set(shown))


def lose_every_round(monkeypatch, game) -> None:
    """Every round plays a screen that wins nothing (the round function runs as ever, its screen
    forced): three rounds' RTP is then 0, which no luck puts inside a band around 0.5."""
    real, screen = runner.play_round, losing_screen(game)

    def play_round(played, bet, script=None, **options):
        forced = runner.parse_script(played, {"screens": [screen], "bet": bet.as_json()})
        return real(played, bet, script=forced, **options)

    monkeypatch.setattr(runner, "play_round", play_round)


def test_a_game_outside_its_band_is_flagged_in_the_metrics_and_on_the_dashboard(api, monkeypatch, games):
    lose_every_round(monkeypatch, games["dynasty"])
    player = api.player()
    for _ in range(3):
        player.finish(player.play())
    server = api.client.app.state.server
    played = server.games["dynasty"]
    loose, skewed_theory = {played.model_id: LOOSE}, {played.model_id: SKEWED}  # the theory is a version's
    api.client.app.state.metrics = metrics.registry_for(server.engine, server.now, lambda: loose)
    monkeypatch.setattr(backoffice_api, "theory", lambda request: loose)
    honest = exposed(api)
    assert [s.value for s in honest["slotforge_live_rtp_out_of_band"] if s.labels["game"] == "dynasty"] == [0.0]
    assert api.operator("GET", "/v1/operator/alerts").json() == {"alerts": []}
    api.client.app.state.metrics = metrics.registry_for(server.engine, server.now, lambda: skewed_theory)
    skewed = exposed(api)
    assert [s.value for s in skewed["slotforge_live_rtp_out_of_band"] if s.labels["game"] == "dynasty"] == [1.0]
    assert [s.value for s in skewed["slotforge_live_rtp_band_low"]] == [pytest.approx(0.5, abs=0.01)]
    assert {s.labels["version"] for s in skewed["slotforge_live_rtp_out_of_band"]} == {played.spec.version}
    monkeypatch.setattr(backoffice_api, "theory", lambda request: skewed_theory)
    firing = api.operator("GET", "/v1/operator/alerts").json()["alerts"]
    assert [(a["alert"], a["subject"]) for a in firing] == [
        ("SlotforgeRtpOutOfBand", f"game:dynasty/{played.spec.version}")]


def test_failing_and_late_messages_raise_their_alerts(api):
    player = api.player()
    round_id = player.finish(player.play())["round"]["id"]
    server = api.client.app.state.server
    now = server.now()
    with server.transaction() as conn:
        for target in ("wallet", "jackpot"):
            mail.enqueue(conn, target, "test", f"{target}-{round_id}", {}, now=now, hold_ms=3_600_000,
                         round_id=round_id)
        conn.execute(update(outbox).where(outbox.c.round_id == round_id, outbox.c.kind == "test")
                     .values(last_error="connection refused", created_at=now - 600_000))
    firing = {(a["alert"], a["subject"]) for a in api.operator("GET", "/v1/operator/alerts").json()["alerts"]}
    assert firing == {("SlotforgeWalletFailing", "target:wallet"), ("SlotforgeJackpotUnreachable", "target:jackpot"),
                      ("SlotforgeOutboxBackingUp", "target:wallet"), ("SlotforgeOutboxBackingUp", "target:jackpot")}
    failing = {s.labels["target"]: s.value for s in exposed(api)["slotforge_outbox_failing"]}
    assert failing == {"wallet": 1.0, "jackpot": 1.0}
