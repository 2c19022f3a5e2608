"""Progressive jackpot pools for the server. The server talks to a :class:`Jackpots`; this module
has the embedded one: each pool is a row of the server's database, and a round's contribution
and claim are written in the round's own transaction (the pool row locked for it), so a round
and its jackpot share commit or vanish together. The networked one
(:class:`~slotforge.rgs.jackpots.networked.NetworkedJackpots`) talks to a jackpot service shared by
several game servers.

The arithmetic is :mod:`slotforge.jackpot.pool`'s: a pool row is loaded into an
:class:`~slotforge.jackpot.pool.InMemoryPool`, the contribution or claim applied there, and the
new books written back. Pools are kept in EUR: a stake in another currency comes with its rate
(EUR per unit, from the operator's table), recorded with the contribution and the claim; the
claim's payout is in the player's currency at the claim's rate.

A game offers a progressive jackpot by having ``pool_config()``; its round record says the
jackpot was won with an event marked ``"progressive": true, "paid_by": "jackpot_pool"``. One
pool per such game.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, bindparam, insert, select, update

from slotforge.engine.game import Game
from slotforge.jackpot import Claim, Contribution, InMemoryPool, PoolState
from slotforge.jackpot.pool import ONE
from slotforge.jackpot.stream import Unannounced
from slotforge.rgs.errors import JackpotUnavailable
from slotforge.rgs.schema import jackpot_entries, jackpot_pools

POOL_CURRENCY = "EUR"
# The rules a jackpot game's rules page states (regulators ask for the simultaneous-win rule).
JACKPOT_RULES = {
    "simultaneous_wins": "Of simultaneous winners, the first win recorded by the jackpot pool takes the jackpot; "
                         "each next one wins the jackpot as re-seeded (the seed plus the amount set aside for the "
                         "next jackpot). A win whose round is not completed is returned to the jackpot.",
    "currency": "The jackpot is kept in EUR. A win in another currency is paid at the operator's exchange rate at "
                "the time of the win, rounded down to the cent; the rate is recorded with the win.",
}
LATEST_CLAIMS = select(jackpot_entries).where(jackpot_entries.c.kind == "claim",
                                              jackpot_entries.c.created_at >= bindparam("p_since"))
BOOKS = ("current", "reserve", "contributed", "seeded", "paid")


def has_pool(game: Game) -> bool:
    return game.capabilities.jackpot_pool


def unavailable(message: str) -> JackpotUnavailable:
    """The answer while the jackpot service cannot be reached: nothing was taken."""
    return JackpotUnavailable(message, retry_after_s=1)


class Jackpots(Protocol):
    """The pools a server's games draw on. Amounts into and out of a pool are EUR; ``rate`` is
    EUR per unit of the player's ``currency``."""

    # Whether the pools are another system's: a claim then calls it, outside any transaction.
    remote: bool

    def check(self, game: Game) -> None:
        """Raise 503 ``JACKPOT_UNAVAILABLE`` when the game's pool cannot be reached now."""

    def contribute(self, conn: Connection, game: Game, round_id: int, stake: Decimal, now: int, *,
                   rate: Decimal = ONE, currency: str = "EUR") -> Contribution:
        """Add a real-money stake's share (in the caller's transaction; idempotent per round)."""

    def claim_outside(self, game: Game, round_id: int, *, rate: Decimal = ONE, currency: str = "EUR") -> Claim | None:
        """The part of a claim that calls another system, made before the round's transaction and
        outside any (a hanging service then holds up this round alone, never the writers that
        share its transaction); None when the whole claim is made in the transaction."""

    def claim(self, conn: Connection, game: Game, round_id: int, now: int, *, rate: Decimal = ONE,
              currency: str = "EUR", made: Claim | None = None) -> Claim:
        """Pay the pot to the round and re-seed (in the caller's transaction; idempotent per round);
        the claim's ``payout`` is in ``currency``. ``made``: :meth:`claim_outside`'s claim."""

    def state(self, conn: Connection, game: Game) -> PoolState:
        """The pool's books."""

    def poll(self, engine: Engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The pools' values now and the wins since the last call (for the live stream)."""


class EmbeddedJackpots:
    """Pools kept in the server's database."""

    remote = False

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._unannounced = Unannounced(int(clock() * 1000))

    def check(self, game: Game) -> None:
        """The pool is in this database: always there."""

    def contribute(self, conn: Connection, game: Game, round_id: int, stake: Decimal, now: int, *,
                   rate: Decimal = ONE, currency: str = "EUR") -> Contribution:
        pool = self._locked(conn, game)
        made = pool.contribute(str(round_id), stake, rate)
        self._save(conn, game, pool, round_id, "contribution", made.amount, made, now, currency)
        return made

    def claim_outside(self, game: Game, round_id: int, *, rate: Decimal = ONE, currency: str = "EUR") -> None:
        """The pool is in this database: the whole claim is made in the round's transaction."""
        return None

    def claim(self, conn: Connection, game: Game, round_id: int, now: int, *, rate: Decimal = ONE,
              currency: str = "EUR", made: Claim | None = None) -> Claim:
        pool = self._locked(conn, game)
        won = pool.claim(str(round_id), rate)
        self._save(conn, game, pool, round_id, "claim", won.amount, won, now, currency)
        return won

    def state(self, conn: Connection, game: Game) -> PoolState:
        return pool_state(conn.execute(select(jackpot_pools).where(jackpot_pools.c.name == game.code)).mappings().one())

    def poll(self, engine: Engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Read by every process of the server from the database: wins of any of them show."""
        with engine.connect() as conn:
            values = [{"pool": row["name"], "currency": POOL_CURRENCY, "wins": row["wins"],
                       "current": str(pool_state(row).display)}
                      for row in conn.execute(select(jackpot_pools).order_by(jackpot_pools.c.name)).mappings()]
            claims = conn.execute(LATEST_CLAIMS, {"p_since": self._unannounced.since}).mappings().all()
        fresh = self._unannounced.new((f"{row['pool']}:{row['round_id']}", row["created_at"], row) for row in claims)
        return values, [win_view(row) for row in fresh]

    def ensure(self, conn: Connection, game: Game) -> None:
        """Create the game's pool, seeded, unless it exists (at start-up)."""
        exists = conn.execute(select(jackpot_pools.c.name).where(jackpot_pools.c.name == game.code)).first()
        if exists is None:
            fresh = InMemoryPool(game.pool_config())
            conn.execute(insert(jackpot_pools).values(name=game.code, wins=0, **_books(fresh.state())))

    # -- rows -------------------------------------------------------------------------------
    def _locked(self, conn: Connection, game: Game) -> InMemoryPool:
        return self._load(conn, game, lock=True)

    def _load(self, conn: Connection, game: Game, lock: bool) -> InMemoryPool:
        query = select(jackpot_pools).where(jackpot_pools.c.name == game.code)
        row = conn.execute(query.with_for_update() if lock else query).mappings().one()
        books = {f"_{name}": Decimal(row[name]) for name in BOOKS}
        return InMemoryPool(game.pool_config(), **books)

    def _save(self, conn: Connection, game: Game, pool: InMemoryPool, round_id: int, kind: str,
              amount: Decimal, detail: Any, now: int, currency: str) -> None:
        state = pool.state()
        conn.execute(update(jackpot_pools).where(jackpot_pools.c.name == game.code)
                     .values(wins=jackpot_pools.c.wins + int(kind == "claim"), **_books(state)))
        conn.execute(insert(jackpot_entries).values(
            pool=game.code, round_id=round_id, kind=kind, amount=str(amount),
            detail=json.dumps({**{k: str(v) for k, v in asdict(detail).items()}, "currency": currency}),
            created_at=now,
        ))


def win_view(claim: Any) -> dict[str, Any]:
    """A claim as the live stream announces it."""
    detail = json.loads(claim["detail"])
    return {"pool": claim["pool"], "key": str(claim["round_id"]), "amount": claim["amount"],
            "payout": detail.get("payout", claim["amount"]), "currency": detail.get("currency", "EUR"),
            "rate": detail.get("rate", "1")}


def _books(state: PoolState) -> dict[str, str]:
    return {name: str(getattr(state, name)) for name in BOOKS}


def pool_state(row: Any) -> PoolState:
    """A pool row's books."""
    return PoolState(*(Decimal(row[name]) for name in BOOKS), wins=row["wins"])
