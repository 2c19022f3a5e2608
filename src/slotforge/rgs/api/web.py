"""The browser client's routes: the lobby (``/``), the game pages (``/play/GAME``, and ``/play``
where an operator's launch URL lands), the built client's files (``/assets``), and the public
game catalogue and models the pages read before any session exists."""

from __future__ import annotations

from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from slotforge.engine.game import Game
from slotforge.engine.model import paylines
from slotforge.rgs.api import answers
from slotforge.rgs.errors import NotFound
from slotforge.rgs.jackpots.embedded import JACKPOT_RULES, has_pool
from slotforge.rgs.presentation import resting_screen_of, stake_rule
from slotforge.rgs.rounds.service import server_of
from slotforge.rgs.volatility import volatility

router = APIRouter()
# The model's fields a paytable and rules page need (the reel strips and design notes are the
# lab's, not the player's).
MODEL_FIELDS = ("line_pays", "scatter_pays", "count_pays", "count_rule", "pay_scale", "wild", "features", "bet")


def client_dist() -> Path:
    """The built client inside the installed package."""
    return Path(str(resources.files("slotforge.web").joinpath("dist")))


def page() -> FileResponse:
    index = client_dist() / "index.html"
    if not index.is_file():
        raise NotFound("the browser client is not built: run npm ci && npm run build in web/")
    # The page names its hashed assets: it must never be served stale after an upgrade.
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


@router.get("/", include_in_schema=False)
def lobby() -> FileResponse:
    return page()


@router.get("/play", include_in_schema=False)
def launch() -> FileResponse:
    return page()


# What a player who follows a link to a game this server does not offer reads (the API's paths
# keep their JSON errors: this is a page, for a person).
NO_SUCH_GAME = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>No such game · slotforge</title>
<style>body{{font-family:system-ui,sans-serif;background:#101820;color:#f5f5f5;text-align:center;padding:3em 1em}}
a{{color:#ffd54a;font-size:1.2em}}</style></head>
<body><main><h1>No such game</h1><p>This server does not offer the game <strong>{code}</strong>.</p>
<p><a href="/">Back to the lobby</a></p></main></body></html>
"""


@router.get("/play/{code}", include_in_schema=False, response_model=None)
def game_page(code: str, request: Request) -> FileResponse | HTMLResponse:
    if code not in server_of(request).games:
        return HTMLResponse(NO_SUCH_GAME.format(code=escape(code)), status_code=404)
    return page()


def catalogue_entry(game: Game) -> dict[str, Any]:
    """What the lobby shows of a game."""
    rows, reels = game.grid
    return {"code": game.code, "name": game.spec.name, **game.published_rtp(), "model": game.model_id,
            "grid": {"rows": rows, "reels": reels}, "jackpot": has_pool(game), "volatility": volatility(game.code)}


@router.get("/v1/games", response_model=None, responses=answers.CATALOGUE)
def games(request: Request) -> dict[str, Any]:
    """The games this server offers (public: the lobby shows them before any session)."""
    return {"games": [catalogue_entry(game) for game in server_of(request).games.values()]}


@router.get("/v1/games/{code}", response_model=None, responses=answers.GAME_MODEL)
def game_model(code: str, request: Request) -> dict[str, Any]:
    """A game's model as a player may read it: symbols, pays, paylines, bets, features and
    decisions, for the game screen, its paytable and its rules page."""
    game = server_of(request).game(code)
    spec = game.spec.model_dump(mode="json")
    lines = [list(line) for line in paylines(game.spec.paylines)] if game.spec.paylines else []
    return {
        **catalogue_entry(game),
        "symbols": [{"code": s.code, "kind": s.kind, **({"reels": list(s.reels)} if getattr(s, "reels", None) else {})}
                    for s in game.spec.symbols],
        **{name: spec.get(name) for name in MODEL_FIELDS},
        **({"features": {**(spec.get("features") or {}), "progressive_jackpot": JACKPOT_RULES}} if has_pool(game)
           else {}),
        "paylines": lines,
        "decisions": {d.name: list(d.options) for d in game.decisions},
        "stake_rule": stake_rule(game),
        "resting_screen": resting_screen_of(game),
    }


def install(app: FastAPI) -> None:
    """Serve the client and its catalogue from ``app``."""
    app.include_router(router)
    assets = client_dist() / "assets"
    app.mount("/assets", StaticFiles(directory=assets, check_dir=False), name="assets")
