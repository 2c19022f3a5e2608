"""The server's routes for the browser client, in this process: the pages, the built assets,
and the public catalogue and models the pages read."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from slotforge.engine.model import paylines
from slotforge.games import game_codes, load_game
from slotforge.rgs.app import create_app
from slotforge.rgs.settings import load_settings
from slotforge.rgs.volatility import FIGURES, SHEETS, read_sheets, volatility, word, write


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    games = {code: load_game(code) for code in game_codes()}  # no warm-up round: nothing is played here
    settings = load_settings(None, database_url=f"sqlite:///{tmp_path_factory.mktemp('db') / 'web.db'}")
    with TestClient(create_app(settings, games=games)) as client:
        yield client


@pytest.mark.parametrize("path", ["/", "/play", "/play/dynasty", "/play/moon-of-fortune?token=abc"])
def test_every_page_is_the_client(client, path):
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert '<main id="app"' in answer.text
    assert answer.headers["cache-control"] == "no-cache"


def test_the_pages_assets_are_served(client):
    page = client.get("/").text
    for asset in re.findall(r'(?:src|href)="(/assets/[^"]+)"', page):
        answer = client.get(asset)
        assert answer.status_code == 200, asset
        assert len(answer.content) > 100


def test_a_game_the_server_does_not_offer_has_a_page_for_people_that_says_so(client):
    answer = client.get("/play/<b>no-such-game<i>")
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert "No such game" in answer.text and '<a href="/">Back to the lobby</a>' in answer.text
    assert "&lt;b&gt;no-such-game&lt;i&gt;" in answer.text and "<b>no-such" not in answer.text  # escaped


def test_the_apis_paths_keep_their_json_errors(client):
    answer = client.get("/v1/games/no-such-game")
    assert answer.status_code == 403
    assert answer.json()["error"] == "GAME_NOT_ALLOWED"


def test_the_catalogue_lists_every_game_with_its_published_rtp(client):
    catalogue = client.get("/v1/games").json()["games"]
    assert [g["code"] for g in catalogue] == list(game_codes())
    for entry in catalogue:
        game = load_game(entry["code"])
        assert entry["rtp"] == str(game.spec.rtp)
        assert ("rtp_range" in entry) and (entry["rtp_range"] is None) == (entry["code"] != "wish-upon-a-jackpot")
        assert entry["model"] == game.model_id
        assert (entry["grid"]["rows"], entry["grid"]["reels"]) == game.grid


def test_a_strategy_dependent_rtp_is_shown_as_the_published_range_with_each_ends_strategy(client):
    # "This game has a theoretical return to player from 92.46 to 95.26% ... based on player strategy."
    wish = {g["code"]: g for g in client.get("/v1/games").json()["games"]}["wish-upon-a-jackpot"]
    assert wish["rtp_text"] == "92.46% to 95.26%"
    spread = wish["rtp_range"]
    assert (spread["min"], spread["min_strategy"]) == ("0.9246", "worst")
    assert (spread["max"], spread["max_strategy"]) == ("0.9526", "best")
    model = client.get("/v1/games/wish-upon-a-jackpot").json()
    assert model["rtp_range"] == spread and model["rtp_text"] == "92.46% to 95.26%"
    # The client shows the range, not the top alone, wherever it shows an RTP.
    dist = client_sources()
    assert "rtpText(" in dist and "RTP ${percent(game.rtp)}" not in dist


def test_a_games_model_has_what_its_screen_and_paytable_need(client):
    model = client.get("/v1/games/dynasty").json()
    assert model["grid"] == {"rows": 3, "reels": 5}
    assert model["paylines"][0] == [1, 1, 1, 1, 1]  # the middle row
    assert len(model["paylines"]) == 20
    assert [list(line) for line in paylines("lines_20_5x3")] == model["paylines"]
    assert model["line_pays"]["DRAGON"] == {"2": 2, "3": 50, "4": 250, "5": 1000}
    assert model["scatter_pays"]["EMPEROR"]["3"] == 5
    assert model["decisions"] == {"gamble": ["collect", "red", "black", "hearts", "diamonds", "clubs", "spades"]}
    # Dynasty's SEAL (its WILD) lands on reels 2 to 4 only: the client anticipates only where a
    # symbol can land, and the resting screen shows none of it.
    assert {"code": "SEAL", "kind": "wild", "reels": [2, 3, 4]} in model["symbols"]
    assert {"code": "EMPEROR", "kind": "scatter"} in model["symbols"]  # every reel: no list
    assert model["stake_rule"] == {"amount": "coin_value", "times": ["lines", "coins_per_line"], "factor": 1}
    rest = model["resting_screen"]
    assert len(rest) == 3 and all(len(row) == 5 for row in rest) and "SEAL" not in {c for row in rest for c in row}
    assert "reels" not in model  # the strips are the lab's, not the player's


def test_a_count_pays_game_has_no_paylines(client):
    model = client.get("/v1/games/moon-of-fortune").json()
    assert model["paylines"] == []
    assert model["count_pays"]["LANTERN"]["16"] == "200"
    assert model["decisions"] == {"gamble": ["collect", "sun", "moon"]}


def test_the_catalogue_gives_each_games_volatility_from_its_par_sheet(client):
    sheets = Path(__file__).resolve().parents[2] / "docs" / "par"
    for entry in client.get("/v1/games").json()["games"]:
        found = entry["volatility"]
        sheet = (sheets / f"{entry['code']}.md").read_text()
        assert (f"Standard deviation of one round: {found['std']} x total bet. Volatility index (z x standard "
                f"deviation): **{found['index']}** at 90% confidence") in sheet
    moon = client.get("/v1/games/moon-of-fortune").json()["volatility"]
    assert len(moon["by_bet"]) == 12  # 4 chance levels x 3 volatility levels, each simulated
    assert {"bet": "chance_level 6, volatility low", "index": "7.33", "word": "medium"} in moon["by_bet"]


def test_volatility_words_follow_the_index_bands(tmp_path):
    sheet = ("# X\n\n## Volatility and what a player sees\n\nStandard deviation of one round: 2.000 x total bet. "
             "Volatility index (z x standard deviation): **3.29** at 90% confidence, 3.92 at 95%.\n\n"
             "## RTP per bet configuration\n\n| bet | simulated RTP (99%) | hit frequency | volatility index (90%) |\n"
             "|---|---|---|---|\n| level 1 | 95.0000% ± 0.1 percentage points | 30.00% | 3.29 |\n"
             "| level 2 | 95.0000% ± 0.1 percentage points | 30.00% | 16.45 |\n\n## Next\n")
    (tmp_path / "sheets").mkdir()
    (tmp_path / "sheets" / "x.md").write_text(sheet)
    (tmp_path / "sheets" / "y.md").write_text("# Y\n\nno volatility stated\n")
    figures = tmp_path / "volatility.json"
    assert write(tmp_path / "sheets", figures) == {"x": {"std": "2.000", "index": "3.29", "by_bet": [
        {"bet": "level 1", "index": "3.29"}, {"bet": "level 2", "index": "16.45"}]}}
    assert volatility("x", figures) == {"word": "low", "std": "2.000", "index": "3.29", "by_bet": [
        {"bet": "level 1", "index": "3.29", "word": "low"}, {"bet": "level 2", "index": "16.45", "word": "high"}]}
    assert [word(i) for i in ("4.99", "5.00", "9.99", "10.00", "14.99", "15.00")] == [
        "low", "medium", "medium", "medium-high", "medium-high", "high"]
    assert volatility("y", figures) is None
    with pytest.raises(SystemExit, match="no PAR sheet"):  # an installed package has no docs/par to read
        write(tmp_path / "nowhere", figures)


def test_the_shipped_volatility_is_the_par_sheets():
    """The package ships the sheets' figures (an installed package has no docs/par): the file must
    say what the sheets in docs/par say, and ship with the package."""
    assert json.loads(FIGURES.read_text()) == read_sheets(SHEETS), (
        "src/slotforge/rgs/volatility.json differs from docs/par: run `python -m slotforge.rgs.volatility`")
    assert set(read_sheets(SHEETS)) == set(game_codes())
    package_data = tomllib.loads((SHEETS.parents[1] / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = FIGURES.relative_to(SHEETS.parents[1] / "src" / "slotforge").as_posix()
    assert any(fnmatch.fnmatch(shipped, pattern) for pattern in package_data["slotforge"]), "not package data"


def client_sources() -> str:
    """The client's TypeScript sources (the built bundle is checked against them elsewhere)."""
    web = Path(__file__).resolve().parents[2] / "web/src"
    return "\n".join(path.read_text() for path in sorted(web.rglob("*.ts")))
