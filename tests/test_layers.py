"""Imports only go down: the engine knows no database and no server, the database plumbing knows
neither the game server nor the jackpot service, and the jackpot service knows no game server.
Inside the game server the rounds know no HTTP router, and wallets and jackpots know neither the
rounds nor each other (docs/server.md, "Layout").

Every import of a module counts, those inside functions included."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import slotforge

SOURCE = Path(slotforge.__file__).parent

# A package, and the packages none of its modules may import.
RULES = {
    "slotforge.engine": ("slotforge.rgs", "slotforge.jackpot", "slotforge.db"),
    "slotforge.db": ("slotforge.rgs", "slotforge.jackpot"),
    "slotforge.jackpot": ("slotforge.rgs",),
    "slotforge.rgs.rounds": ("slotforge.rgs.api",),
    "slotforge.rgs.wallets": ("slotforge.rgs.api", "slotforge.rgs.rounds", "slotforge.rgs.jackpots"),
    "slotforge.rgs.jackpots": ("slotforge.rgs.api", "slotforge.rgs.rounds", "slotforge.rgs.wallets"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> Iterator[tuple[int, str]]:
    """Each module ``path`` imports, with its line: ``from a import b`` names both ``a`` and
    ``a.b`` (``b`` may be a module), a relative import is resolved against ``path``'s package."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module) if part)
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def offences(package: str, forbidden: tuple[str, ...]) -> list[str]:
    folder = SOURCE.parent.joinpath(*package.split("."))
    found = []
    for path in sorted(folder.rglob("*.py")):
        first: dict[int, str] = {}
        for line, name in imported(path):
            if any(within(name, below) for below in forbidden):
                first.setdefault(line, name)
        found += [f"{module_name(path)} (line {line}) imports {name}" for line, name in sorted(first.items())]
    return found


@pytest.mark.parametrize("package", sorted(RULES))
def test_imports_only_go_down(package):
    found = offences(package, RULES[package])
    assert not found, f"{package} may not import {', '.join(RULES[package])}:\n  " + "\n  ".join(found)


def test_the_walk_sees_every_kind_of_import(tmp_path, monkeypatch):
    source = tmp_path / "slotforge"
    (source / "jackpot").mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "jackpot" / "__init__.py").write_text("")
    (source / "jackpot" / "books.py").write_text(
        "import slotforge.rgs.schema\n"
        "from slotforge import rgs\n"
        "from ..rgs.schema import players\n"
        "def later():\n"
        "    from slotforge.rgs.money import to_text\n"
        "from slotforge.jackpot.pool import Claim\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "SOURCE", source)
    assert offences("slotforge.jackpot", ("slotforge.rgs",)) == [
        "slotforge.jackpot.books (line 1) imports slotforge.rgs.schema",
        "slotforge.jackpot.books (line 2) imports slotforge.rgs",
        "slotforge.jackpot.books (line 3) imports slotforge.rgs.schema",
        "slotforge.jackpot.books (line 5) imports slotforge.rgs.money",
    ]
