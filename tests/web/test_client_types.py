"""One source of truth between the server and the browser client: the client's TypeScript types
are generated (openapi-typescript, pinned in web/package.json) from the server's OpenAPI document,
kept as web/openapi.json; these tests fail when the document or the types are stale. The
client's unit tests (vitest, in web/tests) run here too, so that CI's pytest runs them."""

from __future__ import annotations

import json
import re
import runpy
import shutil
import subprocess
from pathlib import Path

import pytest
from services import require

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
TOOL = runpy.run_path(str(ROOT / "tools" / "openapi_document.py"))


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """web/node_modules as package-lock.json pins it (``npm ci`` where it is missing: a fresh
    clone under CI)."""
    require(shutil.which("npm") is not None, "Node.js and npm are not installed: apt-get install -y nodejs npm")
    modules = WEB / "node_modules"
    if not (modules / ".bin" / "vitest").exists() or not (modules / ".bin" / "openapi-typescript").exists():
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=WEB, capture_output=True, text=True, timeout=600)
        require(done.returncode == 0, f"npm ci failed in web/: {done.stderr[-2000:]}")
    return modules


def test_the_committed_openapi_document_is_the_servers():
    document = TOOL["openapi_document"]()
    committed = json.loads((WEB / "openapi.json").read_text())
    assert committed == document, ("web/openapi.json is stale: `python tools/openapi_document.py > web/openapi.json`, "
                                   "then `npm run types` and `npm run build` in web/")
    assert (WEB / "openapi.json").read_text() == TOOL["dumped"](document)


def test_the_client_types_are_generated_from_the_document(node_modules, tmp_path):
    generated = tmp_path / "api-schema.ts"
    subprocess.run([str(node_modules / ".bin" / "openapi-typescript"), "openapi.json", "--output", str(generated)],
                   cwd=WEB, check=True, capture_output=True, timeout=300)
    assert generated.read_text() == (WEB / "src" / "api-schema.ts").read_text(), (
        "web/src/api-schema.ts is stale: `npm run types` in web/")


def test_a_changed_document_gives_other_types(node_modules, tmp_path):
    """The check above can fail: a field added to a model changes the generated types."""
    document = json.loads((WEB / "openapi.json").read_text())
    document["components"]["schemas"]["Win"]["properties"]["sparkle"] = {"type": "string"}
    changed = tmp_path / "openapi.json"
    changed.write_text(json.dumps(document))
    out = tmp_path / "api-schema.ts"
    subprocess.run([str(node_modules / ".bin" / "openapi-typescript"), str(changed), "--output", str(out)],
                   cwd=WEB, check=True, capture_output=True, timeout=300)
    assert "sparkle" in out.read_text() and out.read_text() != (WEB / "src" / "api-schema.ts").read_text()


def test_the_client_unit_tests_pass(node_modules):
    done = subprocess.run([str(node_modules / ".bin" / "vitest"), "run", "--reporter=verbose"], cwd=WEB,
                          capture_output=True, text=True, timeout=600)
    print(done.stdout[-4000:])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


def test_the_back_offices_types_are_the_documents_too():
    """The back office reads the same generated types as the player's client: every answer it
    names is the document's schema (or narrowed from one, checked by ``Narrows`` when the build
    type-checks), none written by hand to drift from the server (a time the API may send as
    null typed as a plain string)."""
    source = (WEB / "src" / "operator" / "types.ts").read_text()
    schemas = json.loads((WEB / "openapi.json").read_text())["components"]["schemas"]
    assert 'from "../api-schema"' in source
    assert "interface " not in source  # a shape written by hand
    named = re.findall(r"^export type (\w+) = (.+)$", source, re.M)
    assert named
    for name, definition in named:
        if name == "Cell":  # a screen's cell: a symbol's code, or a game's object with its value
            continue
        built_on = re.findall(r'Schemas\["(\w+)"\]', definition)
        assert built_on and all(schema in schemas for schema in built_on), f"{name}: {definition}"
