"""The networked pools: a game server's side of the jackpot service (``slotforge serve --jackpot URL``).

- **Contributions** go through the outbox: written in the round's transaction, delivered after
  the commit until the service acknowledges, idempotent there on the round key
  ``SERVER:ROUND``. A contribution is never lost (it commits with its round) nor counted twice
  (the service answers a repeat from its record), whatever fails in between.
- **Claims** are made before the round's transaction, outside any (:meth:`claim_outside`: a
  service that hangs holds up that round alone, never the writers that share a transaction with
  it, as SQLite's group commit would): the service pays the pot at once and holds the claim;
  the round's transaction writes a *confirm* message to the outbox, delivered once the round is
  committed. If the round never commits (the process dies, the transaction
  fails), no confirm exists, and this server's reconciler, finding the claim still held after
  the lease (``jackpot_claim_lease_s``) with no confirm in its outbox, releases it: the service
  puts the payout back into the pot. So the pot is never left paid to a round that does not
  exist. (A round's transaction lasts milliseconds, far below the lease.)
- **Availability**: a watcher keeps the service's event stream open (values every second). While
  it is down, :meth:`check` answers 503 ``JACKPOT_UNAVAILABLE``, which the Player API gives before
  any stake is taken; the outbox keeps the contributions until the service is back.
- **Live values**: the stream's values and wins are relayed to this server's players.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
from sqlalchemy import Connection, Engine, select

from slotforge.engine.game import Game
from slotforge.jackpot import Claim, Contribution, PoolState
from slotforge.jackpot.pool import ONE, split
from slotforge.jackpot.service import bearer
from slotforge.jackpot.stream import read_events
from slotforge.rgs.jackpots.embedded import unavailable
from slotforge.rgs.outbox import Message, Outbox, enqueue
from slotforge.rgs.schema import outbox

log = logging.getLogger("slotforge.rgs.jackpot")

TARGET = "jackpot"
# The service is taken as away when its stream has been silent this long (it sends every second).
SILENT_S = 3.0
RECONCILE_EVERY_S = 1.0
# What players see of a win (the service's entry has more: its id, status, detail).
WIN_FIELDS = ("pool", "key", "amount", "payout", "currency", "rate")


class ServiceRefused(RuntimeError):
    """The service answered with an error."""


def confirm_key(key: str) -> str:
    return f"confirm:{key}"


class NetworkedJackpots:
    """Pools kept by a jackpot service at ``url``; this server is ``server_id`` there."""

    remote = True

    def __init__(self, url: str, server_id: str, lease_s: float = 300, timeout_s: float = 5.0,
                 clock: Callable[[], float] = time.time, secret: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.server_id = server_id
        self.lease_ms = int(lease_s * 1000)
        self.clock = clock
        self.headers = bearer(secret)
        self.client = httpx.Client(base_url=self.url, timeout=timeout_s, headers=self.headers)
        self._values: list[dict[str, Any]] = []
        self._wins: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._heard = 0.0  # monotonic time the stream last spoke
        self._connected = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._engine: Engine | None = None
        self._outbox: Outbox | None = None
        self._stream: httpx.Client | None = None

    def key(self, round_id: int) -> str:
        """The round's key at the service, unique across the game servers sharing it."""
        return f"{self.server_id}:{round_id}"

    # -- the Jackpots interface -----------------------------------------------------------------
    def check(self, game: Game) -> None:
        if not self.available():
            raise unavailable(f"game: the jackpot service for {game.code} cannot be reached; nothing was taken, "
                              "try again shortly")

    def available(self) -> bool:
        return self._connected and time.monotonic() - self._heard < SILENT_S

    def contribute(self, conn: Connection, game: Game, round_id: int, stake: Decimal, now: int, *,
                   rate: Decimal = ONE, currency: str = "EUR") -> Contribution:
        """Owe the service the stake's share: an outbox message committed with the round."""
        key = self.key(round_id)
        amount, to_current, to_reserve = split(stake, game.pool_config(), rate)
        enqueue(conn, TARGET, "contribution", key, {"pool": game.code, "key": key, "stake": str(stake),
                                                    "currency": currency, "rate": str(rate)},
                now=now, round_id=round_id)
        self.wake()
        return Contribution(key, stake, amount, to_current, to_reserve, rate)

    def claim_outside(self, game: Game, round_id: int, *, rate: Decimal = ONE, currency: str = "EUR") -> Claim:
        """Claim the pot at the service (held there), outside any transaction; 503 when the
        service cannot be reached (nothing is paid, the player may try again). A claim whose
        round then never commits its confirm is released by :meth:`reconcile`."""
        key = self.key(round_id)
        self.check(game)  # a silent service fails the claim at once, not after the call's time-out
        try:
            won = self.call("POST", f"/v1/pools/{game.code}/claims",
                            json={"key": key, "currency": currency, "rate": str(rate)})
        except (httpx.HTTPError, ServiceRefused) as error:
            raise unavailable(f"the jackpot service did not answer the claim: {error}; nothing was paid, "
                              "try again shortly") from error
        detail = won.get("detail", {})
        return Claim(key, Decimal(won["amount"]), Decimal(detail.get("left_over", "0")),
                     Decimal(detail.get("next_current", "0")), Decimal(won["rate"]), Decimal(won["payout"]))

    def claim(self, conn: Connection, game: Game, round_id: int, now: int, *, rate: Decimal = ONE,
              currency: str = "EUR", made: Claim | None = None) -> Claim:
        """Owe the service the confirm of the claim ``made`` outside the transaction, in the
        round's transaction (it is delivered once the round is committed)."""
        if made is None:
            raise RuntimeError(f"round {round_id}: a claim at the jackpot service is made outside the round's "
                               "transaction (claim_outside), never inside it")
        key = self.key(round_id)
        enqueue(conn, TARGET, "confirm", confirm_key(key), {
            "key": key, "pool": game.code, "amount": str(made.amount), "payout": str(made.payout),
            "currency": currency, "rate": str(rate)}, now=now, round_id=round_id)
        return made

    def state(self, conn: Connection, game: Game) -> PoolState:
        try:
            books = self.call("GET", f"/v1/pools/{game.code}")
        except (httpx.HTTPError, ServiceRefused) as error:
            raise unavailable(f"the jackpot service cannot be reached: {error}") from error
        return PoolState(*(Decimal(books[name]) for name in ("current", "reserve", "contributed", "seeded", "paid")),
                         wins=books["wins"])

    def poll(self, engine: Engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """What the service's stream said: its values, and the wins since the last call."""
        if not self.available():
            raise ConnectionError("the jackpot service's stream is silent")
        with self._lock:
            wins, self._wins = self._wins, []
        return list(self._values), [{name: win[name] for name in WIN_FIELDS} for win in wins]

    # -- calls and deliveries -------------------------------------------------------------------
    def call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        answer = self.client.request(method, path, **kwargs)
        if answer.status_code != 200:
            raise ServiceRefused(f"{method} {path}: {answer.status_code} {answer.text[:300]}")
        return answer.json()

    def deliver(self, message: Message) -> dict[str, Any]:
        """The outbox's delivery of one message (raises to be retried)."""
        payload = message.payload
        if message.kind == "contribution":
            return self.call("POST", f"/v1/pools/{payload['pool']}/contributions", json={
                name: payload[name] for name in ("key", "stake", "currency", "rate")})
        if message.kind == "confirm":
            return self.confirm(payload["key"])
        raise ValueError(f"jackpot: no delivery for {message.kind!r}")

    def deliver_many(self, messages: list[Message]) -> dict[int, dict[str, Any]]:
        """The outbox's delivery of several messages: the contributions in one call, the rest one
        by one; the acknowledgements by message id (a refused one is retried, and logged)."""
        answers: dict[int, dict[str, Any]] = {}
        contributions = [m for m in messages if m.kind == "contribution"]
        if contributions:
            sent = self.call("POST", "/v1/contributions", json={"contributions": [
                {name: m.payload[name] for name in ("pool", "key", "stake", "currency", "rate")}
                for m in contributions]})
            for message in contributions:
                if message.key in sent["done"]:
                    answers[message.id] = sent["done"][message.key]
                else:
                    log.error("jackpot: contribution %s refused: %s", message.key, sent["refused"].get(message.key))
        for message in messages:
            if message.kind != "contribution":
                try:
                    answers[message.id] = self.deliver(message)
                except (httpx.HTTPError, ServiceRefused) as error:
                    log.warning("jackpot: %s %s not delivered: %s", message.kind, message.key, error)
        return answers

    def wake(self) -> None:
        if self._outbox is not None:
            self._outbox.wake()

    # -- background: the stream watcher and the claims' reconciler ------------------------------
    def start(self, engine: Engine, box: Outbox) -> None:
        """Deliver through ``box``, watch the service's stream, reconcile held claims."""
        self._engine, self._outbox = engine, box
        box.register(TARGET, self.deliver, deliver_many=self.deliver_many)
        self._stop.clear()
        for target, name in ((self._watch, "stream"), (self._reconcile_forever, "reconcile")):
            thread = threading.Thread(target=target, name=f"slotforge-jackpot-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        if self._stream is not None:
            self._stream.close()  # ends the watcher's wait for the stream's next event
        for thread in self._threads:
            thread.join(5)
        self._threads = []

    def _watch(self) -> None:
        timeout = httpx.Timeout(5.0, read=SILENT_S)
        with httpx.Client(base_url=self.url, timeout=timeout, headers=self.headers) as client:
            self._stream = client
            while not self._stop.is_set():
                try:
                    with client.stream("GET", "/v1/jackpots/stream") as answer:
                        for event, data in read_events(answer.iter_lines()):
                            self._heard, self._connected = time.monotonic(), True
                            if event == "values":
                                self._values = data["pools"]
                            elif event == "win":
                                with self._lock:
                                    self._wins.append(data)
                            if self._stop.is_set():
                                break
                except Exception as error:  # refused, cut, garbled, or closed by stop(): reconnect
                    if self._connected and not self._stop.is_set():
                        log.warning("jackpot service at %s unreachable: %s", self.url, error)
                self._connected = False
                self._stop.wait(0.2)

    def _reconcile_forever(self) -> None:
        while not self._stop.wait(RECONCILE_EVERY_S):
            if self.available():
                try:
                    self.reconcile()
                except Exception as error:  # the service went away meanwhile: next time
                    log.warning("jackpot: reconciling held claims failed: %s", error)

    def held_claims(self) -> dict[str, Any]:
        """This server's claims the service still holds: ``{"entries": [...], "now": ms}``."""
        return self.call("GET", "/v1/entries", params={"server": self.server_id, "kind": "claim", "status": "held"})

    def round_of(self, key: str) -> int | None:
        """The round of this server a claim's key names (None: another server's, or no round's)."""
        server, _, round_id = key.rpartition(":")
        return int(round_id) if server == self.server_id and round_id.isdigit() else None

    def confirm(self, key: str) -> dict[str, Any]:
        """Confirm a claim at the service now, as its round's outbox message will (the service
        answers a repeat from its record)."""
        return self.call("POST", f"/v1/claims/{key}/confirm")

    def release(self, key: str) -> dict[str, Any]:
        """Release a claim at the service now: its round never committed it, and the payout goes
        back into the pot (the service answers a repeat from its record)."""
        return self.call("POST", f"/v1/claims/{key}/release")

    def reconcile(self) -> list[str]:
        """Release this server's claims held past the lease whose round never committed (no
        confirm in the outbox); returns their keys."""
        held = self.held_claims()
        released = []
        for entry in held["entries"]:
            if held["now"] - entry["created_at"] < self.lease_ms:
                continue
            with self._engine.connect() as conn:
                committed = conn.execute(select(outbox.c.id).where(
                    outbox.c.target == TARGET, outbox.c.key == confirm_key(entry["key"]))).first()
            if committed is None:
                self.release(entry["key"])
                log.warning("jackpot: released claim %s (its round was never committed)", entry["key"])
                released.append(entry["key"])
        if any(entry["key"] not in released for entry in held["entries"]):
            self.wake()  # confirms owed: deliver them
        return released
