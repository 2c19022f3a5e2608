"""Print the game server's OpenAPI document (``/openapi.json``) as the client's types are
generated from it: ``python tools/openapi_document.py > web/openapi.json``, then
``npm run types`` in ``web/``. ``tests/web/test_client_types.py`` fails when either is stale."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from slotforge.rgs.app import create_app
from slotforge.rgs.settings import load_settings


def openapi_document() -> dict[str, Any]:
    """The document the server answers at ``/openapi.json`` (its routes' models; no game is
    needed for it, so none is loaded)."""
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(database_url=f"sqlite:///{Path(folder) / 'openapi.db'}")
        with TestClient(create_app(settings, games={})) as client:
            return client.get("/openapi.json").json()


def dumped(document: dict[str, Any]) -> str:
    """The document as the committed file has it: sorted keys, two spaces, a final newline."""
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.stdout.write(dumped(openapi_document()))
