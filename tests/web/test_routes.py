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
from slotforge.rgs.volatility import FIGURES, record, volatility, word

SHEETS = Path(__file__).resolve().parents[2] / "docs" / "par"


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
    figures = tmp_path / "volatility.json"
    record("x", {"std": "2.000", "index": "3.29", "by_bet": []}, figures)
    record("y", {"std": "9.000", "index": "14.80", "by_bet": [
        {"bet": "level 1", "index": "3.29"}, {"bet": "level 2", "index": "16.45"}]}, figures)
    record("x", {"std": "2.000", "index": "3.30", "by_bet": []}, figures)  # a game's entry replaced, no other
    assert volatility("x", figures) == {"word": "low", "std": "2.000", "index": "3.30", "by_bet": []}
    assert volatility("y", figures) == {"word": "medium-high", "std": "9.000", "index": "14.80", "by_bet": [
        {"bet": "level 1", "index": "3.29", "word": "low"}, {"bet": "level 2", "index": "16.45", "word": "high"}]}
    assert [word(i) for i in ("4.99", "5.00", "9.99", "10.00", "14.99", "15.00")] == [
        "low", "medium", "medium", "medium-high", "medium-high", "high"]
    assert volatility("z", figures) is None


CONFIGURATIONS = "| bet | simulated RTP (99%) | hit frequency | volatility index (90%) |"


def configuration_rows(sheet: str) -> dict[str, str]:
    """The volatility index of each row of a sheet's table of simulated bet configurations, by bet."""
    table = sheet.split(CONFIGURATIONS, 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split("|") for line in table.splitlines()[2:]]
    return {cells[0].strip(): cells[-1].strip() for cells in rows}


def test_the_shipped_volatility_is_the_par_sheets():
    """The package ships the volatility of every game (an installed package has no docs/par), as
    its sheet in docs/par states it: ``slotforge par --shipped`` writes both from the same data."""
    shipped = json.loads(FIGURES.read_text())
    assert set(shipped) == set(game_codes())
    for code, figures in shipped.items():
        sheet = (SHEETS / f"{code}.md").read_text()
        assert (f"Standard deviation of one round: {figures['std']} x total bet. Volatility index (z x standard "
                f"deviation): **{figures['index']}** at 90% confidence") in sheet, (
            f"{FIGURES} differs from docs/par/{code}.md: regenerate both with `slotforge par --shipped {code}`")
        rows = configuration_rows(sheet)
        assert {row["bet"]: row["index"] for row in figures["by_bet"]} == (rows if len(rows) > 1 else {}), code
    package_data = tomllib.loads((SHEETS.parents[1] / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    packaged = FIGURES.relative_to(SHEETS.parents[1] / "src" / "slotforge").as_posix()
    assert any(fnmatch.fnmatch(packaged, pattern) for pattern in package_data["slotforge"]), "not package data"


def client_sources() -> str:
    """The client's TypeScript sources (the built bundle is checked against them elsewhere)."""
    web = Path(__file__).resolve().parents[2] / "web/src"
    return "\n".join(path.read_text() for path in sorted(web.rglob("*.ts")))
