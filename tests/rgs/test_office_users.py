"""Back-office users: people sign in with their own name and password, each with a role that
allows only its part of the back office; sessions in HTTP-only SameSite cookies, a CSRF token on
every write, a lockout after repeated failures, and no password ever stored or logged in clear."""

from __future__ import annotations

import logging

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from slotforge.rgs.backoffice import users
from slotforge.rgs.backoffice.roles import ROLES
from slotforge.rgs.schema import change_log, office_users

PASSWORD = "a long enough password"


def add_user(api, name: str, role: str, password: str = PASSWORD) -> None:
    made = api.operator("POST", "/v1/operator/users", json={"name": name, "password": password, "role": role})
    assert made.status_code == 200, made.text


def signed_in(api, name: str, password: str = PASSWORD) -> tuple[TestClient, dict[str, str]]:
    """A browser of its own (its own cookies), signed in as ``name``; the CSRF header of its writes."""
    browser = TestClient(api.client.app)
    answer = browser.post("/v1/operator/sign-in", json={"name": name, "password": password})
    assert answer.status_code == 200, answer.text
    return browser, {"X-CSRF-Token": answer.json()["csrf_token"]}


@pytest.fixture
def office(api):
    """An operator with one user of each role, and a completed round to void."""
    suffix = api.operator_key[:6].replace("-", "x").replace("_", "y")
    names = {role: f"{role}-{suffix}" for role in ROLES}
    for role, name in names.items():
        add_user(api, name, role)
    player = api.player()
    round_id = player.finish(player.play())["round"]["id"]
    return {"names": names, "round": round_id}


def test_the_session_cookie_is_http_only_and_same_site(api, office):
    browser = TestClient(api.client.app)
    answer = browser.post("/v1/operator/sign-in", json={"name": office["names"]["viewer"], "password": PASSWORD})
    cookies = answer.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("slotforge_office="))
    csrf = next(c for c in cookies if c.startswith("slotforge_csrf="))
    assert "HttpOnly" in session and "SameSite=strict" in session
    assert "HttpOnly" not in csrf and "SameSite=strict" in csrf
    me = browser.get("/v1/operator/me").json()
    assert me["role"] == "viewer" and me["abilities"] == ["reports"]


def test_a_viewer_cannot_void_and_the_attempt_is_logged(api, office, database_url):
    browser, csrf = signed_in(api, office["names"]["viewer"])
    assert browser.get("/v1/operator/reports/rtp").status_code == 200
    assert browser.get("/v1/operator/players").status_code == 403  # support's
    refused = browser.post(f"/v1/operator/rounds/{office['round']}/void", json={"reason": "x"}, headers=csrf)
    assert refused.status_code == 403 and refused.json()["error"] == "FORBIDDEN"
    assert "role finance or above" in refused.json()["message"]
    entries = api.operator("GET", "/v1/operator/changes").json()["changes"]
    logged = next(entry for entry in entries if entry["kind"] == "access_refused")
    assert logged["actor"].endswith(f"/user:{office['names']['viewer']}")
    assert logged["subject"] == f"POST /v1/operator/rounds/{office['round']}/void"
    assert not any(entry["kind"] == "round_voided" for entry in entries)


def test_finance_voids_and_the_round_names_who(api, office):
    browser, csrf = signed_in(api, office["names"]["finance"])
    voided = browser.post(f"/v1/operator/rounds/{office['round']}/void", json={"reason": "reels stuck"}, headers=csrf)
    assert voided.status_code == 200, voided.text
    detail = browser.get(f"/v1/operator/rounds/{office['round']}").json()
    assert detail["voided_by"].endswith(f"/user:{office['names']['finance']}")
    assert browser.get("/v1/operator/keys").status_code == 403  # an admin's


def test_a_write_without_the_csrf_token_is_refused(api, office):
    browser, csrf = signed_in(api, office["names"]["admin"])
    bare = browser.post(f"/v1/operator/rounds/{office['round']}/void", json={"reason": "x"})
    assert bare.status_code == 403 and bare.json()["error"] == "CSRF_REFUSED"
    wrong = browser.post(f"/v1/operator/rounds/{office['round']}/void", json={"reason": "x"},
                         headers={"X-CSRF-Token": "forged"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "CSRF_REFUSED"
    assert browser.get(f"/v1/operator/rounds/{office['round']}").json()["summary"]["status"] == "complete"
    assert browser.post(f"/v1/operator/rounds/{office['round']}/void", json={"reason": "x"},
                        headers=csrf).status_code == 200


def test_each_role_reaches_its_own_routes_only(api, office):
    reach = {"viewer": [200, 403, 403, 403], "support": [200, 200, 403, 403], "finance": [200, 200, 200, 403],
             "admin": [200, 200, 200, 200]}
    for role, expected in reach.items():
        browser, _ = signed_in(api, office["names"][role])
        answers = [browser.get(path).status_code for path in ("/v1/operator/reports/daily", "/v1/operator/players",
                                                              "/v1/operator/jackpot-claims", "/v1/operator/users")]
        assert answers == expected, role


def test_repeated_failures_lock_the_account_and_the_lock_ends(api, office, clock):
    name = office["names"]["support"]
    for _ in range(users.MAX_FAILURES):
        wrong = TestClient(api.client.app).post("/v1/operator/sign-in", json={"name": name, "password": "not it at all"})
        assert wrong.status_code == 401 and wrong.json()["error"] == "SIGN_IN_REFUSED"
    locked = TestClient(api.client.app).post("/v1/operator/sign-in", json={"name": name, "password": PASSWORD})
    assert locked.status_code == 401 and "locked" in locked.json()["message"]
    clock.advance(users.LOCKOUT_MS / 1000 + 1)
    signed_in(api, name)


def test_a_disabled_user_and_a_signed_out_session_are_refused_at_once(api, office):
    browser, csrf = signed_in(api, office["names"]["support"])
    assert browser.post("/v1/operator/sign-out", headers=csrf).status_code == 200
    assert browser.get("/v1/operator/me").status_code == 401
    browser, _ = signed_in(api, office["names"]["finance"])
    listed = {user["name"]: user["id"] for user in api.operator("GET", "/v1/operator/users").json()["users"]}
    disabled = api.operator("POST", f"/v1/operator/users/{listed[office['names']['finance']]}", json={"disabled": True})
    assert disabled.status_code == 200 and disabled.json()["disabled"] is True
    assert browser.get("/v1/operator/me").status_code == 401


def test_a_password_is_never_stored_or_logged_in_clear(api, office, caplog, database_url):
    secret = "correct horse battery staple"
    add_user(api, "watched", "viewer", secret)
    with caplog.at_level(logging.DEBUG):
        TestClient(api.client.app).post("/v1/operator/sign-in", json={"name": "watched", "password": secret + "!"})
        signed_in(api, "watched", secret)
    assert secret not in caplog.text and "watched" in caplog.text  # the refusal is logged, by name only
    engine = api.client.app.state.server.engine
    with engine.connect() as conn:
        stored = conn.execute(select(office_users.c.password_hash).where(office_users.c.name == "watched")).scalar()
        log_text = " ".join(str(value) for row in conn.execute(select(change_log)).all() for value in row)
    assert stored.startswith("$argon2id$") and secret not in stored
    assert secret not in log_text
    short = api.operator("POST", "/v1/operator/users", json={"name": "short", "password": "tiny", "role": "viewer"})
    assert short.status_code == 422 and short.json()["field"] == "password"
