"""What a new player meets in a first hour of play, in a real browser: a round brought back by a
reload with nothing in front of its decision, the history in the player's words and time, the
UK's pace kept by the page itself, tile banners whole, a gamble's controls on a phone's screen,
and no empty panel on a desktop after a losing round."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.web.conftest import Watch, close_watched, watched_page
from tests.web.test_browser import GAMES, VIEWS, decide, example, open_game, spin

SHOTS = Path(os.environ.get("SLOTFORGE_SCREENSHOTS", "")) if os.environ.get("SLOTFORGE_SCREENSHOTS") else None
LOSING = {"screens": [[["NINE", "TEN", "JACK", "QUEEN", "KING"],
                       ["KING", "QUEEN", "NINE", "TEN", "JACK"],
                       ["TEN", "JACK", "KING", "NINE", "QUEEN"]]]}  # Dynasty: no line, no scatter


def shoot(page: Any, name: str) -> None:
    if SHOTS is not None:
        page.screenshot(path=str(SHOTS / f"{name}.png"))


def in_view(page: Any, selector: str) -> bool:
    """Whether ``selector``'s element lies wholly inside the window, as the page stands (no scroll)."""
    return page.evaluate("""selector => { const r = document.querySelector(selector).getBoundingClientRect();
        return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; }""",
                         selector)


def test_a_round_brought_back_by_a_reload_is_not_hidden_behind_the_intro(page_for, served):
    page = page_for(settings={"intro": True})
    open_game(page, served, "dynasty", "?qa")
    page.get_by_role("dialog", name="Dynasty intro").get_by_role("button", name="Play").click()
    round_ = spin(page, example("dynasty-gamble"))["round"]
    assert round_["status"] == "awaiting"
    page.reload()
    page.wait_for_selector("#app[data-ready=true]")
    assert page.locator("dialog.intro[open]").count() == 0
    finished = decide(page, "collect")["round"]  # pressed at once: nothing covers the buttons
    assert finished["id"] == round_["id"] and finished["status"] == "complete"
    page.reload()  # with no round waiting, the intro the settings ask for is back
    page.wait_for_selector("dialog.intro[open]")


def test_the_history_speaks_the_players_language_and_time(browser, served):
    """A New Yorker's browser: each round under its game's name and the local time; each step
    numbered once, by the list."""
    opened: list[tuple[Any, Watch]] = []
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US", timezone_id="America/New_York")
    context.add_init_script("localStorage.setItem('slotforge.settings', "
                            + json.dumps(json.dumps({"intro": False, "quickSpin": True})) + ")")
    page = watched_page(context, served.url, False, opened)
    try:
        page.goto(f"{served.url}/play/divine-fortune?token={served.real_session('default')}")
        page.wait_for_selector("#app[data-ready=true]")
        round_ = spin(page)["round"]
        while round_["status"] == "awaiting":
            round_ = decide(page, round_["awaiting"]["options"][0])["round"]
        page.get_by_role("button", name="History").click()
        button = page.locator(".history .rounds button").first
        label = button.inner_text().replace("\u202f", " ")
        moment = datetime.fromisoformat(round_["started_at"].replace("Z", "+00:00")).astimezone(ZoneInfo("America/New_York"))
        local = f"{moment:%b} {moment.day}, {moment.year}, {moment.hour % 12 or 12}:{moment:%M} {moment:%p}"
        assert label.startswith(f"#{round_['id']} Divine Fortune, {local}:"), label
        assert round_["started_at"][:16] not in label  # not the server's UTC text
        button.click()
        page.locator(".round-detail ol > li > .step-kind").first.wait_for()
        kinds = page.locator(".round-detail ol > li > .step-kind").all_inner_texts()
        assert kinds and kinds[0] == "Base", kinds  # "1. Base" is the list's number and this heading
        assert page.locator(".round-detail ol").evaluate("list => getComputedStyle(list).listStyleType") != "none"
    finally:
        close_watched(opened)


UK_ROUNDS = 8  # seven cycles of at least 2.5 s: a start the server refused would show in any of them


def test_under_the_uk_profile_the_page_keeps_the_pace_round_after_round(page_for, served):
    """The UK asks for 2.5 s between round starts and forbids quick spins: the player presses SPIN
    as soon as it can be pressed, ``UK_ROUNDS`` times; every start is 2.5 s or more after the last (the
    server refuses none), and no error is ever shown."""
    page = page_for(settings={"quickSpin": False})
    page.goto(f"{served.url}/play/dynasty?token={served.real_session('uk', deposit='500.00')}")
    page.wait_for_selector("#app[data-ready=true]")
    starts: list[float] = []
    statuses: list[int] = []
    shown_errors: list[str] = []
    page.on("request", lambda r: r.url.endswith("/v1/rounds") and r.method == "POST" and starts.append(time.monotonic()))
    page.on("response", lambda r: r.url.endswith("/v1/rounds") and r.request.method == "POST"
            and statuses.append(r.status))
    for _ in range(UK_ROUNDS):
        round_ = spin(page)["round"]
        while round_["status"] == "awaiting":
            round_ = decide(page, "collect")["round"]
        message = page.locator("#app .message").inner_text()
        if message:
            shown_errors.append(message)
    cycles = [b - a for a, b in pairwise(starts)]
    print(f"\nuk: {UK_ROUNDS} rounds, cycles {min(cycles):.2f} to {max(cycles):.2f} s")
    assert statuses == [200] * UK_ROUNDS
    assert shown_errors == []
    assert min(cycles) >= 2.5 - 0.05  # the browser's clock against the server's: the same machine


def banner_overflow(page: Any) -> list[str]:
    """The tiles whose banner's words are wider than the banner (as the browser lays them out)."""
    return page.evaluate("""() => [...document.querySelectorAll('.cell svg')].flatMap(svg => {
        const words = [...svg.querySelectorAll('text')].filter(t => t.previousElementSibling?.tagName === 'path');
        return words.filter(t => t.getBBox().width > 84).map(t => `${svg.getAttribute('aria-label')}: ${t.textContent}`);
    })""")


@pytest.mark.parametrize("code", GAMES)
def test_every_tiles_banner_holds_its_words(page_for, served, code):
    """Every symbol of the game placed on the phone's grid, a screenful at a time: no banner's
    words run past its ends ("EMPEROR", "FREE SPINS")."""
    page = page_for(viewport=VIEWS["phone"][0], mobile=True)
    open_game(page, served, code, "?qa")
    model = httpx.get(f"{served.url}/v1/games/{code}").json()
    rows, reels = model["grid"]["rows"], model["grid"]["reels"]
    symbols = [s["code"] for s in model["symbols"] if s["code"] != "BLANK"]
    overflowing: list[str] = []
    for first in range(0, len(symbols), rows * reels):
        page.evaluate("""([codes, reels]) => codes.forEach((code, i) =>
            window.slotforge.page.reels.place(Math.floor(i / reels), i % reels, code))""",
                      [symbols[first:first + rows * reels], reels])
        overflowing += banner_overflow(page)
    assert overflowing == []


def test_a_phone_keeps_the_gamble_and_the_spin_button_on_screen(page_for, served):
    page = page_for(viewport=VIEWS["phone"][0], mobile=True)
    open_game(page, served, "dynasty", "?qa")
    round_ = spin(page, example("dynasty-gamble"))["round"]
    assert round_["status"] == "awaiting"
    page.evaluate("window.scrollTo(0, 0)")
    for part in (".reels", ".decisions button[data-choice='collect']", ".decisions button[data-choice='spades']",
                 ".controls .spin", ".controls .autoplay"):
        assert in_view(page, part), part
    shoot(page, "first-hour-dynasty-gamble-phone")


def test_a_desktop_after_a_losing_round_shows_no_empty_panel(page_for, served):
    page = page_for()
    open_game(page, served, "dynasty", "?qa")
    round_ = spin(page, LOSING)["round"]
    assert round_["total_win"] == "0.00", round_
    stretched = page.evaluate("""() => [...document.querySelectorAll('.side > *')].filter(part => {
        const style = getComputedStyle(part);
        if (style.display === 'none' || style.backgroundColor === 'rgba(0, 0, 0, 0)') return false;
        const inside = [...part.children].reduce((sum, child) => sum + child.getBoundingClientRect().height, 0);
        return part.getBoundingClientRect().height > inside + 40;
    }).map(part => `${part.className}: ${part.getBoundingClientRect().height} px`)""")
    assert stretched == []
    shoot(page, "first-hour-dynasty-lost-desktop")
