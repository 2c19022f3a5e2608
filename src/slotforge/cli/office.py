"""An operator's keys and back-office users from the command line: ``slotforge operator keys
...`` and ``slotforge operator users ...`` (the first admin is made here). Every change is in the
change log, by ``admin`` (the command line)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import typer

from slotforge.cli.common import Command, Group, guarded, out
from slotforge.cli.server import ConfigOpt, DatabaseOpt, server_settings

keys_app = typer.Typer(cls=Group, help="an operator's API keys: create, list, revoke, rotate", no_args_is_help=True)
users_app = typer.Typer(cls=Group, help="an operator's back-office users and their roles", no_args_is_help=True)


def database(config: Path | None, url: str | None) -> Any:
    """The server's database, migrated."""
    from slotforge.db import connect
    from slotforge.rgs.schema import migrate

    settings = server_settings(config, url)
    engine = guarded(lambda: connect(settings.database_url))
    guarded(lambda: migrate(engine))
    return engine


def now_ms() -> int:
    return int(time.time() * 1000)


def record(conn: Any, kind: str, subject: str, after: Any) -> None:
    from slotforge.rgs.compliance import changes

    changes.append(conn, changes.Change("admin", kind, subject, after=after), now_ms())


def when(ms: int | None) -> str:
    from slotforge.rgs.rounds.views import iso

    return iso(ms) or "-"


# -- keys -----------------------------------------------------------------------------------------
@keys_app.command("create", cls=Command)
def keys_create(
    operator: str = typer.Argument(..., help="the operator's name"),
    name: str = typer.Argument(..., help="the key's name (letters, digits, '.', '_', '-')"),
    scopes: str = typer.Option("rounds", "--scopes", help="comma-separated: rounds (the rounds API), read and "
                               "write (the back office's)"),
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Create a key and print it (shown once; only its hash is stored)."""
    from slotforge.rgs.backoffice import keys

    engine = database(config, database_url)
    with engine.begin() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        view, secret = guarded(lambda: keys.create(conn, operator_id, name, scopes, now_ms()))
        record(conn, "key_created", f"operator:{operator}/key:{name}", {"id": view["id"], "scopes": view["scopes"]})
    sys.stdout.write(secret + "\n")


@keys_app.command("list", cls=Command)
def keys_list(
    operator: str = typer.Argument(..., help="the operator's name"),
    as_json: bool = typer.Option(False, "--json", help="as JSON"),
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """The operator's keys: name, scopes, state, creation, last use and revocation (never the keys)."""
    from slotforge.rgs.backoffice import keys

    engine = database(config, database_url)
    with engine.connect() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        listed = keys.listing(conn, operator_id, now_ms())
    if as_json:
        sys.stdout.write(json.dumps(listed, indent=2) + "\n")
        return
    for key in listed:
        out.print(f"{key['id']:>5}  {key['name']:<20} {','.join(key['scopes']):<18} {key['state']:<9} "
                  f"created {when(key['created_at'])}  used {when(key['last_used_at'])}  "
                  f"revoked {when(key['revoked_at'])}")


@keys_app.command("revoke", cls=Command)
def keys_revoke(
    operator: str = typer.Argument(..., help="the operator's name"),
    name: str = typer.Argument(..., help="the key's name"),
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Revoke a key now: every server process refuses it from then on."""
    from slotforge.rgs.backoffice import keys

    engine = database(config, database_url)
    with engine.begin() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        key_id = guarded(lambda: keys.named(conn, operator_id, name))
        keys.revoke(conn, operator_id, key_id, now_ms())
        record(conn, "key_revoked", f"operator:{operator}/key:{name}", {"id": key_id})
    out.print(f"key {name} of {operator} revoked")


@keys_app.command("rotate", cls=Command)
def keys_rotate(
    operator: str = typer.Argument(..., help="the operator's name"),
    name: str = typer.Argument(..., help="the key's name"),
    grace: str = typer.Option("24h", "--grace", help="how long the old key keeps working: 0, 90s, 15m, 24h, 7d "
                              "(at most 30d)"),
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Make a new key of the same name and scopes and print it; the old one is revoked after the grace period."""
    from slotforge.rgs.backoffice import keys

    grace_ms = guarded(lambda: keys.parse_grace(grace))
    engine = database(config, database_url)
    with engine.begin() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        key_id = guarded(lambda: keys.named(conn, operator_id, name))
        old, new, secret = guarded(lambda: keys.rotate(conn, operator_id, key_id, grace_ms, now_ms()))
        record(conn, "key_rotated", f"operator:{operator}/key:{name}",
               {"old": key_id, "new": new["id"], "old_revoked_at": when(old["revoked_at"])})
    sys.stdout.write(secret + "\n")


# -- users ----------------------------------------------------------------------------------------
def read_password(from_stdin: bool) -> str:
    """The password: the first line of standard input, or typed twice (never an argument: it
    would stay in the shell's history and the process list)."""
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return typer.prompt("password", hide_input=True, confirmation_prompt=True)


PasswordStdin = typer.Option(False, "--password-stdin", help="read the password from standard input's first line")


@users_app.command("add", cls=Command)
def users_add(
    operator: str = typer.Argument(..., help="the operator's name"),
    name: str = typer.Argument(..., help="the user's name, unique on the server"),
    role: str = typer.Option(..., "--role", help="viewer, support, finance or admin"),
    password_stdin: bool = PasswordStdin,
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Add a back-office user (the first admin is made so); the password is asked for, or read from stdin."""
    from slotforge.rgs.backoffice import keys, users

    password = read_password(password_stdin)
    engine = database(config, database_url)
    with engine.begin() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        guarded(lambda: users.add_user(conn, operator_id, name, password, role, now_ms()))
        record(conn, "user_added", f"operator:{operator}/user:{name}", {"role": role})
    out.print(f"user {name} of {operator} added as {role}")


@users_app.command("list", cls=Command)
def users_list(
    operator: str = typer.Argument(..., help="the operator's name"),
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """The operator's users, their roles and whether they are locked or disabled."""
    from slotforge.rgs.backoffice import keys, users

    engine = database(config, database_url)
    with engine.connect() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        listed = users.listing(conn, operator_id)
    for user in listed:
        state = "disabled" if user["disabled"] else f"locked until {when(user['locked_until'])}" \
            if user["locked_until"] and user["locked_until"] > now_ms() else "active"
        out.print(f"{user['name']:<24} {user['role']:<8} {state}")


@users_app.command("set", cls=Command)
def users_set(
    operator: str = typer.Argument(..., help="the operator's name"),
    name: str = typer.Argument(..., help="the user's name"),
    role: str | None = typer.Option(None, "--role", help="a new role: viewer, support, finance or admin"),
    disable: bool | None = typer.Option(None, "--disable/--enable", help="stop (or allow again) the user's sign-ins"),
    password: bool = typer.Option(False, "--password", help="set a new password (asked for, or --password-stdin)"),
    password_stdin: bool = PasswordStdin,
    database_url: str | None = DatabaseOpt,
    config: Path | None = ConfigOpt,
) -> None:
    """Change a user's role or password, or disable them (their sessions end at once); a new
    password also ends a lock."""
    from slotforge.rgs.backoffice import keys, users

    new_password = read_password(password_stdin) if password or password_stdin else None
    engine = database(config, database_url)
    with engine.begin() as conn:
        operator_id = guarded(lambda: keys.operator_named(conn, operator))
        user_id = guarded(lambda: users.named(conn, operator_id, name))
        view = guarded(lambda: users.change(conn, operator_id, user_id, now_ms(), role=role, disabled=disable,
                                            password=new_password))
        record(conn, "user_changed", f"operator:{operator}/user:{name}",
               {"role": role, "disabled": disable, "password_changed": new_password is not None})
    out.print(f"user {name} of {operator}: {view['role']}, {'disabled' if view['disabled'] else 'enabled'}")
