"""The PostgreSQL functions of a round, their current text: one ``NAME.sql`` file each, which
defines ``slotforge_NAME``; among them the function of the rounds table's triggers
(``none_awaiting``), which a migration attaches to the table.

The files are the only home of these functions' SQL. A migration that makes or changes one
installs the file's text (:func:`install`); none holds a copy, so a reader finds today's SQL of
a round here without replaying the migrations. A test compares the functions of a migrated
database with these files (``tests/rgs/test_sql_functions.py``). SQLite has no such functions,
and needs none: its statements are calls inside the process (its own triggers on the rounds
table, whose bodies are SQL statements, are made by the migration that adds them).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, text

HERE = Path(__file__).parent

# Every function, by the file that defines it (``play_round`` is ``slotforge_play_round``).
FUNCTIONS = ("play_round", "hold_debit", "settle_at_wallet", "book_round", "none_awaiting")


def function_name(name: str) -> str:
    """The function a file defines: ``hold_debit`` -> ``slotforge_hold_debit``."""
    return f"slotforge_{name}"


def definition(name: str) -> str:
    """The ``CREATE OR REPLACE FUNCTION`` statement of ``rgs/sql/NAME.sql``."""
    if name not in FUNCTIONS:
        raise ValueError(f"no function {name!r} in rgs/sql: expected one of {', '.join(FUNCTIONS)}")
    return (HERE / f"{name}.sql").read_text()


def of_triggers(name: str) -> bool:
    """Whether the function is a trigger's (``RETURNS trigger``, as its file says): it has one
    signature, no arguments, so :func:`install` replaces it in place, where dropping it first
    would fail on the triggers that call it."""
    return "RETURNS trigger" in definition(name)


def drop(connection: Connection, *names: str) -> None:
    """Drop every function of these names, whatever its parameters (an older version's too; on
    SQLite nothing)."""
    if connection.dialect.name != "postgresql":
        return
    for name in names:
        signatures = connection.execute(text(
            "SELECT oid::regprocedure::text FROM pg_proc WHERE proname = :proname"),
            {"proname": function_name(name)}).scalars().all()
        for signature in signatures:
            connection.execute(text(f"DROP FUNCTION {signature}"))


def install(connection: Connection, *names: str) -> None:
    """Make each function as its file defines it, in place of any version of it (on PostgreSQL;
    on SQLite nothing). A trigger's function is replaced, and keeps its triggers."""
    if connection.dialect.name != "postgresql":
        return
    drop(connection, *(name for name in names if not of_triggers(name)))
    for name in names:
        connection.execute(text(definition(name)))
