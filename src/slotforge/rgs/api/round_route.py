"""``POST /v1/rounds`` on a bare ASGI route: the server's busiest request, answered without
FastAPI's routing, dependency solving and middleware chain (:class:`GameServerApp` hands it
over before any of them).

Under load those cost about three times the round itself (a profile of a server at its limit:
the HTTP stack and FastAPI took two thirds of the interpreter, the round and its transaction a
sixth). Nothing else differs from the FastAPI route of the same path, which stays for the OpenAPI
document: the same body model validates the request, the same session look-up authenticates it,
the same round service plays it, and an error has the same form.
"""

from __future__ import annotations

import logging
import time

import orjson
from fastapi import FastAPI
from pydantic import ValidationError
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from slotforge.rgs.api import access
from slotforge.rgs.api.http import INTERNAL, error_answer, read_body, validation_error
from slotforge.rgs.api.models import RoundRequest
from slotforge.rgs.api.player import answer_round
from slotforge.rgs.errors import DomainError, Invalid
from slotforge.rgs.metrics import timer_of
from slotforge.rgs.rounds.service import Server

log = logging.getLogger("slotforge.rgs")

PATH = "/v1/rounds"


class RoundRoute:
    """The ASGI handler of ``POST /v1/rounds``."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.timed = timer_of(f"POST {PATH}")  # what the middleware it bypasses would time

    @staticmethod
    def takes(scope: Scope) -> bool:
        """Whether the request is this route's."""
        return scope["type"] == "http" and scope["path"] == PATH and scope["method"] == "POST"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        try:
            response = await self.play(scope, receive)
        except DomainError as error:
            response = error_answer(error)
        except Exception:
            log.exception("unexpected error")
            await error_answer(INTERNAL)(scope, receive, send)
            self.timed(time.perf_counter() - started)
            raise  # as Starlette does: the ASGI server (or a test client) learns of it too
        await response(scope, receive, send)
        self.timed(time.perf_counter() - started)

    async def play(self, scope: Scope, receive: Receive) -> Response:
        """The round the request asks for (see :func:`~slotforge.rgs.api.player.answer_round`)."""
        headers = dict(reversed(scope["headers"]))  # a repeated header: its first value, as Starlette reads it
        authorization = text_header(headers, b"authorization")
        auth = await access.session_of(self.server, authorization)
        body = parse(headers, await read_body(receive))
        key = text_header(headers, b"idempotency-key")
        return await answer_round(self.server, auth, body, PATH, key)


class GameServerApp(FastAPI):
    """The game server's FastAPI application, which answers ``POST /v1/rounds`` with its
    :class:`RoundRoute` before FastAPI's own machinery (telemetry checks, middleware, routing)."""

    round_route: RoundRoute | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.round_route is not None and self.round_route.takes(scope):
            await self.round_route(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def text_header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def parse(headers: dict[bytes, bytes], raw: bytes) -> RoundRequest:
    """The request's body as a :class:`RoundRequest` (422 naming the field otherwise); JSON only,
    as FastAPI's route takes it."""
    kind = headers.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
    if not (kind == b"application/json" or (kind.startswith(b"application/") and kind.endswith(b"+json"))):
        raise Invalid("body: expected a JSON body (Content-Type: application/json)", field="body")
    if not raw:
        raise Invalid("body: Field required", field="body")
    try:
        decoded = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise validation_error({"type": "json_invalid"}) from error
    if not isinstance(decoded, dict):
        raise Invalid("body: expected a JSON object", field="body")
    try:  # validated as FastAPI validates it (from Python objects): the same words for the same fault
        return RoundRequest.model_validate(decoded)
    except ValidationError as error:
        raise validation_error(error.errors()[0]) from error
