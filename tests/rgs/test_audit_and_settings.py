"""``slotforge audit`` finds every kind of difference; settings files are validated on load."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import update
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.rgs.schema import jackpot_pools, ledger, players

from .conftest import audit


def played(make_api):
    api = make_api()
    player = api.player("10.00")
    for game in ("dynasty", "divine-fortune"):
        for _ in range(3):
            player.finish(player.play(game))
    return api


def tamper(api, statement) -> None:
    with api.client.app.state.server.transaction() as conn:
        conn.execute(statement)


def test_audit_passes_on_balanced_books(make_api, database_url):
    played(make_api)
    checked = audit(database_url)
    assert checked.returncode == 0, checked.stderr
    assert "the books balance" in checked.stdout


def test_audit_finds_a_balance_that_is_not_its_ledgers_sum(make_api, database_url):
    api = played(make_api)
    tamper(api, update(players).values(balance=players.c.balance + 1))
    checked = audit(database_url)
    assert checked.returncode == 1
    assert "but the ledger sums to" in checked.stderr


def test_audit_finds_a_round_paid_twice(make_api, database_url):
    api = played(make_api)
    tamper(api, update(ledger).where(ledger.c.kind == "stake").values(amount=ledger.c.amount * 2))
    checked = audit(database_url)
    assert checked.returncode == 1
    assert "stake 20 expected" in checked.stderr


def test_audit_finds_a_pool_that_does_not_balance(make_api, database_url):
    api = played(make_api)
    tamper(api, update(jackpot_pools).values(current=str(Decimal("10000.01"))))
    checked = audit(database_url)
    assert checked.returncode == 1
    assert "pool divine-fortune" in checked.stderr


def test_a_settings_file_with_an_unknown_field_stops_the_server_naming_it(tmp_path):
    config = tmp_path / "settings.toml"
    config.write_text('sesion_minutes = 5\n')
    result = CliRunner().invoke(app, ["serve", "--config", str(config)])
    assert result.exit_code == 2
    assert "sesion_minutes" in result.output


def test_a_jurisdiction_with_a_bad_rule_stops_the_server_naming_it(tmp_path):
    config = tmp_path / "settings.toml"
    config.write_text('[jurisdictions.uk]\nmin_round_ms = -1\n')
    result = CliRunner().invoke(app, ["audit", "--config", str(config)])
    assert result.exit_code == 2
    assert "jurisdictions.uk.min_round_ms" in result.output
