"""The jackpot service (``slotforge jackpot serve``): network progressive pools over HTTP, with
their own database, shared by any number of game servers.

Every call names a round key unique across game servers (``SERVER:ROUND``) and is idempotent on
it. Contributions arrive from the game servers' outboxes (delivered until acknowledged); a claim
pays the pot at once (held), and the game server confirms it once its round is committed, or
releases it if the round never was (see :mod:`slotforge.jackpot.books`). Amounts are decimal
strings, pools in EUR; a stake or claim in another currency carries the rate it is converted at.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from slotforge.amounts import AmountText, amount_text
from slotforge.db import connect
from slotforge.jackpot.books import Books, ClaimSettled, KeyReused, UnknownPool, audit
from slotforge.jackpot.pool import JackpotError, PoolConfig
from slotforge.jackpot.stream import Hub, Unannounced

log = logging.getLogger("slotforge.jackpot")

RoundKey = Annotated[str, StringConstraints(min_length=3, max_length=200, pattern=r"^[A-Za-z0-9_.@-]+:[0-9]+$")]
Amount = AmountText
Rate = amount_text(places=12, whole_digits=9)  # EUR per unit of a currency, in the amounts' strict form
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContributionRequest(Body):
    key: RoundKey
    stake: Amount  # in ``currency``
    currency: Currency = "EUR"
    rate: Rate = "1"  # EUR per unit of ``currency``


class PoolContribution(ContributionRequest):
    pool: Annotated[str, StringConstraints(min_length=1, max_length=80)]


class ContributionsRequest(Body):
    contributions: Annotated[list[PoolContribution], Field(min_length=1, max_length=500)]


class ClaimRequest(Body):
    key: RoundKey
    currency: Currency = "EUR"
    rate: Rate = "1"


def error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def bearer(secret: str | None) -> dict[str, str]:
    """The header a game server sends the service: its shared secret (none when unset)."""
    return {"Authorization": f"Bearer {secret}"} if secret else {}


def create_service(database_url: str, pools: dict[str, PoolConfig],
                   clock: Callable[[], float] = time.time, secret: str | None = None) -> FastAPI:
    """The service on ``database_url`` with ``pools``, each pool's parameters by its name (the
    service knows no game: its caller says which pools there are). With ``secret``, every call
    but the health check must carry it (``Authorization: Bearer``): the service pays pots out to
    whoever claims them."""
    books = Books(connect(database_url), clock)
    for name, config in pools.items():
        books.ensure(name, config)
    unannounced = Unannounced(books.now())

    def poll() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        with books.engine.connect() as conn:
            claims = books.claims_since(conn, unannounced.since)
            values = books.values(conn)
        # A claim may be confirmed before this poll sees it: announce it all the same. One released
        # by then never paid anyone.
        return values, unannounced.new([(claim["key"], claim["created_at"], claim) for claim in claims
                                        if claim["status"] != "released"])

    hub = Hub(poll)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        hub.stop()

    app = FastAPI(title="slotforge jackpot service", version="1", lifespan=lifespan)
    app.state.books = books
    app.state.hub = hub

    if secret:
        expected = bearer(secret)["Authorization"].encode()

        @app.middleware("http")
        async def only_with_the_secret(request: Request, call_next: Callable) -> Any:
            given = request.headers.get("authorization", "").encode()
            if request.url.path != "/v1/health" and not hmac.compare_digest(given, expected):
                return error(401, "UNAUTHORIZED", "Authorization: Bearer with the service's secret required")
            return await call_next(request)

    @app.exception_handler(RequestValidationError)
    async def validation(_request: Request, problem: RequestValidationError) -> JSONResponse:
        first = problem.errors()[0]
        field = ".".join(str(part) for part in first.get("loc", ())[1:]) or "body"
        return error(422, "VALIDATION", f"{field}: {first.get('msg', 'invalid')}")

    @app.exception_handler(JackpotError)
    async def refused(_request: Request, problem: JackpotError) -> JSONResponse:
        if isinstance(problem, UnknownPool):
            return error(404, "NOT_FOUND", str(problem))
        if isinstance(problem, KeyReused):
            return error(422, "KEY_REUSED", str(problem))
        if isinstance(problem, ClaimSettled):
            return error(409, "CLAIM_SETTLED", str(problem))
        return error(422, "VALIDATION", str(problem))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, _problem: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return error(500, "INTERNAL", "internal error; nothing was changed")

    @app.get("/v1/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/v1/pools")
    def all_pools() -> dict[str, Any]:
        """Every pool's current value (EUR, rounded down to the cent)."""
        with books.engine.connect() as conn:
            return {"pools": books.values(conn)}

    @app.get("/v1/pools/{pool}")
    def one_pool(pool: str) -> dict[str, Any]:
        """A pool's books, exact."""
        with books.engine.connect() as conn:
            state = books.state(conn, pool)
        return {"pool": pool, "currency": "EUR", "display": str(state.display), "wins": state.wins,
                **{name: str(getattr(state, name)) for name in ("current", "reserve", "contributed", "seeded", "paid")}}

    @app.post("/v1/pools/{pool}/contributions")
    def contribute(pool: str, body: ContributionRequest) -> dict[str, Any]:
        """Add a stake's share to the pool (idempotent on the round key)."""
        return books.contribute(pool, body.key, Decimal(body.stake), body.currency, Decimal(body.rate))

    @app.post("/v1/contributions")
    def contribute_many(body: ContributionsRequest) -> dict[str, Any]:
        """Several contributions in one transaction (a game server's outbox sends what it owes
        together): ``done`` by key, and ``refused`` by key with the reason."""
        done, refused = books.contribute_many([item.model_dump() for item in body.contributions])
        return {"done": done, "refused": refused}

    @app.post("/v1/pools/{pool}/claims")
    def claim(pool: str, body: ClaimRequest) -> dict[str, Any]:
        """Pay the pot to the round (held until confirmed or released; idempotent on the key)."""
        return books.claim(pool, body.key, body.currency, Decimal(body.rate))

    @app.post("/v1/claims/{key}/confirm")
    def confirm(key: str) -> Any:
        """The round that won the claim is committed: the claim is final."""
        try:
            return books.confirm(key)
        except KeyError:
            return error(404, "NOT_FOUND", f"claim {key} not found")

    @app.post("/v1/claims/{key}/release")
    def release(key: str) -> dict[str, Any]:
        """The round that made the claim was never committed: the pot gets its payout back."""
        return books.release(key)

    @app.get("/v1/entries")
    def list_entries(server: Annotated[str | None, Query()] = None, kind: Annotated[str | None, Query()] = None,
                     status: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        """Contributions and claims, oldest first, for audits and the game servers' reconciliation."""
        with books.engine.connect() as conn:
            return {"entries": books.entries(conn, server, kind, status), "now": books.now()}

    @app.get("/v1/audit")
    def check() -> dict[str, Any]:
        """The service's own books: every difference found (none when they balance)."""
        with books.engine.connect() as conn:
            return {"problems": audit(conn), "pools": books.values(conn)}

    @app.get("/v1/jackpots/stream")
    def stream() -> StreamingResponse:
        """Server-sent events: ``values`` every second, ``win`` as each happens."""
        return StreamingResponse(hub.events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return app
