"""Imports only go down: the engine knows no database and no server, the database plumbing knows
neither the game server nor the jackpot service, and the jackpot service knows no game server and
no game (its caller hands it the pools' parameters). Inside the game server the rounds know no HTTP
router, and wallets and jackpots know neither the rounds nor each other (docs/server.md, "Layout").

Below and above the games (docs/engine.md, "Layers"): the engine knows no maths and no game; the
maths (``slotforge.maths``: exact, stats, runner, cluster, streams, draws, distribution, the games'
maths role) knows no game; the games know no report (``slotforge.reports``: simulate by game code,
par, rng_report, plots), and the designer's search and certification (``slotforge.design``)
know no server; inside a game the kernels know neither its rules nor its maths, and the
rules do not know its maths.

Every import of a module counts, those inside functions included, and no module of
``slotforge`` reaches itself again through its imports."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import slotforge

SOURCE = Path(slotforge.__file__).parent

SERVER = ("slotforge.cli", "slotforge.rgs", "slotforge.db")
GAMES = sorted(path.name for path in (SOURCE / "games").iterdir() if (path / "__init__.py").exists())

# A package (or a module), and the packages none of its modules may import.
RULES = {
    "slotforge.engine": ("slotforge.rgs", "slotforge.jackpot", "slotforge.db", "slotforge.maths", "slotforge.games",
                         "slotforge.reports", "slotforge.cli"),
    "slotforge.maths": ("slotforge.games", "slotforge.reports", *SERVER, "slotforge.jackpot"),
    "slotforge.games": ("slotforge.reports", *SERVER),
    **{f"slotforge.games.{game}.kernels": (f"slotforge.games.{game}.rules", f"slotforge.games.{game}.maths")
       for game in GAMES},
    **{f"slotforge.games.{game}.rules": (f"slotforge.games.{game}.maths",) for game in GAMES},
    "slotforge.reports": SERVER,
    "slotforge.design": (*SERVER, "slotforge.jackpot"),
    "slotforge.db": ("slotforge.rgs", "slotforge.jackpot"),
    "slotforge.jackpot": ("slotforge.rgs", "slotforge.games", "slotforge.reports", "slotforge.maths", "slotforge.cli"),
    "slotforge.rgs.rounds": ("slotforge.rgs.api",),
    "slotforge.rgs.backoffice": ("slotforge.rgs.api",),
    "slotforge.rgs.metrics": ("slotforge.rgs.api", "slotforge.rgs.rounds"),
    "slotforge.rgs.wallets": ("slotforge.rgs.api", "slotforge.rgs.rounds", "slotforge.rgs.jackpots"),
    "slotforge.rgs.jackpots": ("slotforge.rgs.api", "slotforge.rgs.rounds", "slotforge.rgs.wallets"),
}
# The packages on top, which may import any below them: the command line and the game server.
TOP = ("slotforge.cli", "slotforge.rgs", "slotforge.web")


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


def sources(package: str) -> list[Path]:
    """The files of a package (every module under it), or of a single module."""
    module = SOURCE.parent.joinpath(*package.split(".")).with_suffix(".py")
    if module.exists():
        return [module]
    return sorted(SOURCE.parent.joinpath(*package.split(".")).rglob("*.py"))


def offences(package: str, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in sources(package):
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


def test_every_package_has_its_layer():
    """A new package of ``slotforge`` must be placed: below some other (it has a rule) or on top."""
    packages = {f"slotforge.{path.parent.name}" for path in SOURCE.glob("*/__init__.py")}
    assert packages - set(RULES) - set(TOP) == set()


def test_every_game_has_the_same_files():
    """One template for every game (docs/engine.md, "A game's files"): its compiled round in
    ``kernels.py``, or in a ``kernels`` package of modules by feature where the round is large."""
    for game in GAMES:
        folder = SOURCE / "games" / game
        files = sorted(path.name for path in folder.iterdir() if path.is_file() and path.name != "kernels.py")
        assert files == ["__init__.py", "maths.py", "model.json", "rules.py"], game
        assert (folder / "kernels.py").is_file() != (folder / "kernels" / "__init__.py").is_file(), game


# -- no circle ---------------------------------------------------------------------------------
def import_graph() -> dict[str, dict[str, int]]:
    """Each module of ``slotforge`` and the modules of ``slotforge`` it imports, with the first
    line of each import. ``from a import b`` is an arrow to the module ``a.b`` when there is one,
    else to ``a``; the packages an import passes through are not arrows (Python runs a parent
    package's ``__init__`` first, but that is no dependency of the importer's)."""
    modules = {module_name(path): path for path in SOURCE.rglob("*.py")}
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        arrows: dict[str, int] = {}
        for line, target in imported(path):
            if target in modules and target != name:
                arrows.setdefault(target, line)
        # "from a import b" named a and a.b: where a.b is a module, the arrow is to it alone.
        graph[name] = {t: line for t, line in arrows.items()
                       if not any(other.startswith(t + ".") and arrows[other] == line for other in arrows)}
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; the graph is a few hundred modules deep at most
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def describe(group: list[str], graph: dict[str, dict[str, int]]) -> str:
    inside = set(group)
    return "\n  ".join(f"{source} (line {line}) imports {target}"
                       for source in group for target, line in sorted(graph[source].items()) if target in inside)


def test_no_module_reaches_itself_through_its_imports():
    graph = import_graph()
    found = circles(graph)
    assert not found, "circles in the imports:\n  " + "\n  ".join(describe(group, graph) for group in found)


def test_a_circle_through_an_import_inside_a_function_is_found(tmp_path, monkeypatch):
    source = tmp_path / "slotforge"
    (source / "games" / "toy").mkdir(parents=True)
    for package in (source, source / "games", source / "games" / "toy"):
        (package / "__init__.py").write_text("")
    (source / "games" / "toy" / "rules.py").write_text("def report():\n    from slotforge.games.toy import maths\n")
    (source / "games" / "toy" / "maths.py").write_text("from slotforge.games.toy.rules import report\n")
    (source / "games" / "toy" / "kernels.py").write_text("from . import rules\n")
    monkeypatch.setattr(sys.modules[__name__], "SOURCE", source)
    graph = import_graph()
    assert circles(graph) == [["slotforge.games.toy.maths", "slotforge.games.toy.rules"]]
    assert describe(circles(graph)[0], graph) == (
        "slotforge.games.toy.maths (line 1) imports slotforge.games.toy.rules\n"
        "  slotforge.games.toy.rules (line 2) imports slotforge.games.toy.maths"
    )
