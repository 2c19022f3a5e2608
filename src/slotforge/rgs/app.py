"""The FastAPI application: start-up (schema, games warming up in the background), error answers, routes.

``create_app`` builds the app for a settings object; ``app_from_environment`` is the factory
uvicorn calls in each worker process (``slotforge serve`` passes the settings through the
environment).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotforge import logs
from slotforge.db import connect
from slotforge.engine.game import Game
from slotforge.games import game_codes, load_game
from slotforge.games.warmup import Warmup, compile_games, ready_game
from slotforge.jackpot.stream import Hub, Poll
from slotforge.rgs import metrics
from slotforge.rgs.api import backoffice, compliance, staff, web
from slotforge.rgs.api import free_rounds as free_rounds_api
from slotforge.rgs.api import limits as limits_api
from slotforge.rgs.api import operator as operator_api
from slotforge.rgs.api import player as player_api
from slotforge.rgs.api.http import INTERNAL, MAX_BODY_BYTES, coded_answer, error_answer, too_large, validation_error
from slotforge.rgs.api.round_route import GameServerApp, RoundRoute
from slotforge.rgs.backoffice import reports
from slotforge.rgs.compliance.startup import record_start
from slotforge.rgs.errors import DomainError, NotFound
from slotforge.rgs.fun import FunSessions
from slotforge.rgs.jackpots.embedded import EmbeddedJackpots, Jackpots, has_pool
from slotforge.rgs.jackpots.networked import NetworkedJackpots
from slotforge.rgs.rounds.service import Server
from slotforge.rgs.rounds.stale import complete_stale_rounds
from slotforge.rgs.schema import migrate
from slotforge.rgs.settings import Settings, load_settings

log = logging.getLogger("slotforge.rgs")

CONFIG_ENV = "SLOTFORGE_CONFIG"


def load_games(codes: list[str] | None) -> dict[str, Game]:
    """Every game offered, ready to play: compiled in parallel worker processes (or found in the
    disk cache), then loaded here, so that no request ever waits for numba."""
    codes = codes or game_codes()
    compile_games(codes)
    return {code: ready_game(code) for code in codes}


def create_app(settings: Settings, games: dict[str, Game] | None = None,
               clock: Callable[[], float] = time.time) -> FastAPI:
    """The server for ``settings``: the schema migrated, the games ready, stale rounds finished."""
    engine = connect(settings.database_url)
    migrate(engine)
    if games is None:  # the games' data now (cheap); their round functions compiled in the background
        offered = {code: load_game(code) for code in settings.games or game_codes()}
        warmup = Warmup(list(offered), on_ready=lambda _game: finish_interrupted(server))
    else:
        offered, warmup = games, Warmup(list(games), loaded=games)
    server = Server(settings, engine, offered, jackpots=jackpots_for(settings, clock), clock=clock, warmup=warmup)
    if isinstance(server.jackpots, EmbeddedJackpots):
        with server.transaction() as conn:
            for game in server.games.values():
                if has_pool(game):
                    server.jackpots.ensure(conn, game)
    record_start(server.transaction, settings, server.games.in_play(), server.now())
    finish_interrupted(server)
    warmup.start()
    app = GameServerApp(title="slotforge game server", version="1", docs_url="/docs", openapi_url="/openapi.json",
                  lifespan=outbox_worker)
    app.state.server = server
    app.state.fun_sessions = FunSessions(settings, engine, server.transaction, clock)
    app.state.jackpot_hub = Hub(offered_pools(server))
    app.include_router(player_api.router)
    app.include_router(limits_api.router)
    app.include_router(operator_api.router)
    app.include_router(free_rounds_api.operator)
    app.include_router(free_rounds_api.router)
    app.include_router(backoffice.router)
    app.include_router(backoffice.pages)
    app.include_router(compliance.router)
    app.include_router(compliance.pages)
    app.include_router(staff.router)
    app.state.metrics = metrics.registry_for(engine, server.now, lambda: reports.theory(server.games))
    web.install(app)
    install_error_answers(app)
    app.add_middleware(BodyLimit)
    app.add_middleware(metrics.RequestTimer)
    app.round_route = RoundRoute(server)  # the busiest request skips the rest
    return app


def finish_interrupted(server: Server) -> None:
    """Complete the rounds interrupted past their jurisdiction's limit (of the games ready)."""
    finished = complete_stale_rounds(server)
    if finished:
        log.info("completed %d interrupted rounds past their jurisdiction's limit", finished)


def jackpots_for(settings: Settings, clock: Callable[[], float]) -> Jackpots:
    """The pools in this database, or at the jackpot service the settings name."""
    if settings.jackpot_url is None:
        return EmbeddedJackpots(clock)
    return NetworkedJackpots(settings.jackpot_url, settings.jackpot_server(), settings.jackpot_claim_lease_s,
                             clock=clock, secret=settings.jackpot_secret)


def offered_pools(server: Server) -> Poll:
    """The live stream's source: the pools of the games this server offers."""
    codes = {game.code for game in server.games.values() if has_pool(game)}

    def poll() -> tuple[list[dict], list[dict]]:
        values, wins = server.jackpots.poll(server.engine)
        return [v for v in values if v["pool"] in codes], [w for w in wins if w["pool"] in codes]

    return poll


@asynccontextmanager
async def outbox_worker(app: FastAPI) -> AsyncIterator[None]:
    """Deliver the outbox while the server serves (what earlier processes left included); with
    a jackpot service, watch it too."""
    server = app.state.server
    if isinstance(server.jackpots, NetworkedJackpots):
        server.jackpots.start(server.engine, server.outbox)
    server.seamless.calls.loop.adopt(asyncio.get_running_loop())
    server.outbox.start()
    try:
        yield
    finally:
        server.warmup.stop()
        server.lanes.close()
        await asyncio.to_thread(server.outbox.stop)  # its wallet calls run on this loop till it stops
        await server.seamless.calls.stop()
        app.state.jackpot_hub.stop()
        if isinstance(server.jackpots, NetworkedJackpots):
            server.jackpots.stop()


def install_error_answers(app: FastAPI) -> None:
    """Every error is ``{"error", "message", "field"?}``; none shows a stack trace."""

    @app.exception_handler(DomainError)
    async def refused(_request: Request, error: DomainError) -> JSONResponse:
        return error_answer(error)

    @app.exception_handler(RequestValidationError)
    async def validation(_request: Request, error: RequestValidationError) -> JSONResponse:
        return error_answer(validation_error(error.errors()[0]))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        if error.status_code == 404:
            return error_answer(NotFound(str(error.detail)))
        code = {405: "METHOD_NOT_ALLOWED"}.get(error.status_code, "HTTP_ERROR")
        return coded_answer(error.status_code, {"error": code, "message": str(error.detail)})

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error_answer(INTERNAL)


class BodyLimit:
    """Refuse a body above ``MAX_BODY_BYTES`` (413) before reading it all."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            await refuse_too_large(send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_BODY_BYTES:
                raise too_large()
            return message

        await self.app(scope, counted, send)


async def refuse_too_large(send: Send) -> None:
    await error_answer(too_large())({"type": "http"}, None, send)  # type: ignore[arg-type]


class HideTokens(logging.Filter):
    """Keeps session tokens out of the access log: a browser's event stream carries its token in
    the query (an EventSource cannot send headers), and a log is no place for a bearer secret."""

    TOKEN = re.compile(r"([?&]token=)[^&\s]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.TOKEN.sub(r"\1…", a) if isinstance(a, str) else a for a in record.args)
        return True


def app_from_environment() -> FastAPI:
    """uvicorn's factory: the settings file named by ``SLOTFORGE_CONFIG`` and ``SLOTFORGE_*``."""
    logs.configure()
    logging.getLogger("uvicorn.access").addFilter(HideTokens())
    config = os.environ.get(CONFIG_ENV)
    app = create_app(load_settings(Path(config) if config else None))
    # What start-up built lives as long as the process: out of the collector's sight, a
    # collection no longer walks it (fewer, shorter pauses under load).
    gc.collect()
    gc.freeze()
    return app

