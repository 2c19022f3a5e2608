"""The back office in Debian's Chromium as each role sees it: a viewer, support, finance and an
admin user sign in with their own names and passwords against a real ``slotforge serve``
process, and each sees only the views and buttons their role allows; finance voids a round and
the round page shows who did it; an admin makes a key on the keys page. The dashboard, every role's first view, shows the alerts."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from slotforge.db import connect
from slotforge.rgs.api import access
from slotforge.rgs.backoffice import users
from slotforge.rgs.schema import migrate, operators

from .conftest import SRC, Watch, close_watched, free_port, wait_ready, watched_page

PASSWORD = "a long enough password"
ALL_VIEWS = ["Dashboard", "Live RTP", "Players", "Rounds", "Outbox & wallet", "Free rounds", "Changes", "Keys & users"]
SEEN = {
    "viewer": ["Dashboard", "Live RTP"],
    "support": ["Dashboard", "Live RTP", "Players", "Rounds", "Outbox & wallet", "Free rounds", "Changes"],
    "finance": ["Dashboard", "Live RTP", "Players", "Rounds", "Outbox & wallet", "Free rounds", "Changes"],
    "admin": ALL_VIEWS,
}


@pytest.fixture(scope="module")
def office(tmp_path_factory):
    """A server process; an operator with a user of each role and two completed rounds."""
    folder = tmp_path_factory.mktemp("roles")
    database_url = f"sqlite:///{folder / 'roles.db'}"
    engine = connect(database_url)
    migrate(engine)
    with engine.begin() as conn:
        key = access.add_operator(conn, "acme", int(time.time() * 1000))
        operator_id = conn.execute(select(operators.c.id).where(operators.c.name == "acme")).scalar_one()
        for role in SEEN:
            users.add_user(conn, operator_id, role, PASSWORD, role, int(time.time() * 1000))
    engine.dispose()
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(SRC), "SLOTFORGE_GAMES": '["dynasty"]'}
    with open(folder / "server.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "slotforge.cli", "serve", "--port", str(port),
                                    "--database", database_url], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, process, folder / "server.log")
        headers = {"X-Api-Key": key}
        session = httpx.post(f"{url}/v1/operator/sessions", headers=headers,
                             json={"player_id": "ann", "currency": "EUR"}).json()
        httpx.post(f"{url}/v1/operator/players/ann/transactions", headers=headers,
                   json={"kind": "deposit", "amount": "50.00", "reference": "d-ann"})
        played = []
        for _ in range(2):
            body = httpx.post(f"{url}/v1/rounds", json={"game": "dynasty"}, timeout=30, headers={
                "Authorization": f"Bearer {session['token']}", "Idempotency-Key": secrets.token_hex(8)}).json()
            while body["round"]["status"] == "awaiting":
                body = httpx.post(f"{url}/v1/rounds/{body['round']['id']}/decisions", json={"choice": "collect"},
                                  timeout=30, headers={"Authorization": f"Bearer {session['token']}",
                                                       "Idempotency-Key": secrets.token_hex(8)}).json()
            played.append(body["round"]["id"])
        yield {"url": url, "rounds": played, "key": key}
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def signed_in(browser, office):
    """``signed_in("finance")``: a new page signed in as that role's user; fails on console errors."""
    opened: list[tuple[Any, Watch]] = []

    def open_page(role: str) -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = watched_page(context, office["url"], False, opened)
        page.goto(f"{office['url']}/operator")
        page.get_by_label("Name").fill(role)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in", exact=True).click()
        page.locator("#who").wait_for()
        return page

    yield open_page
    close_watched(opened)


@pytest.mark.parametrize("role", list(SEEN))
def test_each_role_sees_only_what_it_may(signed_in, office, role):
    page = signed_in(role)
    assert f"{role} ({role})" in page.locator("#who").inner_text()
    links = page.locator("header nav a").all_inner_texts()
    assert links == SEEN[role]
    assert page.locator("#alerts").inner_text() == "No alert is firing."  # the dashboard's alerts, every role's
    assert page.evaluate("document.cookie").startswith("slotforge_csrf=")  # the session's own is HTTP-only
    if role == "viewer":  # a view not its own, asked by address, is not shown
        page.goto(f"{office['url']}/operator#/rounds/{office['rounds'][0]}")
        page.get_by_role("heading", name="Dashboard").wait_for()
        assert page.get_by_role("heading", name=f"Round {office['rounds'][0]}").count() == 0
        return
    page.goto(f"{office['url']}/operator#/rounds/{office['rounds'][0]}")
    page.get_by_role("heading", name=f"Round {office['rounds'][0]}").wait_for()
    can_void = page.get_by_role("button", name="Void the round").count() == 1
    assert can_void == (role in ("finance", "admin"))


def test_finance_voids_a_round_and_the_round_shows_who(signed_in, office):
    page = signed_in("finance")
    round_id = office["rounds"][1]
    page.goto(f"{office['url']}/operator#/rounds/{round_id}")
    page.get_by_label("Reason (the malfunction)").fill("reels froze")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Void the round").click()
    page.locator("#voided-by").wait_for()
    assert page.locator("#voided-by").inner_text() == "operator:acme/user:finance"


def test_an_admin_makes_a_key_and_sees_it_once(signed_in, office):
    page = signed_in("admin")
    page.get_by_role("link", name="Keys & users").click()
    page.get_by_role("table", name="keys").wait_for()
    page.get_by_label("Key name").fill("reporting")
    page.get_by_label("read").check()
    page.get_by_role("button", name="Create key").click()
    secret = page.locator("#new-secret")
    secret.wait_for()
    answer = httpx.get(f"{office['url']}/v1/operator/reports/rtp", headers={"X-Api-Key": secret.inner_text()})
    assert answer.status_code == 200
    rows = page.get_by_role("table", name="keys").locator("tbody tr").all_inner_texts()
    assert any("reporting" in row and "read" in row for row in rows)
    assert "operator:acme/user:admin" in httpx.get(f"{office['url']}/v1/operator/changes",
                                                   headers={"X-Api-Key": office["key"]}).text
