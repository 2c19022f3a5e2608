"""The built client shipped in the package is the build of the sources in ``web/``: its
``build-info.json`` records a hash of those sources (computed by ``web/scripts/source-hash.mjs``
at build time), which this test computes again the same way."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
DIST = ROOT / "src" / "slotforge" / "web" / "dist"
ROOT_FILES = ["index.html", "operator.html", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts"]


def sources_hash(web: Path = WEB) -> str:
    """sha256 over every source file sorted by path, each as ``path NUL content NUL``."""
    files = sorted([*ROOT_FILES, *(p.relative_to(web).as_posix() for p in (web / "src").rglob("*") if p.is_file())])
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.encode() + b"\0")
        digest.update((web / path).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def test_the_shipped_build_is_built_from_the_current_sources():
    recorded = json.loads((DIST / "build-info.json").read_text())["sources_sha256"]
    assert recorded == sources_hash(), (
        "src/slotforge/web/dist is older than web/: rebuild with `npm ci && npm run build` in web/ and commit it")


def test_the_shipped_page_names_only_assets_that_are_shipped():
    page = (DIST / "index.html").read_text()
    assets = re.findall(r'(?:src|href)="/assets/([^"]+)"', page)
    assert assets, "the page loads no script"
    for name in assets:
        assert (DIST / "assets" / name).is_file(), name


def test_a_changed_source_changes_the_hash(tmp_path):
    """The check can fail: one byte more in a source gives another hash."""
    copy = tmp_path / "web"
    for path in [*(WEB / name for name in ROOT_FILES), *(p for p in (WEB / "src").rglob("*") if p.is_file())]:
        target = copy / path.relative_to(WEB)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    assert sources_hash(copy) == sources_hash()
    (copy / "src" / "main.ts").write_text((copy / "src" / "main.ts").read_text() + "\n")
    assert sources_hash(copy) != sources_hash()
