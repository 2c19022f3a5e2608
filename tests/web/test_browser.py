"""The browser client in Chromium: the lobby, every game played through its page with the
balance moving by exactly the record's amounts, every forced feature and decision played to the
end, a reload in the middle of a decision, and a UK session's rules."""

from __future__ import annotations

import json
import os
import re
import statistics
import time
from decimal import Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from slotforge.db import connect
from slotforge.rgs.app import load_games
from slotforge.rgs.rounds.service import Server
from slotforge.rgs.settings import load_settings
from tests.rounds import open_forced_round

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GAMES = ["dynasty", "golden-grimoire", "divine-fortune", "moon-of-fortune", "wish-upon-a-jackpot"]
QUIET = [["TEN", "KING", "MEDUSA", "ACE", "QUEEN"],
         ["ACE", "QUEEN", "LION", "JACK", "TEN"],
         ["JACK", "EAGLE", "MINOTAUR", "KING", "ACE"]]


def example(name: str, drop_choices: bool = True) -> dict[str, Any]:
    script = json.loads((EXAMPLES / f"{name}.json").read_text())
    if drop_choices:
        script.pop("choices", None)  # the page makes the decisions
    script.pop("state", None)
    return script


# Each game's features forced through the page's QA field, with the decisions the player makes.
FEATURES = {
    "dynasty gamble": ("dynasty", example("dynasty-gamble"), ["red", "collect"], {"gamble"}),
    "dynasty free spins": ("dynasty", {"screens": [[["EMPEROR", "KING", "QUEEN", "ACE", "EMPEROR"],
                                                    ["NINE", "TEN", "EMPEROR", "JACK", "NINE"],
                                                    ["KOI", "ACE", "KING", "TEN", "QUEEN"]]]}, ["collect"], {"free"}),
    "golden-grimoire mystery and free spins": ("golden-grimoire", example("golden-grimoire-mystery"), [], {"free"}),
    "divine-fortune bonus game": ("divine-fortune", example("divine-fortune-major"), ["start_bonus"], {"bonus"}),
    "divine-fortune wild on wild": ("divine-fortune", example("divine-fortune-wild-on-wild"), [], {"respin"}),
    "divine-fortune free spins": ("divine-fortune", {"screens": [[["FREESPINS", "KING", "QUEEN", "ACE", "TEN"],
                                                                  ["ACE", "QUEEN", "FREESPINS", "JACK", "TEN"],
                                                                  ["JACK", "EAGLE", "MINOTAUR", "KING", "FREESPINS"]]]},
                                  [], {"free"}),
    **{f"wish-upon-a-jackpot {name.replace('-', ' ')}": ("wish-upon-a-jackpot", example(f"wish-upon-a-jackpot-{name}"),
                                                        example(f"wish-upon-a-jackpot-{name}", False)["choices"], kinds)
       for name, kinds in [("deal-maker", {"bonus"}), ("fairy-godmother", {"bonus"}), ("beanstalk", {"bonus"}),
                           ("three-little-pigs", {"free"}), ("rapunzel", {"free"})]},
    "moon-of-fortune hold the jackpot": ("moon-of-fortune", example("moon-of-fortune-collector"), [], {"bonus"}),
    "moon-of-fortune gamble": ("moon-of-fortune", {"screens": [[["WILD", "WILD", "JACK", "WILD"], ["ACE", "WILD", "WILD", "WILD"],
                                                                ["JACK", "JACK", "JACK", "WILD"], ["JACK", "JACK", "WILD", "MOONCAKE"]]],
                                                   "draws": {}}, ["sun", "collect"], {"gamble"}),
}


def amount(text: str) -> Decimal:
    """A displayed amount ("1,000.00 EUR") as a Decimal."""
    return Decimal(re.sub(r"[^0-9.\-]", "", text))


def balance(page) -> Decimal:
    return amount(page.locator("output.balance").inner_text())


def open_game(page, served, code: str, query: str = "") -> None:
    """From the lobby to the game, as a player: the lobby's play button starts fun play."""
    page.goto(f"{served.url}/{query}")
    page.get_by_role("button", name=re.compile(f"^Play {re.escape(name_of(code))}")).click()
    page.wait_for_url(f"**/play/{code}*")
    page.wait_for_selector("#app[data-ready=true]")


def name_of(code: str) -> str:
    return {"dynasty": "Dynasty", "golden-grimoire": "Golden Grimoire", "divine-fortune": "Divine Fortune",
            "moon-of-fortune": "Moon of Fortune", "wish-upon-a-jackpot": "Wish Upon a Jackpot"}[code]


def shown(page, round_id: int) -> None:
    """Wait until the page has shown every step of the round and paid or offered its decision."""
    page.wait_for_selector(f"#app[data-shown='{round_id}'][data-busy]", timeout=60_000)
    page.wait_for_function("document.getElementById('app').dataset.busy === 'false' || "
                           "document.querySelector('.decisions button') !== null", timeout=60_000)


def spin(page, script: dict | None = None) -> dict[str, Any]:
    """Press SPIN (with forced outcomes in the QA field) and return the server's answer."""
    if script is not None:
        page.get_by_label("QA script").fill(json.dumps(script))
    with page.expect_response(lambda r: r.url.endswith("/v1/rounds") and r.request.method == "POST") as answer:
        page.get_by_role("button", name="Spin").click()
    body = answer.value.json()
    assert answer.value.status == 200, body
    shown(page, body["round"]["id"])
    return body


def decide(page, choice: str) -> dict[str, Any]:
    with page.expect_response(lambda r: "/decisions" in r.url) as answer:
        page.locator(f".decisions button[data-choice='{choice}']").click()
    body = answer.value.json()
    assert answer.value.status == 200, body
    shown(page, body["round"]["id"])
    return body


def check_paid(page, before: Decimal, round_: dict[str, Any]) -> None:
    """The balance moved by exactly the record's amounts, and the page shows it."""
    assert Decimal(round_["balance_before"]) == before
    assert Decimal(round_["balance_after"]) - before == Decimal(round_["total_win"]) - Decimal(round_["total_bet"])
    assert balance(page) == Decimal(round_["balance_after"])
    assert amount(page.locator("output.last-win").inner_text()) == Decimal(round_["total_win"])


# The page's main parts, none of which may cover another: each selector's every visible box.
MAIN_PARTS = ["header.top", ".jackpots:not(.feature-meters)", ".reels", ".feature-meters > *", ".gamble > *",
              ".decisions > *", ".meters .meter", ".controls .bet", ".controls > button", ".log"]


def check_layout(page, inside_viewport: bool) -> None:
    """No two of the page's main parts overlap (the grid, the scene, the card, the decision's
    buttons, the meters, the controls, the log); with ``inside_viewport`` (a desktop) every one of
    them lies inside the window and the page does not scroll."""
    boxes = page.evaluate("""parts => parts.flatMap(selector => [...document.querySelectorAll(selector)]
        .map(e => [`${selector} [${e.className}] ${(e.getAttribute('aria-label') || e.textContent).slice(0, 40)}`,
                   e.getBoundingClientRect().toJSON()])
        .filter(([, r]) => r.width > 0 && r.height > 0))""", MAIN_PARTS)
    assert any(name.startswith(".reels") for name, _ in boxes) and any("[spin]" in name for name, _ in boxes)
    for (a, ra), (b, rb) in ((x, y) for i, x in enumerate(boxes) for y in boxes[i + 1:]):
        apart = (ra["right"] <= rb["left"] + 0.5 or rb["right"] <= ra["left"] + 0.5
                 or ra["bottom"] <= rb["top"] + 0.5 or rb["bottom"] <= ra["top"] + 0.5)
        assert apart, f"{a} {ra} overlaps {b} {rb}"
    if inside_viewport:
        width, height = page.evaluate("[innerWidth, innerHeight]")
        for name, r in boxes:
            assert r["left"] >= 0 and r["top"] >= 0 and r["right"] <= width and r["bottom"] <= height, f"{name} {r} is off the window"
        assert page.evaluate("document.documentElement.scrollHeight") <= height


def test_serve_prints_the_address_to_open(served):
    assert f"play in a browser at {served.url}/" in served.log.read_text()


def test_the_lobby_shows_every_game_with_its_rtp(page_for, served):
    page = page_for()
    started = time.perf_counter()
    page.goto(served.url + "/")
    page.wait_for_selector("#app[data-ready=true]")
    lobby_s = time.perf_counter() - started
    started = time.perf_counter()
    page.goto(served.url + "/play/dynasty")  # no session yet: the page opens a fun one
    page.wait_for_selector("#app[data-ready=true]")
    print(f"\nlobby usable in {lobby_s:.3f} s, a game page in {time.perf_counter() - started:.3f} s")
    page.goto(served.url + "/")
    page.wait_for_selector("#app[data-ready=true]")
    catalogue = httpx.get(f"{served.url}/v1/games").json()["games"]
    assert {g["code"] for g in catalogue} >= set(GAMES)
    for game in catalogue:
        card = page.locator(f"article[data-game='{game['code']}']")
        assert card.locator("h2").inner_text() == game["name"]
        # A strategy-dependent RTP shows the published range ("92.46% to 95.26%"), not its top alone.
        assert card.locator(".rtp").inner_text() == f"RTP {game['rtp_text']}"
        if game["code"] == "wish-upon-a-jackpot":
            assert card.locator(".rtp").inner_text() == "RTP 92.46% to 95.26%"
            assert "with the worst strategy" in card.locator(".rtp").get_attribute("title")
        # A plain scale for players (the word from the PAR sheet, via the catalogue); the figures are
        # the paytable's, not the lobby's.
        volatility = " ".join(card.locator(".volatility").inner_text().split())
        assert volatility.startswith(f"Volatility: {game['volatility']['word'].capitalize()}")
        assert game["volatility"]["index"] not in volatility and "standard deviation" not in volatility
        level = ["low", "medium", "medium-high", "high"].index(game["volatility"]["word"]) + 1
        assert card.get_by_role("img", name=f"{game['volatility']['word']} volatility, {level} of 4").count() == 1
        assert card.locator(".volatility .dots i.on").count() == level
        assert card.locator(".picture svg").count() >= 1


@pytest.mark.parametrize("code", GAMES)
def test_a_fun_spin_moves_the_balance_by_the_records_amounts(page_for, served, code):
    page = page_for()
    open_game(page, served, code)
    assert page.locator(".mode").inner_text() == "FUN PLAY"
    before = balance(page)
    body = spin(page)
    round_ = body["round"]
    stake = amount(page.locator("output.stake").inner_text())
    assert stake == Decimal(round_["total_bet"])  # the stake shown is the one taken
    while round_["status"] == "awaiting":
        round_ = decide(page, round_["awaiting"]["options"][0])["round"]
    check_paid(page, before, round_)
    shown_screen = json.loads(page.locator(".reels").get_attribute("data-screen"))
    last_screen = [s["screen"] for s in round_["steps"] if s["screen"]][-1]
    assert shown_screen == last_screen


@pytest.mark.parametrize("feature", FEATURES)
def test_a_forced_feature_plays_to_its_end_through_the_page(page_for, served, feature):
    code, script, choices, kinds = FEATURES[feature]
    page = page_for()
    open_game(page, served, code, "?qa")
    before = balance(page)
    round_ = spin(page, script)["round"]
    pending = list(choices)
    while round_["status"] == "awaiting":
        options = round_["awaiting"]["options"]
        buttons = page.locator(".decisions button[data-choice]")
        assert [buttons.nth(i).get_attribute("data-choice") for i in range(buttons.count())] == options
        check_layout(page, inside_viewport=True)  # the decision beside the reels, nothing covered
        choice = pending.pop(0) if pending and pending[0] in options else options[0]
        round_ = decide(page, choice)["round"]
    assert kinds <= {step["kind"] for step in round_["steps"]}, "the script did not force the feature"
    check_paid(page, before, round_)
    wins = [w for step in round_["steps"] for w in step["wins"]]
    assert page.locator(".wins li").count() == len(wins)
    # Everything the round told is in words: no raw id ("egg_2", "three_little_pigs"), no "1 scrolls".
    for text in page.locator(".wins li, .captions li, .feature-meters output").all_inner_texts():
        assert not re.search(r"\b[a-z]+_[a-z0-9_]+\b", text), f"a raw id in {text!r}"
        assert not re.search(r"\b1 (scroll|spin|re-spin|free spin|coin|row|wild|level|egg|bean)s\b", text, re.I), \
            f"a plural for one in {text!r}"
    listed = page.locator(".wins li").all_inner_texts()
    for win in (w for w in wins if w["kind"] == "jackpot"):  # one jackpot, not "2 × MAJOR"
        assert f"{win['symbol'].capitalize()} jackpot: {win['amount']}" in listed
    events = [e for step in round_["steps"] for e in step["events"]]
    climbs = [e for e in events if e["type"] == "prince_climbs"]
    if climbs:  # Rapunzel's tower shows where the Prince got to
        expected = f"level {climbs[-1]['level']} · wins ×{climbs[-1]['multiplier']}"
        assert page.get_by_label("Rapunzel's tower").inner_text() == expected
        assert page.get_by_role("img", name=f"The Prince has climbed to level {climbs[-1]['level']} of 5").count() == 1
    respins = [e for e in events if e["type"] == "respins"]
    if respins:  # Moon of Fortune's Hold the Jackpot
        expected = f"{respins[-1]['left']} re-spins left · {respins[-1]['filled']} of 16 filled"
        assert page.get_by_label("Hold the Jackpot").inner_text() == expected
    if code == "golden-grimoire":  # the grimoire: free spins as pages, the mysteries' symbol, the stickies
        awarded = sum(e["count"] for e in events if e["type"] == "free_spins_awarded")
        played = sum(step["kind"] == "free" for step in round_["steps"])
        symbol = [e for e in events if e["type"] in ("mystery", "sticky_mystery")][-1]["symbol"]
        sticky = len([e for e in events if e["type"] == "sticky_mystery"][-1]["positions"])
        expected = f"free spin {played} of {awarded} · mysteries turned {symbol} · {sticky} sticky"
        assert page.get_by_label("Grimoire", exact=True).inner_text() == expected
        assert page.get_by_role("img", name=f"The grimoire opens on {symbol}, free spin {played} of {awarded}, "
                                             f"{sticky} sticky mysteries held").count() == 1
        assert page.locator(".scene .page").count() == awarded
    coins = [e for e in events if e["type"] in ("bonus_placed", "bonus_landed")]
    if coins:  # Divine Fortune's frieze: a coin per cell, the jackpot won lit
        won = [w["jackpot"] for step in round_["steps"] for w in step["wins"] if w["kind"] == "jackpot"]
        won += [e["jackpot"] for e in events if e["type"] == "jackpot"]
        assert page.locator(".scene .coin").count() == len({e["cell"] for e in coins})
        assert [t.strip() for t in page.locator(".scene .plaque.lit").all_text_contents()] == won
        assert page.get_by_label("Bonus game").inner_text().startswith(f"{len(coins)} of 15 coins")
    falls = [e for e in events if e["type"] == "falling_wilds"]
    if any(e["count"] for e in falls):  # Divine Fortune's falling wilds: the latest drawn falling, the fallen at the foot
        assert page.get_by_label("Falling wilds").inner_text() == f"{falls[-1]['count']} on the reels"
        assert page.locator(".scene .wild.falling").count() == len(falls[-1]["cells"])
        gone = sum(row == 3 for e in falls for row, _ in e["cells"])  # off the bottom of the 3 rows
        if not falls[-1]["count"]:
            assert page.get_by_role("img", name=f"every wild has fallen: {gone} off the reels").count() == 1
    elif falls:  # a spin without a falling wild tells none
        assert page.get_by_label("Falling wilds").count() == 0
    last = [step for step in round_["steps"] if step["screen"]][-1]  # the screen the page ends on
    stickies = [e for e in last["events"] if e["type"] == "sticky_mystery"]
    if stickies:  # Golden Grimoire's sticky mysteries stay marked through the free spins
        assert set(marked(page, "sticky")) == {(p["row"] - 1, p["reel"] - 1) for p in stickies[-1]["positions"]}
    if last["kind"] == "bonus" and code in ("moon-of-fortune", "divine-fortune"):  # the coins held
        coins = {(r, x) for r, row in enumerate(last["screen"]) for x, symbol in enumerate(row) if symbol != "BLANK"}
        assert set(marked(page, "held")) == coins
        full = {(r, x) for r, row in enumerate(last["screen"]) if "BLANK" not in row for x in range(len(row))}
        assert set(marked(page, "full")) == (full if code == "divine-fortune" else set())  # a full row wins a jackpot
    check_layout(page, inside_viewport=True)
    folder = os.environ.get("SLOTFORGE_SCREENSHOTS")
    scene = page.locator(".feature-meters .scene" if page.locator(".feature-meters .scene").count() else ".gamble")
    if folder and page.locator(".feature-meters .scene, .gamble .card").count():  # docs/client.md shows the scenes
        scene.first.screenshot(path=str(Path(folder) / f"scene-{feature.replace(' ', '-')}.png"), animations="disabled")
    if folder:  # and the whole page at the feature's end, its total counted up
        page.wait_for_selector(".banner:not([data-total]), .banner[data-counted]", state="attached")
        page.locator(".qa").evaluate("qa => qa.remove()")
        page.screenshot(path=str(Path(folder) / f"feature-{feature.replace(' ', '-')}.png"), animations="disabled")
        page.set_viewport_size(VIEWS["phone"][0])  # the same moment on a phone's width, the whole page
        page.screenshot(path=str(Path(folder) / f"feature-{feature.replace(' ', '-')}-phone.png"), animations="disabled",
                        full_page=True)
        page.set_viewport_size(VIEWS["desktop"][0])
    beans = [e for e in events if e["type"] == "bean"]
    if beans:  # levels 1 to 8 pay the trail's prizes; past them is the top
        level = beans[-1]["level"]
        expected = f"level {level} of 8" if level <= 8 else "the top: pick a golden egg"
        assert page.get_by_label("Beanstalk").inner_text() == expected
        assert page.get_by_role("img", name=re.compile("^Jack has climbed")).count() == 1


def test_a_reload_in_the_middle_of_a_decision_resumes_the_round(page_for, served):
    page = page_for()
    open_game(page, served, "dynasty", "?qa")
    before = balance(page)
    round_ = spin(page, example("dynasty-gamble"))["round"]
    assert round_["status"] == "awaiting"
    page.reload()
    page.wait_for_selector("#app[data-ready=true]")
    assert page.locator("#app").get_attribute("data-round") == str(round_["id"])
    assert page.get_by_role("button", name="Spin").is_disabled()
    buttons = page.locator(".decisions button[data-choice]")
    assert buttons.count() == len(round_["awaiting"]["options"])
    assert json.loads(page.locator(".reels").get_attribute("data-screen")) == round_["steps"][0]["screen"]
    finished = decide(page, "collect")["round"]
    assert finished["id"] == round_["id"] and finished["status"] == "complete"
    check_paid(page, before, finished)


def test_a_uk_session_has_no_autoplay_keeps_the_rhythm_and_shows_net_position(page_for, served):
    token = served.real_session("uk")
    page = page_for(settings={"quickSpin": True})
    page.goto(f"{served.url}/play/dynasty?token={token}")
    page.wait_for_selector("#app[data-ready=true]")
    assert "token" not in page.url  # taken out of the address bar
    assert page.locator(".mode").inner_text() == "REAL MONEY"
    assert page.get_by_role("button", name="Autoplay").count() == 0
    assert page.get_by_label("Net position").is_visible() and page.get_by_label("Session time").is_visible()
    starts, statuses = [], []
    page.on("response", lambda r: r.url.endswith("/v1/rounds") and r.request.method == "POST" and statuses.append(r.status))
    page.on("request", lambda r: r.url.endswith("/v1/rounds") and r.method == "POST" and starts.append(time.monotonic()))
    net = Decimal("0.00")
    for turn in range(3):
        if turn == 0:  # no quick spin and no quick stop here: SPIN stays disabled while the reels turn
            with page.expect_response(lambda r: r.url.endswith("/v1/rounds")) as answer:
                page.get_by_role("button", name="Spin").click()
            # The reels start turning once the page has read the answer: waited for, not raced.
            expect(page.locator(".reels.spinning")).to_have_count(1)
            assert page.get_by_role("button", name="Spin").is_disabled()
            round_ = answer.value.json()["round"]
            shown(page, round_["id"])
        else:
            round_ = spin(page)["round"]
        while round_["status"] == "awaiting":
            round_ = decide(page, "collect")["round"]
        net += Decimal(round_["total_win"]) - Decimal(round_["total_bet"])
        assert amount(page.get_by_label("Net position").inner_text()) == net
    gaps = [b - a for a, b in pairwise(starts)]
    print(f"\nuk: gaps between round starts {[f'{g:.2f}' for g in gaps]} s")
    assert statuses == [200, 200, 200]  # never refused with MIN_ROUND_DURATION
    assert min(gaps) >= 2.5 - 0.05  # the client's clock against the server's: same machine
    check_layout(page, inside_viewport=True)  # with its net position and session time meters too


def test_history_shows_each_round_verified_by_replay(page_for, served):
    token = served.real_session("default")
    page = page_for()
    page.goto(f"{served.url}/play/divine-fortune?token={token}")
    page.wait_for_selector("#app[data-ready=true]")
    round_ = spin(page)["round"]
    while round_["status"] == "awaiting":
        round_ = decide(page, round_["awaiting"]["options"][0])["round"]
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name=re.compile(f"^#{round_['id']} ")).click()
    assert page.locator(".verified").first.inner_text().startswith("✔ verified by replay")
    assert page.locator(".round-detail .mini-screen").count() == sum(1 for s in round_["steps"] if s["screen"])


def test_fun_play_keeps_no_history(page_for, served):
    page = page_for()
    open_game(page, served, "golden-grimoire")
    page.get_by_role("button", name="History").click()
    assert page.get_by_text("History is not available when playing for fun.").is_visible()


def test_an_api_error_is_said_in_words(page_for, served):
    token = served.real_session("default", deposit="0.10")
    page = page_for(http_errors_expected=True)
    page.goto(f"{served.url}/play/dynasty?token={token}")
    page.wait_for_selector("#app[data-ready=true]")
    with page.expect_response(lambda r: r.url.endswith("/v1/rounds")) as answer:
        page.get_by_role("button", name="Spin").click()
    assert answer.value.status == 402
    # The alert is on the page before its message: wait for the message the answer puts there.
    expect(page.get_by_role("alert").first).to_have_text(re.compile(r"^Not enough money for this stake \(balance 0\.10\)"))
    assert balance(page) == Decimal("0.10")


def test_reels_animate_and_frame_times_are_printed(page_for, served):
    page = page_for(settings={"quickSpin": False})
    open_game(page, served, "golden-grimoire")
    page.evaluate("window.slotforge.frameTimes.length = 0")
    for _ in range(2):
        body = spin(page)
        while body["round"]["status"] == "awaiting":
            body = decide(page, body["round"]["awaiting"]["options"][0])
    frames = page.evaluate("window.slotforge.frameTimes")
    assert len(frames) > 30  # the reels moved over many frames
    fps = 1000 / statistics.mean(frames)
    print(f"\nframe times while reels spin: {len(frames)} frames, mean {statistics.mean(frames):.2f} ms "
          f"({fps:.1f} fps), p95 {statistics.quantiles(frames, n=20)[-1]:.2f} ms, max {max(frames):.2f} ms, "
          f"over 20 ms: {sum(f > 20 for f in frames)}")


def mystery_without_free_spins() -> dict[str, Any]:
    """Golden Grimoire's mystery example with its third scatter taken away: one screen."""
    script = example("golden-grimoire-mystery")
    first = script["screens"][0]
    first[2][4] = "BEETLE"
    return {"screens": [first], "draws": {"mystery_symbol": ["HEART"]}}


SHOWCASE = {
    "dynasty": example("dynasty-gamble"),
    "golden-grimoire": mystery_without_free_spins(),
    "divine-fortune": example("divine-fortune-wild-on-wild"),
    "moon-of-fortune": example("moon-of-fortune-collector"),
    "wish-upon-a-jackpot": example("wish-upon-a-jackpot-deal-maker"),
}
VIEWS = {"desktop": ({"width": 1280, "height": 800}, False), "phone": ({"width": 390, "height": 844}, True)}


@pytest.mark.parametrize("view", VIEWS)
def test_screenshots_of_every_game(page_for, served, tmp_path, view):
    """A screenshot of each game after a forced round, on a desktop and a phone (portrait), and of
    the lobby; into ``SLOTFORGE_SCREENSHOTS`` (the README's come from docs/screenshots) or a
    temporary folder. The phone's page must fit its width: nothing scrolls sideways."""
    folder = Path(os.environ.get("SLOTFORGE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    viewport, mobile = VIEWS[view]
    page = page_for(viewport=viewport, mobile=mobile)
    page.goto(served.url + "/")
    page.wait_for_selector("#app[data-ready=true]")
    page.screenshot(path=str(folder / f"lobby-{view}.png"))
    for code, script in SHOWCASE.items():
        open_game(page, served, code, "?qa")
        spin(page, script)
        page.locator(".qa").evaluate("qa => qa.remove()")  # the QA field is not what players see
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        check_layout(page, inside_viewport=not mobile)
        page.wait_for_selector(".banner:not([data-total]), .banner[data-counted]", state="attached")  # counted up
        page.screenshot(path=str(folder / f"{code}-{view}.png"))
        page.goto(served.url + "/")
    assert all((folder / f"{name}-{view}.png").is_file() for name in [*SHOWCASE, "lobby"])


def test_autoplay_plays_its_rounds_under_a_loss_limit_and_stops(page_for, served):
    token = served.real_session("default")
    page = page_for()  # no refused request, so no console error: the page asks the plan, not a round
    page.goto(f"{served.url}/play/golden-grimoire?token={token}")
    page.wait_for_selector("#app[data-ready=true]")
    page.get_by_role("button", name="Autoplay").click()
    dialog = page.get_by_role("dialog", name="Autoplay")
    dialog.get_by_label("Rounds").select_option("5")
    dialog.get_by_role("button", name="Start autoplay").click()  # no loss limit: the jurisdiction wants one
    expect(dialog.get_by_role("alert")).to_contain_text("loss limit is required")
    dialog.get_by_label("Stop if cash decreases by (loss limit)").fill("50.00")
    answers = []
    page.on("response", lambda r: r.url.endswith("/v1/rounds") and r.request.method == "POST"
            and answers.append((r.status, r.request.post_data_json, r.json())))
    dialog.get_by_role("button", name="Start autoplay").click()
    expect(page.get_by_role("alert").first).to_have_text("Autoplay stopped: all rounds played.", timeout=60_000)
    played = [body for status, _, body in answers if status == 200]
    assert len(played) == 5 and len(answers) == 5  # no sixth round sent for the server to refuse
    plan = {request["autoplay"] for _, request, _ in answers}
    assert len(plan) == 1 and None not in plan  # every round counted against the plan
    assert balance(page) == Decimal(played[-1]["balance"])
    assert page.get_by_role("button", name="Spin").inner_text() == "SPIN"


def test_settings_quick_spin_where_allowed_and_the_spacebar(page_for, served):
    uk = page_for(settings={"quickSpin": False})
    uk.goto(f"{served.url}/play/dynasty?token={served.real_session('uk')}")
    uk.wait_for_selector("#app[data-ready=true]")
    uk.get_by_role("button", name="Settings").click()
    assert uk.get_by_role("checkbox", name="Quick spin (not allowed here)").is_disabled()
    page = page_for(settings={"quickSpin": True})
    open_game(page, served, "golden-grimoire")
    with page.expect_response(lambda r: r.url.endswith("/v1/rounds")) as answer:
        page.keyboard.press("Space")
    shown(page, answer.value.json()["round"]["id"])
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("checkbox", name="Spacebar to spin").uncheck()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="Settings")).to_have_count(0)
    # The closed dialog gives the focus back to the Settings button, where a Space would press
    # the button (and open the dialog again); the spacebar is the game's when nothing has focus.
    # The focus may come back to the button a frame after the dialog closes: blurred until the
    # page itself has it.
    page.wait_for_function("() => { document.activeElement?.blur(); return document.activeElement === document.body; }",
                           polling="raf")
    sent = []
    page.on("request", lambda r: r.url.endswith("/v1/rounds") and sent.append(r))
    page.keyboard.press("Space")
    # The spacebar's keydown is handled at once; a click on Spin after it sends a round, so the
    # rounds sent by then show whether the spacebar sent one first.
    with page.expect_response(lambda r: r.url.endswith("/v1/rounds")):
        page.get_by_role("button", name="Spin").click()
    assert len(sent) == 1  # the click's round alone: the spacebar sent none


def test_a_reality_check_shows_time_and_net_position(page_for, served):
    page = page_for()
    page.goto(f"{served.url}/play/moon-of-fortune?token={served.real_session('brisk')}")
    page.wait_for_selector("#app[data-ready=true]")
    check = page.get_by_role("dialog", name="Reality check")
    check.wait_for(timeout=10_000)  # every 3 s in this jurisdiction
    assert "Net position this session: 0.00 EUR" in check.inner_text()
    check.get_by_role("button", name="Keep playing").click()
    assert page.get_by_role("dialog", name="Reality check").count() == 0


def test_a_win_not_above_the_stake_is_not_celebrated(page_for, served):
    page = page_for()
    open_game(page, served, "dynasty", "?qa")
    script = {"screens": [[["ACE", "KING", "QUEEN", "JACK", "TEN"], ["NINE", "NINE", "NINE", "KOI", "QUEEN"],
                           ["KING", "ACE", "JACK", "QUEEN", "KOI"]]]}
    round_ = spin(page, script)["round"]
    round_ = decide(page, "collect")["round"]
    assert Decimal(round_["total_win"]) == Decimal("0.05") < Decimal(round_["total_bet"])  # 3 NINE x 5 coins x 0.01
    banner = page.locator(".banner")
    assert banner.inner_text() == "Paid 0.05 EUR" and "celebrate" not in banner.get_attribute("class")
    assert page.locator(".cell.win").count() == 3  # the three NINEs of line 1 (the middle row)


def open_mega_as_a_second_worker(served, authorization: str) -> int:
    """A real round of Divine Fortune waiting for its bonus start, whose bonus fills the grid and
    wins the Mega. Real play takes no forced outcomes over HTTP, so the round is opened by the
    round service itself, as a second worker on the served server's database would open it."""
    game = load_games(["divine-fortune"])["divine-fortune"]
    worker = Server(load_settings(served.log.parent / "settings.toml", database_url=served.database_url),
                    connect(served.database_url), {game.code: game})
    try:
        opened = open_forced_round(worker, authorization, game, example("divine-fortune-mega"))
    finally:
        worker.engine.dispose()
    assert opened["status"] == "awaiting"
    return opened["id"]


def test_divine_fortunes_jackpots_are_shown_live(page_for, served):
    page = page_for()
    asked = []
    page.on("request", lambda r: "/v1/jackpots" in r.url and asked.append(r.url.split("?")[0].removeprefix(served.url)))
    open_game(page, served, "divine-fortune")
    page.get_by_label("Bet Level").select_option("2")
    stake = amount(page.locator("output.stake").inner_text())
    assert stake == Decimal("0.40")  # 2 levels x 20 coins x 0.01
    assert amount(page.get_by_label("Minor jackpot").inner_text()) == 20 * stake
    assert amount(page.get_by_label("Major jackpot").inner_text()) == 100 * stake
    pool = httpx.get(f"{served.url}/v1/jackpots", headers={"Authorization": "Bearer " + page.evaluate(
        "JSON.parse(sessionStorage.getItem('slotforge.session')).token")}).json()["pools"][0]
    expect(page.get_by_label("Mega jackpot")).to_have_text(f"{Decimal(pool['current']):,.2f} EUR")
    assert set(asked) == {"/v1/jackpots/stream"}  # followed on the live stream, not polled
    token = page.evaluate("JSON.parse(sessionStorage.getItem('slotforge.session')).token")
    logged = served.log.read_text()
    assert "/v1/jackpots/stream?token=…" in logged and token not in logged  # the query's token kept out of the log

    # Another player wins the Mega: this page says so and shows the re-seeded pot, without a reload.
    winner = {"Authorization": "Bearer " + served.real_session("default", deposit="500.00")}
    round_id = open_mega_as_a_second_worker(served, winner["Authorization"])
    won = httpx.post(f"{served.url}/v1/rounds/{round_id}/decisions",
                     headers={**winner, "Idempotency-Key": "mega"}, json={"choice": "start_bonus"}).json()["round"]
    assert Decimal(won["jackpot_win"]) >= Decimal(pool["current"])
    said = time.monotonic()
    expect(page.locator(".jackpot-news")).to_have_text(f"Mega jackpot won: {Decimal(won['jackpot_win']):,.2f} EUR",
                                                      timeout=3000)
    print(f"\nanother player's Mega shown {time.monotonic() - said:.2f} s after its round finished")
    reseeded = Decimal(httpx.get(f"{served.url}/v1/jackpots", headers=winner).json()["pools"][0]["current"])
    assert reseeded < Decimal(won["jackpot_win"])
    expect(page.get_by_label("Mega jackpot")).to_have_text(f"{reseeded:,.2f} EUR", timeout=3000)


def test_the_paytable_comes_from_the_model_with_the_rtp(page_for, served):
    page = page_for()
    open_game(page, served, "dynasty")
    page.get_by_role("button", name="Paytable").click()
    table = page.get_by_role("dialog", name="Dynasty: paytable and rules")
    assert "Return to player: 95.00%" in table.inner_text()
    dragon = table.locator("tr", has=page.locator("th.sym", has_text="DRAGON"))
    assert [dragon.locator("td").nth(i).inner_text() for i in range(4)] == ["2", "50", "250", "1000"]
    assert table.locator("figure.payline").count() == 20


def test_the_intro_screen_can_be_turned_off(page_for, served):
    page = page_for(settings={"intro": True})
    open_game(page, served, "moon-of-fortune")
    intro = page.get_by_role("dialog", name="Moon of Fortune intro")
    intro.get_by_role("checkbox", name="Show this screen next time").uncheck()
    intro.get_by_role("button", name="Play").click()
    page.reload()
    page.wait_for_selector("#app[data-ready=true]")
    assert page.get_by_role("dialog").count() == 0


def marked(page, mark: str) -> dict[tuple[int, int], str]:
    """The cells the page marks with ``mark``: (row, reel) -> the symbol shown."""
    cells = page.locator(f".reels .cell[data-mark='{mark}'], .reels .cell.{mark}")
    return {(int(cells.nth(i).get_attribute("data-row")), int(cells.nth(i).get_attribute("data-reel"))):
            cells.nth(i).get_attribute("data-symbol") for i in range(cells.count())}


def test_moon_of_fortunes_carried_stickies_are_marked_on_the_grid(page_for, served):
    """A sticky won at one bet configuration is marked where it landed, kept on the grid after the
    round and after a reload (GET /v1/session gives the carried state) for that configuration only,
    and lands marked in the next round."""
    page = page_for()
    open_game(page, served, "moon-of-fortune", "?qa")
    page.get_by_label("Chance Level").select_option("2")
    page.get_by_label("Volatility").select_option("high")
    round_ = spin(page, example("moon-of-fortune-sticky"))["round"]
    while round_["status"] == "awaiting":
        round_ = decide(page, "collect")["round"]
    stickies = [e for e in round_["steps"][0]["events"] if e["type"] == "sticky"]
    assert [(e["cell"], e["symbol"]) for e in stickies] == [(0, "MYSTERY")]
    assert marked(page, "sticky") == {(0, 0): "MYSTERY"}
    held = round_["state"]["1.00/x2/high"]["held"]
    kept = {(h["cell"] // 4, h["cell"] % 4): h["symbol"] for h in held}
    assert (0, 0) in kept and marked(page, "carried") == kept

    page.reload()
    page.wait_for_selector("#app[data-ready=true]")
    token = page.evaluate("JSON.parse(sessionStorage.getItem('slotforge.session')).token")
    session = httpx.get(f"{served.url}/v1/session", headers={"Authorization": f"Bearer {token}"}).json()
    assert session["carried_state"]["moon-of-fortune"] == round_["state"]
    assert marked(page, "carried") == {}  # the default bet configuration keeps nothing
    page.get_by_label("Chance Level").select_option("2")
    page.get_by_label("Volatility").select_option("high")
    assert marked(page, "carried") == kept
    for cell in held:
        if cell["symbol"] == "CASH":  # a held CASH keeps its value (x bet 1.00)
            value = page.locator(f".cell[data-row='{cell['cell'] // 4}'][data-reel='{cell['cell'] % 4}'] .value")
            assert amount(value.inner_text()) == cell["value"]
    nxt = spin(page)["round"]
    while nxt["status"] == "awaiting":
        nxt = decide(page, "collect")["round"]
    assert nxt["steps"][0]["screen"][0][0] == "MYSTERY"
    after = {(h["cell"] // 4, h["cell"] % 4): h["symbol"] for h in (nxt["state"] or {}).get("1.00/x2/high", {}).get("held", [])}
    assert marked(page, "carried") == after


FOCUSED = """(() => { const e = document.activeElement;
  return e && e !== document.body ? (e.getAttribute('aria-label') || e.labels?.[0]?.textContent.trim() || e.textContent.trim()) : null })()"""


def tab_to(page, name: str, key: str = "Tab", limit: int = 40) -> list[str | None]:
    """Press ``key`` until the control named ``name`` has the focus; the names passed on the way."""
    passed = []
    for _ in range(limit):
        page.keyboard.press(key)
        passed.append(page.evaluate(FOCUSED))
        if passed[-1] == name:
            return passed
    raise AssertionError(f"{name!r} not reached with {key}: {passed}")


def test_a_round_with_a_decision_played_with_the_keyboard_only(page_for, served):
    """Every control is in the Tab order; Enter and Space press buttons; the decision's buttons
    take the focus and SPIN gets it back; Escape closes a dialog and gives the focus back."""
    page = page_for()
    open_game(page, served, "dynasty", "?qa")
    page.get_by_label("QA script").fill(json.dumps(example("dynasty-gamble")))  # the test's harness, not a control
    order = [name for name in tab_to(page, "Spin") if name]  # from the QA field, round the page to SPIN
    assert order == ["Lobby", "Paytable", "History", "Settings", "Lines", "Coins Per Line", "Coin Value", "Max bet",
                     "Autoplay", "Spin"]
    before = balance(page)
    with page.expect_response(lambda r: r.url.endswith("/v1/rounds")) as answer:
        page.keyboard.press("Enter")
    round_ = answer.value.json()["round"]
    shown(page, round_["id"])
    assert page.evaluate(FOCUSED) == "Collect"  # the decision's first option has the focus
    tab_to(page, "Red")
    with page.expect_response(lambda r: "/decisions" in r.url) as answer:
        page.keyboard.press("Enter")
    shown(page, round_["id"])
    expect(page.get_by_role("img", name="Drawn: HEARTS")).to_be_visible()
    assert page.evaluate(FOCUSED) == "Collect"
    with page.expect_response(lambda r: "/decisions" in r.url) as answer:
        page.keyboard.press("Space")
    finished = answer.value.json()["round"]
    shown(page, finished["id"])
    assert finished["status"] == "complete" and finished["inputs"]["choices"] == ["red", "collect"]
    check_paid(page, before, finished)
    expect(page.locator(".gamble .card")).to_have_count(1)  # one card drawn, turned over once
    expect(page.get_by_role("button", name="Spin")).to_be_focused()  # ready for the next round

    tab_to(page, "Settings", "Shift+Tab")
    page.keyboard.press("Enter")
    settings = page.get_by_role("dialog", name="Settings")
    expect(settings).to_be_visible()
    tab_to(page, "Spacebar to spin")
    page.keyboard.press("Space")
    assert json.loads(page.evaluate("localStorage.getItem('slotforge.settings')"))["spacebar"] is False
    page.keyboard.press("Escape")
    expect(settings).to_have_count(0)
    assert page.evaluate(FOCUSED) == "Settings"
    tab_to(page, "Autoplay")
    page.keyboard.press("Space")
    expect(page.get_by_role("dialog", name="Autoplay")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="Autoplay")).to_have_count(0)
    assert page.evaluate(FOCUSED) == "Autoplay"


TAPPABLE = """[...document.querySelectorAll('button, a, select, summary, input, textarea')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map((e) => { const target = e.type === 'checkbox' ? e.closest('label') : e; const r = target.getBoundingClientRect();
                return [e.getAttribute('aria-label') || e.name || e.textContent.trim(), Math.round(r.width), Math.round(r.height)] })"""


def small_targets(page) -> list:
    return [t for t in page.evaluate(TAPPABLE) if t[1] < 44 or t[2] < 44]


def test_a_round_with_a_decision_played_by_touch_on_a_phone(page_for, served):
    """Phone portrait with a touch screen: every control is at least 44 px each way, and a round
    with a decision is played with taps."""
    viewport, _ = VIEWS["phone"]
    page = page_for(viewport=viewport, mobile=True)
    page.goto(f"{served.url}/?qa")
    page.wait_for_selector("#app[data-ready=true]")
    assert small_targets(page) == []
    page.get_by_role("button", name="Play Dynasty for fun").tap()
    page.wait_for_url("**/play/dynasty*")
    page.wait_for_selector("#app[data-ready=true]")
    assert small_targets(page) == []
    page.get_by_label("QA script").fill(json.dumps(example("dynasty-gamble")))
    before = balance(page)
    with page.expect_response(lambda r: r.url.endswith("/v1/rounds")) as answer:
        page.get_by_role("button", name="Spin").tap()
    round_ = answer.value.json()["round"]
    shown(page, round_["id"])
    assert small_targets(page) == []  # the decision's buttons too
    for choice in ["red", "collect"]:
        with page.expect_response(lambda r: "/decisions" in r.url) as answer:
            page.locator(f".decisions button[data-choice='{choice}']").tap()
        shown(page, round_["id"])
    finished = answer.value.json()["round"]
    assert finished["inputs"]["choices"] == ["red", "collect"]
    check_paid(page, before, finished)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for menu in ["Settings", "Paytable"]:
        page.get_by_role("button", name=menu).tap()
        assert small_targets(page) == [], menu
        page.get_by_role("dialog").get_by_role("button", name="Close").tap()
        expect(page.get_by_role("dialog")).to_have_count(0)
