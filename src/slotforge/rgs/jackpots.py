"""Progressive jackpot pools for the server. The server talks to a :class:`Jackpots`; this module
has the embedded one: each pool is a row of the server's database, and a round's contribution
and claim are written in the round's own transaction (the pool row locked for it), so a round
and its jackpot share commit or vanish together.

The arithmetic is :mod:`slotforge.jackpot.pool`'s: a pool row is loaded into an
:class:`~slotforge.jackpot.pool.InMemoryPool`, the contribution or claim applied there, and the
new books written back. A networked jackpot service implements the same interface.

A game offers a progressive jackpot by having ``pool_config()``; its round record says the
jackpot was won with an event marked ``"progressive": true, "paid_by": "jackpot_pool"``. One
pool per such game.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Connection, insert, select, update

from slotforge.engine.game import Game
from slotforge.jackpot import Claim, Contribution, InMemoryPool, PoolState
from slotforge.rgs.schema import jackpot_entries, jackpot_pools

POOL_CURRENCY = "EUR"
BOOKS = ("current", "reserve", "contributed", "seeded", "paid")


def has_pool(game: Game) -> bool:
    return callable(getattr(game, "pool_config", None))


def progressive_won(record: dict[str, Any]) -> bool:
    """Whether a round record won its game's progressive jackpot for the pool to pay (an event
    marked ``"progressive": true, "paid_by": "jackpot_pool"``; fun play's full grid pays nothing)."""
    return any(event.get("progressive") and event.get("paid_by") == "jackpot_pool"
               for step in record.get("steps", []) for event in step.get("events", []))


class Jackpots(Protocol):
    """The pools a server's games draw on."""

    def contribute(self, conn: Connection, game: Game, round_id: int, stake: Decimal, now: int) -> Contribution:
        """Add a real-money stake's share (in the caller's transaction; idempotent per round)."""

    def claim(self, conn: Connection, game: Game, round_id: int, now: int) -> Claim:
        """Pay the pot to the round and re-seed (in the caller's transaction; idempotent per round)."""

    def state(self, conn: Connection, game: Game) -> PoolState:
        """The pool's books."""


class EmbeddedJackpots:
    """Pools kept in the server's database."""

    def contribute(self, conn: Connection, game: Game, round_id: int, stake: Decimal, now: int) -> Contribution:
        pool = self._locked(conn, game)
        made = pool.contribute(str(round_id), stake)
        self._save(conn, game, pool, round_id, "contribution", made.amount, made, now)
        return made

    def claim(self, conn: Connection, game: Game, round_id: int, now: int) -> Claim:
        pool = self._locked(conn, game)
        won = pool.claim(str(round_id))
        self._save(conn, game, pool, round_id, "claim", won.amount, won, now)
        return won

    def state(self, conn: Connection, game: Game) -> PoolState:
        return self._load(conn, game, lock=False).state()

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
              amount: Decimal, detail: Any, now: int) -> None:
        state = pool.state()
        conn.execute(update(jackpot_pools).where(jackpot_pools.c.name == game.code)
                     .values(wins=jackpot_pools.c.wins + int(kind == "claim"), **_books(state)))
        conn.execute(insert(jackpot_entries).values(
            pool=game.code, round_id=round_id, kind=kind, amount=str(amount),
            detail=json.dumps({k: str(v) for k, v in asdict(detail).items()}), created_at=now,
        ))


def _books(state: PoolState) -> dict[str, str]:
    return {name: str(getattr(state, name)) for name in BOOKS}
