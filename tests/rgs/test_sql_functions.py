"""The PostgreSQL functions of a round live in ``rgs/sql/*.sql`` alone: a migrated database holds
exactly the files' functions, an older version of one is replaced on upgrade, and no migration
keeps a function's text of its own or reads another migration."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, text

from slotforge.db import connect
from slotforge.rgs import sql
from slotforge.rgs.schema import MIGRATIONS, migrate
from slotforge.rgs.store.postgres import REFUSED

from .conftest import postgres_database

# Each file's SHA-256 as the newest migration that installs it knows it. A database already
# migrated keeps the text it was given: a changed file needs a migration that installs it again
# (``sql.install``), and its new fingerprint here.
FINGERPRINTS = {
    "play_round": "2bb1b93f0db93de703785f349b247333ef29a4f09d561bb46026eeb585e72d2a",  # 0022
    "hold_debit": "40b5113aa3f5d0ab97a0ec313aa5d51d7a17b195b4759a505ffa0bd20f6ba4e3",  # 0022
    "settle_at_wallet": "761d0ba9a15e4e939638d4f142ef68e67472b470b4df8443ec882f4c4288c7f6",  # 0022
    "book_round": "9c27e94cfa17678a29148f4b92d2cab1316b77067cc291a0038370462419cf6a",  # 0017
    "none_awaiting": "b3e721c8ee905fddb0e5d46cd59533ab5a2ccd01f98b64d8988a088d2e9c65c8",  # 0022
}

DEFINITION = text("SELECT pg_get_functiondef(p.oid) FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace "
                  "WHERE p.proname = :name AND n.nspname = :schema")


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    """One PostgreSQL database of the module, migrated to the newest revision."""
    database = postgres_database()
    migrated = connect(next(database))
    migrate(migrated)
    yield migrated
    migrated.dispose()
    next(database, None)


def definitions(conn: Connection, name: str, schema: str) -> list[str]:
    """``pg_get_functiondef`` of every function of this name in the schema, the schema's name
    taken out (so that the same function in two schemas reads the same)."""
    found = conn.execute(DEFINITION, {"name": sql.function_name(name), "schema": schema}).scalars().all()
    return [definition.replace(f"{schema}.", "SCHEMA.") for definition in found]


def as_the_files_define(conn: Connection, name: str) -> list[str]:
    """The function as its file defines it, made in a scratch schema of the same database."""
    conn.execute(text("CREATE SCHEMA IF NOT EXISTS files"))
    conn.execute(text("SET LOCAL search_path TO files"))
    conn.execute(text(sql.definition(name)))
    conn.execute(text("SET LOCAL search_path TO public"))
    return definitions(conn, name, "files")


@pytest.mark.parametrize("name", sql.FUNCTIONS)
def test_the_migrated_database_holds_each_function_as_its_file_defines_it(engine, name):
    with engine.begin() as conn:
        live = definitions(conn, name, "public")
        assert live == as_the_files_define(conn, name)
        assert len(live) == 1, "one version of the function, no older overload left"
        conn.rollback()


def test_an_older_version_of_a_function_is_replaced_on_upgrade(engine):
    """A database whose function is not the file's (an older text, another signature) holds the
    file's alone after the upgrade that installs it."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0010")
        conn.execute(text("CREATE OR REPLACE FUNCTION slotforge_settle_at_wallet() RETURNS integer "
                          "LANGUAGE sql AS 'SELECT 1'"))
        conn.execute(text("CREATE OR REPLACE FUNCTION slotforge_hold_debit(p_player bigint, OUT new_round bigint) "
                          "LANGUAGE sql AS 'SELECT NULL::bigint'"))
        command.upgrade(config, "head")
        for name in ("hold_debit", "settle_at_wallet"):
            assert definitions(conn, name, "public") == as_the_files_define(conn, name)


def test_a_triggers_function_is_installed_again_in_place_and_keeps_its_triggers(engine):
    """A migration that changes the rounds table's trigger function installs it as any other:
    replaced, not dropped (which its triggers would refuse), and still called by both."""
    triggers = text("SELECT tgname FROM pg_trigger WHERE tgfoid = 'slotforge_none_awaiting'::regproc "
                    "ORDER BY tgname")
    with engine.begin() as conn:
        sql.install(conn, *sql.FUNCTIONS)
        assert conn.execute(triggers).scalars().all() == ["rounds_none_awaiting_insert", "rounds_none_awaiting_play"]
        conn.rollback()


@pytest.mark.parametrize("name", sql.FUNCTIONS)
def test_a_function_changes_only_with_a_migration_that_installs_it(name):
    digest = hashlib.sha256(sql.definition(name).encode()).hexdigest()
    assert digest == FINGERPRINTS[name], (
        f"rgs/sql/{name}.sql changed: databases migrated before keep its old text; add a migration that "
        f"installs it (sql.install) and record its fingerprint {digest} in FINGERPRINTS")


def test_the_functions_refuse_with_the_code_the_server_reads():
    """Each refusal after a change, and the rounds table's trigger's, raises the SQLSTATE the
    server tells from other errors."""
    for name in sql.FUNCTIONS:
        codes = set(re.findall(r"ERRCODE = '(\w+)'", sql.definition(name)))
        assert codes <= {REFUSED}, name
    assert REFUSED in sql.definition("book_round") and REFUSED in sql.definition("none_awaiting")


def test_no_migration_keeps_a_functions_text_or_reads_another_migration():
    for migration in (MIGRATIONS / "versions").glob("*.py"):
        source = migration.read_text()
        assert "LANGUAGE plpgsql" not in source, f"{migration.name}: a function's text belongs in rgs/sql"
        assert "spec_from_file_location" not in source and "importlib" not in source, \
            f"{migration.name} reads another migration"


def test_an_unknown_function_is_refused_with_the_names_there_are():
    with pytest.raises(ValueError, match="expected one of play_round, hold_debit, settle_at_wallet, book_round, "
                                         "none_awaiting"):
        sql.definition("play")
