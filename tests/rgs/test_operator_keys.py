"""An operator's keys: several, named and scoped, created, listed, revoked and rotated from the
Operator API and the command line; a revoked key refused at once by every server process; the
key that made a change named in the change log."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest
from alembic import command
from sqlalchemy import insert, select

from slotforge.db import connect
from slotforge.rgs.api.access import hashed
from slotforge.rgs.schema import change_log, operator_keys, operators

from .conftest import SRC, ServerProcess
from .test_migrations import alembic_config


def with_key(api, secret: str):
    """The same server, asked with another key."""
    return type(api)(api.client, secret)


def new_key(api, name: str, scopes: list[str]) -> str:
    made = api.operator("POST", "/v1/operator/keys", json={"name": name, "scopes": scopes})
    assert made.status_code == 200, made.text
    assert made.json()["key"]["scopes"] == scopes and made.json()["key"]["state"] == "active"
    return made.json()["secret"]


def key_line(api, name: str, state: str = "active") -> dict:
    listed = api.operator("GET", "/v1/operator/keys").json()["keys"]
    return next(key for key in listed if key["name"] == name and key["state"] == state)


def test_a_key_opens_only_what_its_scopes_allow(api):
    rounds_only = with_key(api, new_key(api, "platform", ["rounds"]))
    reader = with_key(api, new_key(api, "dashboards", ["read"]))
    player = rounds_only.player()  # sessions and deposits: the rounds API
    assert rounds_only.operator("GET", f"/v1/operator/players/{player.player_id}").status_code == 200
    refused = rounds_only.operator("GET", "/v1/operator/reports/rtp")
    assert refused.status_code == 403 and refused.json()["error"] == "FORBIDDEN"
    assert "key:platform (scopes rounds) may not read reports" in refused.json()["message"]
    assert reader.operator("GET", "/v1/operator/reports/rtp").status_code == 200
    assert reader.operator("POST", "/v1/operator/sessions", json={"player_id": "x", "currency": "EUR"}
                           ).status_code == 403
    assert reader.operator("POST", "/v1/operator/keys", json={"name": "mine", "scopes": ["write"]}).status_code == 403
    listed = {key["name"]: key for key in api.operator("GET", "/v1/operator/keys").json()["keys"]}
    assert set(listed) == {"default", "platform", "dashboards"}
    assert listed["default"]["scopes"] == ["rounds", "read", "write"]
    assert listed["platform"]["last_used_at"] is not None and "secret" not in listed["platform"]
    with connect(api.client.app.state.server.engine.url.render_as_string(False)).connect() as conn:
        stored = set(conn.execute(select(operator_keys.c.key_hash)).scalars())
    assert rounds_only.operator_key not in stored and hashed(rounds_only.operator_key) in stored


def test_a_key_is_refused_once_revoked(api):
    spare = with_key(api, new_key(api, "spare", ["read"]))
    assert spare.operator("GET", "/v1/operator/players").status_code == 200
    revoked = api.operator("POST", f"/v1/operator/keys/{key_line(api, 'spare')['id']}/revoke")
    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"
    refused = spare.operator("GET", "/v1/operator/players")
    assert refused.status_code == 401 and refused.json()["error"] == "INVALID_API_KEY"
    entries = api.operator("GET", "/v1/operator/changes").json()["changes"]
    assert [entry["kind"] for entry in entries[:2]] == ["key_revoked", "key_created"]
    assert entries[0]["actor"].endswith("/key:default") and entries[0]["subject"].endswith("/key:spare")


def test_a_rotated_key_works_beside_the_new_one_until_its_grace_ends(api, clock):
    old = with_key(api, new_key(api, "ci", ["read"]))
    rotated = api.operator("POST", f"/v1/operator/keys/{key_line(api, 'ci')['id']}/rotate",
                           json={"grace_seconds": 3600})
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["old"]["state"] == "expiring" and rotated.json()["new"]["name"] == "ci"
    new = with_key(api, rotated.json()["secret"])
    for key in (old, new):
        assert key.operator("GET", "/v1/operator/players").status_code == 200
    clock.advance(3601)
    assert old.operator("GET", "/v1/operator/players").status_code == 401
    assert new.operator("GET", "/v1/operator/players").status_code == 200
    again = api.operator("POST", f"/v1/operator/keys/{rotated.json()['old']['id']}/rotate", json={})
    assert again.status_code == 404 or again.status_code == 422
    assert "revoked or being rotated already" in again.json()["message"]


def test_a_key_name_or_scope_refused_names_the_field(api):
    bad = api.operator("POST", "/v1/operator/keys", json={"name": "a b", "scopes": ["read"]})
    assert bad.status_code == 422 and bad.json()["field"] == "name"
    twice = api.operator("POST", "/v1/operator/keys", json={"name": "default", "scopes": ["read"]})
    assert twice.status_code == 422 and "exists already" in twice.json()["message"]
    scope = api.operator("POST", "/v1/operator/keys", json={"name": "x", "scopes": ["admin"]})
    assert scope.status_code == 422


def test_the_change_log_names_the_key_that_voided(api):
    voider = with_key(api, new_key(api, "finance-bot", ["write"]))
    player = api.player()
    body = player.finish(player.play())
    assert voider.operator("POST", f"/v1/operator/rounds/{body['round']['id']}/void",
                           json={"reason": "test"}).status_code == 200
    detail = api.operator("GET", f"/v1/operator/rounds/{body['round']['id']}").json()
    operator = detail["voided_by"].split("/")[0]
    assert detail["voided_by"] == f"{operator}/key:finance-bot"


def test_an_operators_key_from_before_the_upgrade_keeps_working_with_every_scope(database_url):
    engine = connect(database_url)
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0014")
            conn.execute(insert(operators).values(name="old", key_hash=hashed("the-old-key"), created_at=5))
            command.upgrade(alembic_config(conn), "head")
            moved = conn.execute(select(operator_keys)).mappings().one()
        assert (moved["name"], moved["scopes"], moved["key_hash"], moved["revoked_at"]) == (
            "default", "rounds read write", hashed("the-old-key"), None)
    finally:
        engine.dispose()


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "slotforge.cli", "operator", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})


def test_the_command_line_creates_lists_rotates_and_revokes_keys(tmp_path):
    database = ["--database", f"sqlite:///{tmp_path / 'keys.db'}"]
    assert cli("add", "acme", *database).returncode == 0
    made = cli("keys", "create", "acme", "reports", "--scopes", "read", *database)
    assert made.returncode == 0 and len(made.stdout.strip()) == 43
    rotated = cli("keys", "rotate", "acme", "reports", "--grace", "2h", *database)
    assert rotated.returncode == 0 and rotated.stdout.strip() != made.stdout.strip()
    assert cli("keys", "revoke", "acme", "default", *database).returncode == 0
    listed = cli("keys", "list", "acme", "--json", *database)
    states = sorted((key["name"], key["state"]) for key in __import__("json").loads(listed.stdout))
    assert states == [("default", "revoked"), ("reports", "active"), ("reports", "expiring")]
    bad = cli("keys", "rotate", "acme", "reports", "--grace", "soon", *database)
    assert bad.returncode == 2 and "grace: expected 0 or a number and a unit" in bad.stderr
    engine = connect(database[1])
    with engine.connect() as conn:
        actors = conn.execute(select(change_log.c.actor, change_log.c.kind)).all()
    engine.dispose()
    assert ("admin", "key_rotated") in actors and ("admin", "key_revoked") in actors


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_key_revoked_on_one_server_process_is_refused_by_another_within_a_second(database_url, tmp_path):
    first = ServerProcess(database_url, tmp_path / "first.log").start()
    second = ServerProcess(database_url, tmp_path / "second.log").start()
    try:
        admin = first.operator_key()
        made = httpx.post(f"{first.url}/v1/operator/keys", headers={"X-Api-Key": admin},
                          json={"name": "leaked", "scopes": ["read"]}).json()
        leaked = {"X-Api-Key": made["secret"]}
        assert httpx.get(f"{second.url}/v1/operator/players", headers=leaked).status_code == 200
        revoked = httpx.post(f"{first.url}/v1/operator/keys/{made['key']['id']}/revoke", headers={"X-Api-Key": admin})
        assert revoked.status_code == 200
        at = time.monotonic()
        while httpx.get(f"{second.url}/v1/operator/players", headers=leaked).status_code != 401:
            assert time.monotonic() - at < 1.0, "the second process still takes the revoked key"
        assert time.monotonic() - at < 1.0
    finally:
        first.kill()
        second.kill()
