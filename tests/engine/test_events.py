"""The event field tables drive the writing as well as the reading: every row the source emits
has the fields its code's table names (engine.events.FIELDS, and a game's FEATURE_FIELDS for a
FEATURE row), and the record reads a row back by those names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

import slotforge
from slotforge.engine import events

SOURCE = Path(slotforge.__file__).parent
EVENT_CODES = {name: getattr(events, name) for name in dir(events)
               if name.isupper() and isinstance(getattr(events, name), int) and getattr(events, name) in events.FIELDS}


def module_of(path: Path):
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))


def feature_fields_of(module: str) -> dict[int, tuple[str, ...]]:
    """The FEATURE_FIELDS of the game ``module`` belongs to (its kernels, a module or a package)."""
    game = ".".join(module.split(".")[:3])
    return importlib.import_module(game + ".kernels").FEATURE_FIELDS


def code_of(node: ast.expr, module) -> tuple[str, int] | None:
    """The constant an argument names (``events.LINE_WIN``, ``STEP``, ``F_MYSTERY``), or None for
    a value only known when the round runs."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name is None or not name.isupper():
        return None
    if isinstance(node, ast.Attribute) and name in EVENT_CODES:
        return name, EVENT_CODES[name]
    value = getattr(module, name, None)
    return (name, value) if isinstance(value, int) else None


def emits() -> list[tuple[str, int, str, int, int | None]]:
    """Every ``emit(log, CODE, ...)`` in the source whose code is a constant: (module, line, code
    name, fields written, the FEATURE code when it is one)."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and (getattr(node.func, "attr", None) == "emit" or getattr(node.func, "id", None) == "emit")]
        if not calls:
            continue
        module = module_of(path)
        for call in calls:
            code = code_of(call.args[1], module) if len(call.args) > 1 else None
            if code is None:
                continue
            feature = code_of(call.args[2], module) if code[1] == events.FEATURE else None
            found.append((module.__name__, call.lineno, code[0], len(call.args) - 2, feature and feature[1]))
    return found


def test_every_emit_writes_the_fields_its_table_names():
    found = emits()
    assert len(found) >= 60, "the walk found too few emits to be looking at the source"
    wrong = []
    for module, line, name, written, feature in found:
        if feature is None:
            expected = len(events.FIELDS[EVENT_CODES[name]])
        else:
            table = feature_fields_of(module)
            expected = 1 + len(table[feature])
        if written != expected:
            wrong.append(f"{module} (line {line}): {name} writes {written} fields, its table names {expected}")
    assert not wrong, "\n".join(wrong)


def test_every_game_names_the_fields_of_each_feature_code_it_emits():
    emitted = {(module, feature) for module, _, _, _, feature in emits() if feature is not None}
    for module, feature in emitted:
        assert feature in feature_fields_of(module), (module, feature)


def test_a_row_reads_back_by_the_names_of_its_code():
    log = events.new_log(2)
    events.emit(log, events.LINE_WIN, 3, 1, 5, 40, 2)
    events.emit(log, events.FEATURE, 2, 7, 9)
    line, feature = events.rows(log)
    assert events.fields(line) == {"line": 3, "symbol": 1, "count": 5, "units": 40, "multiplier": 2}
    assert events.feature_fields(feature, {2: ("cell", "value")}) == (2, {"cell": 7, "value": 9})
    assert events.feature_fields(feature, {}) == (2, {})  # a code the table does not name has no fields


@pytest.mark.parametrize("code", sorted(events.FIELDS))
def test_every_table_fits_the_row(code):
    assert len(events.FIELDS[code]) <= events.MAX_FIELDS
    assert np.zeros(events.WIDTH).shape[0] > events.CELLS > events.MAX_FIELDS
