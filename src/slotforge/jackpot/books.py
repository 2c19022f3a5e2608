"""The jackpot service's books: its pools and every contribution and claim, in its own database.

One row per pool holds the books (exact decimal strings, EUR); one row per contribution or claim
records what was asked and what was done, keyed by the caller's round key (a game server's id
and its round id, unique across game servers), so a repeated call is answered from the record
and never counted twice. The arithmetic is :mod:`slotforge.jackpot.pool`'s: a pool row is loaded
into an :class:`~slotforge.jackpot.pool.InMemoryPool`, the call applied there and the new books
written back, with the pool's row locked (PostgreSQL ``FOR UPDATE``; SQLite's write lock), so
claims are serialised: of simultaneous winners the first committed takes the pot and the next
ones the re-seeded pot.

A claim is *held* when it is paid out of the pool, and *confirmed* once the game server has
committed the round that won it (a message from its outbox). A game server whose round did not
commit *releases* the claim: what it paid goes back into the current pot. Only the game server
can tell which happened, so only it confirms or releases; the pot is never left paid to a round
that does not exist.

The schema is small and the service's own: created on first start.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from decimal import Decimal, localcontext
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    insert,
    select,
    update,
)

from slotforge.db import Id, Writer
from slotforge.jackpot.pool import EXACT, Claim, InMemoryPool, JackpotError, PoolConfig, PoolState

POOL_CURRENCY = "EUR"
BOOKS = ("current", "reserve", "contributed", "seeded", "paid")

metadata = MetaData()

pools = Table(
    "pools", metadata,
    Column("name", String(80), primary_key=True),
    *(Column(name, String(80), nullable=False) for name in BOOKS),
    Column("wins", Integer, nullable=False),
    Column("contribution", String(40), nullable=False),  # the pool's arithmetic, as configured
    Column("reserve_share", String(40), nullable=False),
    Column("seed", String(40), nullable=False),
)

entries = Table(
    "entries", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("pool", String(80), nullable=False),
    Column("kind", String(12), nullable=False),  # contribution claim
    Column("key", String(200), nullable=False),  # the caller's round key: "SERVER:ROUND"
    Column("server", String(100), nullable=False),  # the game server that sent it
    Column("status", String(10), nullable=False),  # contributions: done; claims: held confirmed released
    Column("currency", String(3), nullable=False),
    Column("rate", String(40), nullable=False),  # EUR per unit of the currency
    Column("stake", String(40), nullable=True),  # contributions: the stake in its currency
    Column("amount", String(80), nullable=False),  # EUR into (contribution) or out of (claim) the pool
    Column("payout", String(40), nullable=True),  # claims: paid to the winner in their currency
    Column("detail", String(1000), nullable=False),  # the pool's Contribution or Claim, as JSON
    Column("created_at", BigInteger, nullable=False),
    Column("settled_at", BigInteger, nullable=True),  # claims: confirmed or released
    UniqueConstraint("kind", "key"),
    Index("ix_entries_server", "server", "kind", "status"),
    Index("ix_entries_kind_time", "kind", "created_at"),  # the live stream's read of the latest claims
)


class KeyReused(JackpotError):
    """A round key sent again with another request."""


class ClaimSettled(JackpotError):
    """A confirm for a released claim, or a release of a confirmed one."""


class UnknownPool(JackpotError):
    """No pool of that name."""


def server_of_key(key: str) -> str:
    """The game server a round key names ("SERVER:ROUND")."""
    return key.rsplit(":", 1)[0]


class Books:
    """The service's pools and entries in one database."""

    def __init__(self, engine: Engine, clock: Callable[[], float]) -> None:
        self.engine = engine
        self.clock = clock
        metadata.create_all(engine)
        for index in entries.indexes:  # an index added since the books were made
            index.create(engine, checkfirst=True)
        # Write transactions, shared commits on SQLite as the game server's.
        self.transaction = Writer(engine)

    def now(self) -> int:
        return int(self.clock() * 1000)

    def ensure(self, name: str, config: PoolConfig) -> None:
        """Create the pool, seeded, unless it exists."""
        with self.transaction() as conn:
            if conn.execute(select(pools.c.name).where(pools.c.name == name)).first() is None:
                fresh = InMemoryPool(config).state()
                conn.execute(insert(pools).values(
                    name=name, wins=0, contribution=str(config.contribution), reserve_share=str(config.reserve_share),
                    seed=str(config.seed), **{book: str(getattr(fresh, book)) for book in BOOKS}))

    # -- calls ----------------------------------------------------------------------------------
    def contribute(self, pool: str, key: str, stake: Decimal, currency: str, rate: Decimal) -> dict[str, Any]:
        """Add a stake's share (idempotent on ``key``)."""
        with self.transaction() as conn:
            return self._contribute(conn, pool, key, stake, currency, rate)

    def contribute_many(self, asked: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
        """Several contributions in one transaction (each idempotent on its key): the entries by
        key, and the refusals by key (a refused one changes nothing)."""
        done, refused = {}, {}
        with self.transaction() as conn:
            for item in asked:
                try:
                    done[item["key"]] = self._contribute(conn, item["pool"], item["key"], Decimal(item["stake"]),
                                                         item["currency"], Decimal(item["rate"]))
                except JackpotError as error:  # raised before anything is written
                    refused[item["key"]] = str(error)
        return done, refused

    def _contribute(self, conn: Connection, pool: str, key: str, stake: Decimal, currency: str,
                    rate: Decimal) -> dict[str, Any]:
        asked = {"currency": currency, "rate": str(rate), "stake": str(stake)}
        loaded = self._locked(conn, pool)  # first: a twin of this call waits here, then finds the entry
        done = self._entry(conn, "contribution", key)
        if done is not None:
            return self._same(done, asked, pool)
        made = loaded.contribute(key, stake, rate)
        self._save(conn, pool, loaded, wins=0)
        self._record(conn, pool, "contribution", key, "done", currency, rate, made.amount, made, stake=stake)
        return entry_view(self._entry(conn, "contribution", key))

    def claim(self, pool: str, key: str, currency: str, rate: Decimal) -> dict[str, Any]:
        """Pay the current pot to ``key``'s round and re-seed; the claim is held until the game
        server confirms or releases it. Idempotent on ``key`` (a released key claims afresh)."""
        asked = {"currency": currency, "rate": str(rate)}
        with self.transaction() as conn:
            loaded = self._locked(conn, pool)  # first: a twin of this call waits here, then finds the entry
            done = self._entry(conn, "claim", key)
            if done is not None and done["status"] != "released":
                return self._same(done, asked, pool)
            won = loaded.claim(key, rate)
            self._save(conn, pool, loaded, wins=1)
            if done is None:
                self._record(conn, pool, "claim", key, "held", currency, rate, won.amount, won, payout=won.payout)
            else:
                conn.execute(update(entries).where(entries.c.id == done["id"]).values(
                    status="held", currency=currency, rate=str(rate), amount=str(won.amount), payout=str(won.payout),
                    detail=detail_json(won), created_at=self.now(), settled_at=None))
            return entry_view(self._entry(conn, "claim", key))

    def confirm(self, key: str) -> dict[str, Any]:
        """The game server committed the claim's round: the claim is final."""
        with self.transaction() as conn:
            held = self._entry(conn, "claim", key)
            if held is None:
                raise KeyError(key)
            # Conditional: of a confirm and a release racing, one changes the claim, the other sees it.
            conn.execute(update(entries).where(entries.c.id == held["id"], entries.c.status == "held").values(
                status="confirmed", settled_at=self.now()))
            settled = self._entry(conn, "claim", key)
            if settled["status"] == "released":
                raise ClaimSettled(f"claim {key} was released; it cannot be confirmed")
            return entry_view(settled)

    def release(self, key: str) -> dict[str, Any]:
        """The claim's round was never committed: what the claim paid goes back into the pot."""
        with self.transaction() as conn:
            held = self._entry(conn, "claim", key)
            if held is None:
                return {"key": key, "kind": "claim", "status": "unknown"}
            loaded = self._locked(conn, held["pool"])
            released = conn.execute(update(entries).where(entries.c.id == held["id"], entries.c.status == "held")
                                    .values(status="released", settled_at=self.now()))
            if released.rowcount:  # this call released it: the payout goes back into the pot
                loaded.return_claim(Claim(key, Decimal(held["amount"]), Decimal(0), Decimal(0)))
                self._save(conn, held["pool"], loaded, wins=-1)
            settled = self._entry(conn, "claim", key)
            if settled["status"] == "confirmed":
                raise ClaimSettled(f"claim {key} is confirmed; it cannot be released")
            return entry_view(settled)

    # -- reading --------------------------------------------------------------------------------
    def state(self, conn: Connection, pool: str) -> PoolState:
        row = conn.execute(select(pools).where(pools.c.name == pool)).mappings().first()
        if row is None:
            raise UnknownPool(f"pool {pool!r} not found")
        return state_of(row)

    def values(self, conn: Connection) -> list[dict[str, Any]]:
        """Every pool's value as players see it."""
        return [{"pool": row["name"], "currency": POOL_CURRENCY, "current": str(state_of(row).display),
                 "wins": row["wins"]} for row in conn.execute(select(pools).order_by(pools.c.name)).mappings()]

    def claims_since(self, conn: Connection, since: int) -> list[dict[str, Any]]:
        """Claims recorded (or claimed again) at ``since`` or later, for the stream of wins."""
        query = select(entries).where(entries.c.kind == "claim", entries.c.created_at >= since).order_by(entries.c.id)
        return [entry_view(row) for row in conn.execute(query).mappings()]

    def entries(self, conn: Connection, server: str | None = None, kind: str | None = None,
                status: str | None = None, key: str | None = None) -> list[dict[str, Any]]:
        """The entries, oldest first, of a game server, kind, status or key where given."""
        query = select(entries).order_by(entries.c.id)
        for column, value in ((entries.c.server, server), (entries.c.kind, kind), (entries.c.status, status),
                              (entries.c.key, key)):
            if value is not None:
                query = query.where(column == value)
        return [entry_view(row) for row in conn.execute(query).mappings()]

    # -- rows -----------------------------------------------------------------------------------
    def _entry(self, conn: Connection, kind: str, key: str) -> dict[str, Any] | None:
        row = conn.execute(select(entries).where(entries.c.kind == kind, entries.c.key == key)).mappings().first()
        return dict(row) if row is not None else None

    @staticmethod
    def _same(done: dict[str, Any], asked: dict[str, str], pool: str) -> dict[str, Any]:
        """A repeated call's answer: the record, if the call asks what the first asked."""
        if done["pool"] != pool or any(done[name] != value for name, value in asked.items()):
            raise KeyReused(f"{done['kind']} {done['key']}: sent before with another request")
        return entry_view(done)

    def _locked(self, conn: Connection, pool: str) -> InMemoryPool:
        row = conn.execute(select(pools).where(pools.c.name == pool).with_for_update()).mappings().first()
        if row is None:
            raise UnknownPool(f"pool {pool!r} not found")
        config = PoolConfig(Decimal(row["contribution"]), Decimal(row["reserve_share"]), Decimal(row["seed"]))
        return InMemoryPool(config, **{f"_{book}": Decimal(row[book]) for book in BOOKS})

    def _save(self, conn: Connection, pool: str, loaded: InMemoryPool, wins: int) -> None:
        state = loaded.state()
        conn.execute(update(pools).where(pools.c.name == pool).values(
            wins=pools.c.wins + wins, **{book: str(getattr(state, book)) for book in BOOKS}))

    def _record(self, conn: Connection, pool: str, kind: str, key: str, status: str, currency: str, rate: Decimal,
                amount: Decimal, detail: Any, stake: Decimal | None = None, payout: Decimal | None = None) -> None:
        conn.execute(insert(entries).values(
            pool=pool, kind=kind, key=key, server=server_of_key(key), status=status, currency=currency,
            rate=str(rate), stake=None if stake is None else str(stake), amount=str(amount),
            payout=None if payout is None else str(payout), detail=detail_json(detail), created_at=self.now(),
            settled_at=None))


def detail_json(detail: Any) -> str:
    return json.dumps({k: str(v) for k, v in asdict(detail).items()})


def state_of(row: Any) -> PoolState:
    return PoolState(*(Decimal(row[book]) for book in BOOKS), wins=row["wins"])


def entry_view(row: Any) -> dict[str, Any]:
    """An entry as the service answers it."""
    view = {name: row[name] for name in ("id", "pool", "kind", "key", "status", "currency", "rate", "amount",
                                         "created_at")}
    if row["kind"] == "contribution":
        view["stake"] = row["stake"]
    else:
        view["payout"] = row["payout"]
        view["detail"] = json.loads(row["detail"])
    return view


def audit(conn: Connection) -> list[str]:
    """Every difference in the service's books: each pool balances (seeds + contributions ==
    paid + current + reserve), its contributions and claims (held or confirmed) add up to its
    books, its wins count them, and every entry is exact."""
    problems = []
    for row in conn.execute(select(pools)).mappings():
        state = state_of(row)
        if not state.balances():
            problems.append(f"pool {row['name']}: seeds {state.seeded} + contributions {state.contributed} != paid "
                            f"{state.paid} + current {state.current} + reserve {state.reserve}")
        paid = [e for e in conn.execute(select(entries).where(entries.c.pool == row["name"])).mappings()]
        contributed = sum((Decimal(e["amount"]) for e in paid if e["kind"] == "contribution"), Decimal(0))
        claims = [e for e in paid if e["kind"] == "claim" and e["status"] in ("held", "confirmed")]
        claimed = sum((Decimal(e["amount"]) for e in claims), Decimal(0))
        if contributed != state.contributed:
            problems.append(f"pool {row['name']}: contributions recorded {contributed}, the books say "
                            f"{state.contributed}")
        if claimed != state.paid:
            problems.append(f"pool {row['name']}: claims recorded {claimed}, the books say {state.paid}")
        if len(claims) != state.wins:
            problems.append(f"pool {row['name']}: {len(claims)} claims recorded, the books count {state.wins} wins")
        for e in paid:
            problems += entry_problems(e, Decimal(row["contribution"]))
    return problems


def entry_problems(entry: Any, share: Decimal) -> list[str]:
    """An entry's own arithmetic: a contribution is its stake x rate x the pool's share; a
    claim's EUR is its payout x rate."""
    rate = Decimal(entry["rate"])
    with localcontext(EXACT):
        if entry["kind"] == "claim" and Decimal(entry["payout"]) * rate != Decimal(entry["amount"]):
            return [f"claim {entry['key']}: payout {entry['payout']} x rate {rate} != {entry['amount']} EUR"]
        if entry["kind"] == "contribution" and Decimal(entry["stake"]) * rate * share != Decimal(entry["amount"]):
            return [f"contribution {entry['key']}: stake {entry['stake']} x rate {rate} x {share} != "
                    f"{entry['amount']} EUR"]
    return []
