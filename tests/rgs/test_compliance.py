"""What compliance teams and test labs ask of a live server (docs/compliance.md): exports that
equal the books to the cent, a change log whose chain shows any entry altered or removed, the
integrity of the games in play, dispute links that open one round until they expire, and the
erasure of a player's personal data with the books kept whole."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import select, text, update

from slotforge.games import load_game
from slotforge.rgs.compliance import changes, integrity
from slotforge.rgs.compliance.exports import ROUND_COLUMNS, TRANSACTION_COLUMNS
from slotforge.rgs.schema import change_log, ledger, players, rounds

from .conftest import SRC, audit

CENT = Decimal("0.01")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "slotforge.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(SRC)})


def engine_of(api):
    return api.client.app.state.server.engine


def played(api, rounds_each: int = 6) -> list:
    """Two players of the operator play ``rounds_each`` rounds each (decisions answered)."""
    players_ = [api.player("40.00"), api.player("25.00")]
    for player in players_:
        for _ in range(rounds_each):
            answer = player.play()
            assert answer.status_code == 200, answer.text
            player.finish(answer)
    return players_


# -- exports ----------------------------------------------------------------------------------------
def test_an_exported_set_of_rounds_reimported_equals_the_books_to_the_cent(api, database_url):
    players_ = played(api)
    answer = api.operator("GET", "/v1/operator/exports/rounds", params={"format": "csv"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    exported = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(exported[0]) == [column.name for column in ROUND_COLUMNS]

    with engine_of(api).connect() as conn:
        books = {row["id"]: row for row in conn.execute(select(rounds)).mappings()}
    assert sorted(int(row["round_id"]) for row in exported) == sorted(books)
    for row in exported:
        kept = books[int(row["round_id"])]
        for money in ("stake", "win", "jackpot_win", "balance_before", "balance_after"):
            assert Decimal(row[money]) == Decimal(kept[money]) * CENT, (money, row)
            assert row[money] == f"{Decimal(row[money]):.2f}"  # exact text, two places, never a float
        assert row["status"] == kept["status"] and row["game"] == kept["game"]
        assert row["started_at"].endswith("Z") and row["model"].startswith("dynasty/")
    assert {row["player"] for row in exported} == {p.player_id for p in players_}

    # The same export as JSON lines, filtered to one player, equals the CSV's rows of that player.
    one = players_[0].player_id
    lines = api.operator("GET", "/v1/operator/exports/rounds", params={"format": "jsonl", "player": one})
    assert lines.headers["content-type"].startswith("application/x-ndjson")
    as_json = [json.loads(line) for line in lines.text.splitlines()]
    from_csv = [row for row in exported if row["player"] == one]
    assert [row["round_id"] for row in as_json] == [int(row["round_id"]) for row in from_csv]
    assert [row["win"] for row in as_json] == [row["win"] for row in from_csv]


def test_exported_transactions_sum_to_every_balance(api, database_url):
    players_ = played(api, rounds_each=4)
    answer = api.operator("GET", "/v1/operator/exports/transactions", params={"format": "jsonl"})
    entries = [json.loads(line) for line in answer.text.splitlines()]
    assert set(entries[0]) == {column.name for column in TRANSACTION_COLUMNS}
    with engine_of(api).connect() as conn:
        balances = dict(conn.execute(select(players.c.external_id, players.c.balance)).all())
        ledger_rows = conn.execute(select(ledger)).all()
    assert len(entries) == len(ledger_rows)
    for player in players_:
        signed = sum((Decimal(e["amount"]) if e["direction"] == "credit" else -Decimal(e["amount"]))
                     for e in entries if e["player"] == player.player_id)
        assert signed == Decimal(balances[player.player_id]) * CENT


def test_the_export_command_streams_a_file_with_its_filters(api, database_url, tmp_path):
    played(api, rounds_each=3)
    out = tmp_path / "rounds.csv"
    done = cli("export", "rounds", "--database", database_url, "--game", "dynasty", "--from", "2000-01-01",
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    with engine_of(api).connect() as conn:
        count = conn.execute(select(rounds.c.id).where(rounds.c.fun.is_(False))).all()
    assert len(list(csv.DictReader(out.open()))) == len(count)
    assert "exported" in done.stderr
    none = cli("export", "rounds", "--database", database_url, "--to", "2000-01-01", "--format", "jsonl")
    assert none.returncode == 0 and none.stdout == ""
    refused = cli("export", "rounds", "--database", database_url, "--format", "xml")
    assert refused.returncode == 2 and "--format: expected one of ['csv', 'jsonl']" in refused.stderr
    refused = cli("export", "bets", "--database", database_url)
    assert refused.returncode == 2 and "KIND: expected one of" in refused.stderr


# -- the change log ---------------------------------------------------------------------------------
def logged(api, count: int = 4) -> None:
    """Changes of several kinds: voids of played rounds."""
    player = api.player("30.00")
    for _ in range(count):
        body = player.finish(player.play())
        voided = api.operator("POST", f"/v1/operator/rounds/{body['round']['id']}/void", json={"reason": "test"})
        assert voided.status_code == 200, voided.text


def test_every_void_is_logged_with_who_did_it_before_and_after(api, database_url):
    logged(api, 2)
    entries = api.operator("GET", "/v1/operator/changes").json()["changes"]
    voids = [entry for entry in entries if entry["kind"] == "round_voided"]
    assert len(voids) == 2
    assert all(entry["actor"].startswith("operator:op-") for entry in voids)
    assert voids[0]["before"]["status"] == "complete" and voids[0]["after"]["status"] == "void"
    assert entries[-1]["kind"] == "configuration" and entries[-1]["actor"] == "server"
    assert api.operator("GET", "/v1/operator/changes/verify").json()["intact"] is True


def test_an_altered_entry_is_named_by_audit_changes(api, database_url):
    logged(api)
    engine = engine_of(api)
    assert cli("audit", "changes", "--database", database_url).returncode == 0
    with engine.begin() as conn:
        ids = [row.id for row in conn.execute(select(change_log.c.id).order_by(change_log.c.id))]
        conn.execute(update(change_log).where(change_log.c.id == ids[2]).values(
            after=json.dumps({"status": "complete"})))
    done = cli("audit", "changes", "--database", database_url)
    assert done.returncode == 1 and f"entry #{ids[2]} was altered" in done.stderr
    verdict = changes.verify(engine)
    assert verdict.broken_at == ids[2] and verdict.checked == 2


def test_a_removed_entry_and_a_rewritten_one_break_the_chain_where_they_were(api, database_url):
    logged(api)
    engine = engine_of(api)
    with engine.begin() as conn:
        ids = [row.id for row in conn.execute(select(change_log.c.id).order_by(change_log.c.id))]
        conn.execute(change_log.delete().where(change_log.c.id == ids[2]))
    verdict = changes.verify(engine)
    assert not verdict.intact and f"entries #{ids[2]} to #{ids[2]} were removed" in verdict.problem
    assert verdict.broken_at == ids[1]

    # An entry rewritten with its own hash recomputed still breaks the link of the one after it.
    with engine.begin() as conn:
        conn.execute(change_log.delete())
    logged(api)
    with engine.begin() as conn:
        rows = conn.execute(select(change_log).order_by(change_log.c.id)).mappings().all()
        victim = rows[1]
        forged = json.dumps({"status": "forged"})
        digest = changes.entry_hash(victim["previous_hash"], victim["created_at"], victim["actor"], victim["kind"],
                                    victim["subject"], victim["before"], forged)
        conn.execute(update(change_log).where(change_log.c.id == victim["id"]).values(after=forged, hash=digest))
    verdict = changes.verify(engine)
    assert verdict.broken_at == victim["id"] and f"entry #{victim['id']} was rewritten" in verdict.problem


def test_a_start_records_the_configuration_only_when_it_changed(make_api, database_url):
    first = make_api()
    key = first.operator_key
    make_api(operator_key=key)  # the same settings: nothing new
    make_api(operator_key=key, gamble_limit="500.00", jackpot_secret="s" * 20)
    with engine_of(first).connect() as conn:
        entries = conn.execute(select(change_log).where(change_log.c.kind == "configuration")
                               .order_by(change_log.c.id)).mappings().all()
    assert len(entries) == 2
    before, after = json.loads(entries[1]["before"]), json.loads(entries[1]["after"])
    assert before["settings"]["gamble_limit"] == "1000.00" and after["settings"]["gamble_limit"] == "500.00"
    assert after["settings"]["jackpot_secret"] == "(set)"  # a secret never enters the log
    assert after["games"]["dynasty"]["model"].startswith("dynasty/")


# -- integrity --------------------------------------------------------------------------------------
def certified_copy(tmp_path: Path, code: str = "dynasty") -> Path:
    """A copy of the game's shipped model with a manifest certifying it as it is."""
    shipped = load_game(code)
    folder = tmp_path / code
    (folder / "certified").mkdir(parents=True)
    model = folder / "model.json"
    shutil.copy(shipped.model_file, model)
    manifest = {"game": code, "model": {"sha256": integrity.model_sha256(shipped)}, "code": shipped.code_id}
    (folder / "certified" / f"{shipped.spec.version}.json").write_text(json.dumps(manifest))
    return model


def test_an_altered_model_file_is_caught_against_its_manifest(tmp_path):
    model = certified_copy(tmp_path)
    assert integrity.in_play(load_game("dynasty", model)).status == "certified"
    raw = json.loads(model.read_text())
    strip = next(iter(raw["reels"].values()))[0]
    strip[0], strip[1] = strip[1], strip[0]  # two stops of the first reel swapped: still a valid model
    model.write_text(json.dumps(raw, indent=2))
    found = integrity.in_play(load_game("dynasty", model))
    assert found.status == "mismatch" and found.differences[0].startswith("model_sha256: certified")


def test_the_package_digest_answers_a_labs_seed_and_changes_with_any_byte(tmp_path):
    package = tmp_path / "pkg"
    shutil.copytree(integrity.PACKAGE / "engine", package / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    seed, other = bytes(range(16)), bytes(range(1, 17))
    digest, files = integrity.package_digest(seed, package)
    assert files > 5 and integrity.package_digest(seed, package) == (digest, files)
    assert integrity.package_digest(other, package)[0] != digest  # a stored answer cannot serve a new seed
    target = package / "engine" / "rng.py"
    target.write_text(target.read_text() + "\n")
    assert integrity.package_digest(seed, package)[0] != digest
    with pytest.raises(ValueError, match="seed: expected at least"):
        integrity.parse_seed("abcd")


def test_the_integrity_route_lists_each_game_and_a_seeded_digest(api):
    answer = api.operator("GET", "/v1/integrity", params={"seed": "00" * 16}).json()
    dynasty = next(game for game in answer["games"] if game["game"] == "dynasty")
    assert dynasty["model_sha256"] == integrity.model_sha256(load_game("dynasty"))
    assert len(answer["package"]["hmac_sha256"]) == 64 and answer["package"]["files"] > 50
    refused = api.operator("GET", "/v1/integrity", params={"seed": "zz"})
    assert refused.status_code == 422 and refused.json()["field"] == "seed"


# -- dispute links ------------------------------------------------------------------------------------
def test_a_dispute_link_opens_its_round_until_it_expires_and_nothing_else(api, clock):
    player = api.player("20.00")
    first = player.finish(player.play())["round"]["id"]
    second = player.finish(player.play())["round"]["id"]
    link = api.operator("POST", f"/v1/operator/rounds/{first}/dispute-link", json={"hours": 2}).json()
    path = link["url"].split("://", 1)[1].split("/", 1)[1]
    page = api.client.get("/" + path)
    assert page.status_code == 200 and f"Round {first}" in page.text and "Dynasty" in page.text

    query = path.split("?", 1)[1]
    for tampered in (f"/dispute/{second}?{query}", "/" + path[:-1] + ("0" if path[-1] != "0" else "1"),
                     "/" + path.replace("expires=", "expires=9")):
        refused = api.client.get(tampered)
        assert refused.status_code == 403 and f"Round {first}" not in refused.text and "Round" not in refused.text
    clock.advance(2 * 3600 + 1)
    expired = api.client.get("/" + path)
    assert expired.status_code == 403 and "expired" in expired.text

    assert api.operator("POST", "/v1/operator/rounds/999999/dispute-link", json={}).status_code == 404


# -- erasure ----------------------------------------------------------------------------------------
def test_erasing_a_player_keeps_the_books_whole_and_no_trace_of_the_id(api, database_url):
    players_ = played(api, rounds_each=3)
    gone = players_[0].player_id
    with engine_of(api).connect() as conn:
        before = conn.execute(select(rounds.c.id, rounds.c.stake, rounds.c.win).order_by(rounds.c.id)).all()
    answer = api.operator("POST", f"/v1/operator/players/{gone}/erase")
    alias = answer.json()["player_id"]
    assert answer.status_code == 200 and alias.startswith("erased-") and gone not in alias
    assert api.operator("POST", f"/v1/operator/players/{gone}/erase").json()["player_id"] == alias
    with engine_of(api).connect() as conn:
        after = conn.execute(select(rounds.c.id, rounds.c.stake, rounds.c.win).order_by(rounds.c.id)).all()
        ids = [row[0] for row in conn.execute(select(players.c.external_id))]
        log = conn.execute(text("SELECT subject, before, after FROM change_log")).all()
    assert after == before and gone not in ids and alias in ids
    assert all(gone not in json.dumps(list(entry)) for entry in log)
    assert audit(database_url).returncode == 0
    exported = api.operator("GET", "/v1/operator/exports/rounds").text
    assert gone not in exported and alias in exported
    assert api.operator("POST", "/v1/operator/players/nobody/erase").status_code == 404
