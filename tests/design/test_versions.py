"""RTP versions as data: every shipped version loads, plays the published rules and is listed;
a version that changes the rules, or an unknown name, is refused with the field or the names."""

from __future__ import annotations

import json
from copy import deepcopy

import pytest
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.engine.model import ModelError, load_json
from slotforge.games import game_codes, load_game, registration, versions_of
from slotforge.games.versions import UnknownVersion, check_same_rules, list_versions

runner = CliRunner()
SHIPPED = [(code, info.name) for code in game_codes() for info in versions_of(code)]


def test_the_published_version_comes_first_and_every_label_is_its_own() -> None:
    for code in game_codes():
        versions = versions_of(code)
        assert versions[0].published and versions[0].path.name == "model.json"
        assert not any(v.published for v in versions[1:])
        labels = [v.rtp for v in versions]
        assert len(set(labels)) == len(labels), (code, labels)


@pytest.mark.parametrize(("code", "name"), SHIPPED)
def test_a_version_loads_with_its_own_label_and_the_published_rules(code: str, name: str) -> None:
    game = load_game(code, version=name)
    assert game.spec.version == name
    published = load_game(code)
    assert game.spec.symbols == published.spec.symbols
    assert game.spec.line_pays == published.spec.line_pays
    assert game.spec.count_pays == published.spec.count_pays
    assert game.spec.bet == published.spec.bet


def test_the_published_version_is_the_published_game() -> None:
    assert load_game("dynasty", version=versions_of("dynasty")[0].name) is load_game("dynasty")


def test_an_unknown_version_lists_the_versions() -> None:
    with pytest.raises(UnknownVersion) as error:
        load_game("dynasty", version="99.99")
    for info in versions_of("dynasty"):
        assert repr(info.name) in str(error.value)


def test_a_version_that_changes_a_pay_is_refused_naming_the_field(tmp_path) -> None:
    published = load_json(load_game("dynasty").path)
    changed = deepcopy(published)
    changed["line_pays"]["DRAGON"]["5"] += 1
    with pytest.raises(ModelError, match=r"line_pays\.DRAGON\.5: a version may change only"):
        check_same_rules(published, changed, registration("dynasty").designer_fields, tmp_path / "x.json")
    strips = deepcopy(published)
    strips["reels"]["base"][0] = list(reversed(strips["reels"]["base"][0]))
    strips["rtp"], strips["version"] = "0.9", "90.00"
    check_same_rules(published, strips, registration("dynasty").designer_fields, tmp_path / "x.json")


def test_a_version_file_named_other_than_its_version_is_refused(tmp_path) -> None:
    raw = load_json(load_game("dynasty").path)
    (tmp_path / "model.json").write_text(json.dumps(raw))
    (tmp_path / "versions").mkdir()
    (tmp_path / "versions" / "94.00.json").write_text(json.dumps({**raw, "version": "93.00"}))
    with pytest.raises(ModelError, match=r"94\.00\.json: version: expected '94\.00'"):
        list_versions(tmp_path)


def test_games_lists_every_version_with_its_rtp_as_json() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0, result.output
    listed = {game["code"]: game["versions"] for game in json.loads(result.stdout)}
    for code, name in SHIPPED:
        entry = next(v for v in listed[code] if v["name"] == name)
        assert entry["rtp"] == str(load_game(code, version=name).spec.rtp)


def test_rtp_takes_a_version_and_refuses_an_unknown_one() -> None:
    name = versions_of("dynasty")[1].name
    result = runner.invoke(app, ["rtp", "dynasty", "--version", name, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["model"] == load_game("dynasty", version=name).model_id
    assert abs(report["rtp"] - float(load_game("dynasty", version=name).spec.rtp)) <= 0.0001
    bad = runner.invoke(app, ["simulate", "dynasty", "--version", "nope", "-n", "10"])
    assert bad.exit_code == 2
    assert "has no version 'nope'; expected one of" in bad.stderr
