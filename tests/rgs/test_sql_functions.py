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
    "play_round": "127976b02d8aab60fab70549e84bdc6228011a060db299c071da2b421b8f29c7",  # 0017
    "hold_debit": "8056800b10c225229063b7d0ca8399aab1eac10e504ecb2c4ed1e35d364e5c1c",  # 0011
    "settle_at_wallet": "e2f1b39ca409c656c1f33bafa7fc2b8441368af335deab2921169c28aed57c6b",  # 0017
    "book_round": "9c27e94cfa17678a29148f4b92d2cab1316b77067cc291a0038370462419cf6a",  # 0017
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


@pytest.mark.parametrize("name", sql.FUNCTIONS)
def test_a_function_changes_only_with_a_migration_that_installs_it(name):
    digest = hashlib.sha256(sql.definition(name).encode()).hexdigest()
    assert digest == FINGERPRINTS[name], (
        f"rgs/sql/{name}.sql changed: databases migrated before keep its old text; add a migration that "
        f"installs it (sql.install) and record its fingerprint {digest} in FINGERPRINTS")


def test_the_functions_refuse_with_the_code_the_server_reads():
    """Each refusal after a change raises the SQLSTATE the server tells from other errors."""
    for name in sql.FUNCTIONS:
        codes = set(re.findall(r"ERRCODE = '(\w+)'", sql.definition(name)))
        assert codes <= {REFUSED}, name
    assert REFUSED in sql.definition("play_round")


def test_no_migration_keeps_a_functions_text_or_reads_another_migration():
    for migration in (MIGRATIONS / "versions").glob("*.py"):
        source = migration.read_text()
        assert "LANGUAGE plpgsql" not in source, f"{migration.name}: a function's text belongs in rgs/sql"
        assert "spec_from_file_location" not in source and "importlib" not in source, \
            f"{migration.name} reads another migration"


def test_an_unknown_function_is_refused_with_the_names_there_are():
    with pytest.raises(ValueError, match="expected one of play_round, hold_debit, settle_at_wallet, book_round"):
        sql.definition("play")
