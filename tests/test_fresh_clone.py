"""``tools/fresh_clone.py`` rewrites the README's one figure of a fresh clone's test run, and
nothing else of it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = importlib.util.spec_from_file_location("fresh_clone", ROOT / "tools" / "fresh_clone.py")
fresh_clone = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(fresh_clone)


def test_the_figure_reads_pytest_s_summary():
    assert fresh_clone.figure(848.4, "===== 1208 passed, 3 skipped in 652.12s (0:10:52) =====", 2) == (
        "14 min 8 s in all for 1,208 tests passed on 2 cores")
    with pytest.raises(SystemExit, match="no count of passed tests"):
        fresh_clone.figure(10, "===== 2 failed in 1.0s =====", 2)


def test_only_the_marked_figure_is_rewritten():
    text = "took <!-- fresh-clone -->14 min 8 s in all\nfor 9 tests<!-- /fresh-clone --> in its last run; 14 min 8 s"
    assert fresh_clone.rewrite(text, "NEW") == "took <!-- fresh-clone -->NEW<!-- /fresh-clone --> in its last run; 14 min 8 s"
    with pytest.raises(SystemExit, match="expected one"):
        fresh_clone.rewrite("no markers", "NEW")


def test_the_readme_holds_one_figure_to_rewrite():
    readme = (ROOT / "README.md").read_text()
    assert fresh_clone.rewrite(readme, "X").count("<!-- fresh-clone -->X<!-- /fresh-clone -->") == 1
