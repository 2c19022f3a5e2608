"""RTP versions in play: the operator's ``rtp_versions`` setting chooses, per jurisdiction and
currency, which version of a game a session plays; the round's record, its replay and the
session's help figures follow the version; an unknown name stops the server naming the setting.

Telling two versions apart by their payouts alone would take hundreds of thousands of rounds
(Dynasty's 95% and 92% differ by 3 points against a standard deviation of 4.2 stakes a round).
The versions differ in their reel strips, and a round's screen shows a window of each strip: the
likelihood ratio of the screens seen under the two versions' strips tells them apart in a few
dozen rounds. By Ville's inequality, a ratio that reaches 100 in favour of a version when the
other one played happens with a probability of at most 1%: the test decides at 99%.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from slotforge.games import load_game
from slotforge.rgs.offer import Offer, selectors
from slotforge.rgs.settings import SettingsError

from .conftest import SRC

GAME = "dynasty"
LOWER = "92.00"
DECISIVE = math.log(100)  # a likelihood ratio of 100: wrong at most 1% of the time
MOST_ROUNDS = 400


def window_odds(strips: list[list[str]], rows: int) -> list[Counter]:
    """Per reel, how many of its stops show each window of ``rows`` symbols, over the strip's length."""
    odds = []
    for strip in strips:
        windows = Counter(tuple((strip * 2)[stop:stop + rows]) for stop in range(len(strip)))
        odds.append(Counter({window: count / len(strip) for window, count in windows.items()}))
    return odds


def screen_log_odds(screen: list[list[str]], odds: list[Counter]) -> float:
    """log P(screen | these strips); -inf where a reel cannot show its column."""
    total = 0.0
    for reel, chances in enumerate(odds):
        chance = chances.get(tuple(row[reel] for row in screen), 0.0)
        if chance == 0.0:
            return -math.inf
        total += math.log(chance)
    return total


def rounds_to_decide(player, ours: list[Counter], theirs: list[Counter]) -> tuple[int, str]:
    """Play until the screens' likelihood ratio of ``ours`` against ``theirs`` reaches 100 or
    1/100: (rounds played, the version the screens favour: "ours" or "theirs")."""
    evidence = 0.0
    for played in range(1, MOST_ROUNDS + 1):
        body = player.finish(player.play(GAME))
        screen = body["round"]["steps"][0]["screen"]
        ours_odds, theirs_odds = screen_log_odds(screen, ours), screen_log_odds(screen, theirs)
        assert ours_odds > -math.inf or theirs_odds > -math.inf, f"neither version's reels show {screen}"
        evidence += (ours_odds - theirs_odds) if math.isfinite(ours_odds - theirs_odds) else math.copysign(
            DECISIVE, ours_odds - theirs_odds)
        if abs(evidence) >= DECISIVE:
            return played, "ours" if evidence > 0 else "theirs"
    return MOST_ROUNDS, "undecided"


def base_strips(game) -> list[list[str]]:
    return json.loads(Path(game.path).read_text())["reels"]["base"]


def test_two_jurisdictions_play_two_versions_told_apart_at_99_percent(make_api, games):
    api = make_api(rtp_versions={GAME: {"malta": LOWER}})
    published, lower = games[GAME], load_game(GAME, version=LOWER)
    rows = published.grid[0]
    published_odds, lower_odds = window_odds(base_strips(published), rows), window_odds(base_strips(lower), rows)
    at_home, in_malta = api.player("500.00"), api.player("500.00", jurisdiction="malta")

    assert rounds_to_decide(at_home, published_odds, lower_odds)[1] == "ours"
    assert rounds_to_decide(in_malta, lower_odds, published_odds)[1] == "ours"

    for player, game in ((at_home, published), (in_malta, lower)):
        history = player.get("/v1/rounds").json()["rounds"]
        assert {item["model"] for item in history} == {game.model_id}, "the record names the version played"
        replayed = player.get(f"/v1/rounds/{history[0]['id']}").json()
        assert replayed["verified"] is True, "a round replays with the version that played it"

    live = api.operator("GET", "/v1/operator/reports/rtp").json()["games"]
    assert {(line["version"], line["theoretical_rtp"]) for line in live if line["game"] == GAME} == {
        (published.spec.version, str(published.spec.rtp)), (LOWER, "0.92")}, "each version beside its own theory"


def test_the_session_lists_the_rtp_of_the_version_it_plays(make_api, games):
    api = make_api(rtp_versions={GAME: {"malta": LOWER, "*:GBP": "93.00"}}, currencies=["EUR", "GBP"])
    shown = {}
    for name, player in {"default": api.player("10.00"), "malta": api.player("10.00", jurisdiction="malta"),
                         "gbp": api.player("10.00", currency="GBP")}.items():
        session = player.get("/v1/session").json()
        shown[name] = next(game for game in session["games"] if game["code"] == GAME)
    assert shown["default"]["rtp"] == str(games[GAME].spec.rtp)
    assert shown["malta"]["rtp"] == "0.92" and shown["malta"]["model"].startswith(f"{GAME}/{LOWER}:")
    assert shown["gbp"]["rtp"] == "0.93"


def test_the_most_specific_selector_wins(games):
    offer = Offer(games, {GAME: {"*": "94.00", "malta": "93.00", "*:GBP": LOWER, "malta:GBP": "95.00"}},
                  ["default", "malta", "uk"])
    version = {(j, c): offer.for_player(GAME, j, c).spec.version
               for j in ("default", "malta") for c in ("EUR", "GBP")}
    assert version == {("default", "EUR"): "94.00", ("default", "GBP"): LOWER,
                       ("malta", "EUR"): "93.00", ("malta", "GBP"): "95.00"}
    assert offer[GAME].spec.version == "94.00", "the lobby shows the '*' version"
    assert offer["golden-grimoire"] is games["golden-grimoire"], "a game without a line plays its published model"
    assert selectors("uk", "EUR") == ("uk:EUR", "uk", "*:EUR", "*")


@pytest.mark.parametrize(("choices", "named"), [
    ({GAME: {"*": "91.00"}}, ["rtp_versions.dynasty.*", "unknown version '91.00'", "'92.00'", "'95.00'"]),
    ({GAME: {"atlantis": LOWER}}, ["rtp_versions.dynasty.atlantis", "unknown jurisdiction 'atlantis'", "'malta'"]),
    ({GAME: {"malta:euro": LOWER}}, ["rtp_versions.dynasty.malta:euro", "'jurisdiction:CUR'"]),
    ({"pacman": {"*": LOWER}}, ["rtp_versions.pacman", "not a game this server offers", "'dynasty'"]),
])
def test_an_unknown_name_is_refused_naming_the_setting_and_the_choices(games, choices, named):
    with pytest.raises(SettingsError) as refused:
        Offer(games, choices, ["default", "malta", "uk"])
    for words in named:
        assert words in str(refused.value)


def test_the_server_will_not_start_with_an_unknown_version(tmp_path):
    config = tmp_path / "settings.toml"
    config.write_text('[rtp_versions.dynasty]\nuk = "90.00"\n')
    started = subprocess.run([sys.executable, "-m", "slotforge.cli", "serve", "--config", str(config),
                              "--database", f"sqlite:///{tmp_path / 'x.db'}"],
                             env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}, capture_output=True,
                             text=True, timeout=120)
    assert started.returncode == 2
    assert "rtp_versions.dynasty.uk: unknown version '90.00'" in started.stderr + started.stdout
    assert not (tmp_path / "x.db").exists(), "refused before touching the database"
