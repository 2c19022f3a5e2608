"""One contract for the server's pools, passed by the embedded pools (rows of the server's
database) and the networked ones (a real ``slotforge jackpot serve`` process): contributions
counted once each at their exact EUR share, whatever the currency; claims paying the pot
rounded down to the winner's cent at the claim's rate and re-seeding; books that balance.

The expected figures are computed here from the game's published rule (3.7% of the stake, 80%
to the pot, 20% to the next one's reserve, 10,000 EUR seed), not by the pool's code.
"""

from __future__ import annotations

import time
from decimal import ROUND_DOWN, Decimal

import pytest
from fastapi.testclient import TestClient

from slotforge.rgs.app import create_app
from slotforge.rgs.jackpots.networked import NetworkedJackpots
from slotforge.rgs.settings import load_settings

from . import jackpot_processes

SEED = Decimal("10000")
SHARE = Decimal("0.037")
RATES = {"GBP": Decimal("1.17"), "USD": Decimal("0.92")}


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(Decimal("0.01"), rounding=ROUND_DOWN)


@pytest.fixture(params=["embedded", "networked"])
def pools(request, games, tmp_path, service):
    """A server's pools (through the ``Jackpots`` interface) and a way to let queued calls land."""
    networked = request.param == "networked"
    settings = load_settings(None, database_url=f"sqlite:///{tmp_path / 'rgs.db'}", games=["divine-fortune"],
                             jackpot_url=service.url if networked else None,
                             jackpot_server_id=f"contract-{tmp_path.name[-20:]}", jackpot_rates=RATES)
    app = create_app(settings, games={"divine-fortune": games["divine-fortune"]})
    with TestClient(app) as client:  # the lifespan: the outbox worker, the service's watcher
        server = app.state.server
        game = server.games["divine-fortune"]
        if networked:
            wait_until(lambda: server.jackpots.available())
        yield Pools(server, game, networked, client)
    server.engine.dispose()


def claimed(server, game, round_id: int, now: int, currency: str = "EUR"):
    """A round's claim as the server makes it: the part at another system outside any
    transaction (the networked pools' call), then the rest in the round's transaction."""
    rate = server.pool_rate(currency)
    made = server.jackpots.claim_outside(game, round_id, rate=rate, currency=currency)
    with server.transaction() as conn:
        return server.jackpots.claim(conn, game, round_id, now, rate=rate, currency=currency, made=made)


def wait_until(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


class Pools:
    def __init__(self, server, game, networked: bool, client) -> None:
        self.server, self.game, self.networked, self.client = server, game, networked, client
        self.round = 0
        with server.engine.connect() as conn:
            self.start = server.jackpots.state(conn, game)

    def contribute(self, stake: str, currency: str = "EUR") -> None:
        self.round += 1
        rate = self.server.pool_rate(currency)
        with self.server.transaction() as conn:
            self.server.jackpots.contribute(conn, self.game, self.round, Decimal(stake), self.server.now(),
                                            rate=rate, currency=currency)

    def claim(self, currency: str = "EUR"):
        self.round += 1
        self.settle()  # contributions owed are delivered before a claim is compared with them
        return claimed(self.server, self.game, self.round, self.server.now(), currency)

    def settle(self) -> None:
        assert self.server.outbox.drain(30)

    def state(self):
        self.settle()
        with self.server.engine.connect() as conn:
            return self.server.jackpots.state(conn, self.game)


def test_contributions_are_their_exact_eur_share_in_any_currency(pools):
    stakes = [("2.00", "EUR"), ("0.20", "GBP"), ("100.00", "USD"), ("0.40", "EUR")]
    for stake, currency in stakes:
        pools.contribute(stake, currency)
    state = pools.state()
    expected = sum(Decimal(stake) * (RATES.get(currency, Decimal(1))) * SHARE for stake, currency in stakes)
    assert state.contributed - pools.start.contributed == expected
    assert state.current - pools.start.current == expected * Decimal("0.8")
    assert state.reserve - pools.start.reserve == expected * Decimal("0.2")
    assert state.balances()


def test_a_claim_pays_the_pot_and_the_next_claim_the_reseeded_pot(pools):
    pools.contribute("50.00")
    before = pools.state()
    first = pools.claim()
    assert first.payout == cents(before.current) and first.amount == first.payout
    after = pools.state()
    assert after.current == SEED + before.reserve + (before.current - first.amount)
    assert after.reserve == 0 and after.paid - before.paid == first.amount and after.wins == before.wins + 1
    second = pools.claim()
    assert second.payout == cents(after.current)
    assert pools.state().balances()


def test_a_claim_in_another_currency_is_paid_at_the_claims_rate(pools):
    pools.contribute("10.00", "GBP")
    before = pools.state()
    won = pools.claim("GBP")
    # The payout in pounds is the pot divided by the rate, rounded down to the penny; the pool
    # pays exactly that many pounds' worth of euros and keeps the rest for the next pot.
    assert won.payout == cents(before.current / RATES["GBP"])
    assert won.amount == won.payout * RATES["GBP"] and won.rate == RATES["GBP"]
    assert before.current - won.amount < RATES["GBP"] / 100
    after = pools.state()
    assert after.current == SEED + before.reserve + before.current - won.amount
    assert after.balances()


def test_a_currency_without_a_rate_is_refused(pools):
    from slotforge.rgs.api.answers import refusal_of
    from slotforge.rgs.errors import GameNotAllowed

    with pytest.raises(GameNotAllowed) as refused:
        pools.server.pool_rate("JPY")
    answered = refusal_of(refused.value)
    assert answered.status == 403 and answered.code == "GAME_NOT_ALLOWED"


def test_the_pool_answers_available_while_it_can_be_reached(pools):
    pools.server.jackpots.check(pools.game)  # no error
    assert isinstance(pools.server.jackpots, NetworkedJackpots) == pools.networked


def test_each_win_is_announced_once_even_when_its_round_commits_after_a_later_one(pools):
    server, game = pools.server, pools.game
    server.jackpots.poll(server.engine)  # the first poll: wins from now on
    announced: list[str] = []

    def claim(round_id: int, started: int) -> str:
        claimed(server, game, round_id, started)
        return server.jackpots.key(round_id) if pools.networked else str(round_id)

    def announced_soon(*keys: str) -> None:
        deadline = time.monotonic() + 10
        while not set(keys) <= set(announced):
            assert time.monotonic() < deadline, f"{keys} not announced; announced {announced}"
            announced.extend(win["key"] for win in server.jackpots.poll(server.engine)[1])
            time.sleep(0.05)

    now = server.now()
    later = claim(1001, now)
    announced_soon(later)
    earlier = claim(1000, now - 30_000)  # its round started 30 s earlier and committed only now
    announced_soon(earlier)
    last = claim(1002, now)  # announced in the order claimed: once it is, no repeat of the others is on its way
    announced_soon(last)
    assert announced == [later, earlier, last]


# -- what only the networked pools have ----------------------------------------------------------

def test_a_claim_whose_round_never_commits_is_released_after_the_lease(games, tmp_path, service):
    """The game server gets the pot from the service, then its round's transaction fails: no
    confirm exists, so after the lease the server releases the claim and the pot has it back."""
    settings = load_settings(None, database_url=f"sqlite:///{tmp_path / 'rgs.db'}", games=["divine-fortune"],
                             jackpot_url=service.url, jackpot_server_id="lease-test", jackpot_claim_lease_s=0.5)
    app = create_app(settings, games={"divine-fortune": games["divine-fortune"]})
    with TestClient(app):
        server = app.state.server
        game = server.games["divine-fortune"]
        wait_until(lambda: server.jackpots.available())
        before = service.pool()
        won = server.jackpots.claim_outside(game, 1)
        assert won.payout == cents(Decimal(before["current"]))
        with pytest.raises(RuntimeError), server.transaction() as conn:
            server.jackpots.claim(conn, game, 1, server.now(), made=won)
            raise RuntimeError("the round's transaction fails after the service answered")
        assert service.entries(server="lease-test", kind="claim")[0]["status"] == "held"
        wait_until(lambda: service.entries(server="lease-test", kind="claim")[0]["status"] == "released")
        after = service.pool()
        # The payout is back in the pot; the seed that re-started it stays in: the books balance.
        assert Decimal(after["current"]) == Decimal(before["current"]) + SEED + Decimal(before["reserve"])
        assert Decimal(after["paid"]) == Decimal(before["paid"]) and after["wins"] == before["wins"]
        assert service.get("/v1/audit")["problems"] == []
        # A committed claim is confirmed, and never released.
        kept = claimed(server, game, 2, server.now())
        assert server.outbox.drain(30)
        assert service.entries(server="lease-test", kind="claim")[1]["status"] == "confirmed"
        assert server.jackpots.reconcile() == []
        assert service.pool()["wins"] == before["wins"] + 1 and kept.payout > SEED
    server.engine.dispose()


def test_a_repeated_contribution_counts_once_and_another_body_under_its_key_is_refused(service):
    import httpx

    body = {"key": "repeat-test:1", "stake": "3.00", "currency": "GBP", "rate": "1.17"}
    first = httpx.post(f"{service.url}/v1/pools/divine-fortune/contributions", json=body)
    before = service.pool()
    again = httpx.post(f"{service.url}/v1/pools/divine-fortune/contributions", json=body)
    assert first.status_code == again.status_code == 200 and again.json() == first.json()
    assert service.pool() == before
    other = httpx.post(f"{service.url}/v1/pools/divine-fortune/contributions", json={**body, "stake": "4.00"})
    assert other.status_code == 422 and other.json()["error"] == "KEY_REUSED"
    assert httpx.post(f"{service.url}/v1/pools/divine-fortune/contributions",
                      json={**body, "key": "repeat-test:2", "stake": 3.0}).status_code == 422  # never a float


def test_the_audit_finds_a_pool_that_does_not_balance(tmp_path):
    import subprocess
    import sys
    import time

    from sqlalchemy import update

    from slotforge.db import connect
    from slotforge.jackpot.books import Books, pools
    from slotforge.jackpot.pool import PoolConfig

    from .conftest import SRC

    url = f"sqlite:///{tmp_path / 'jackpot.db'}"
    books = Books(connect(url), time.time)
    books.ensure("divine-fortune", PoolConfig())
    books.contribute("divine-fortune", "audit-test:1", Decimal("2.00"), "USD", Decimal("0.92"))
    books.claim("divine-fortune", "audit-test:2", "EUR", Decimal(1))

    def audit():
        return subprocess.run([sys.executable, "-m", "slotforge.cli", "jackpot", "audit", "--database", url],
                              env={"PYTHONPATH": str(SRC), "PATH": ""}, capture_output=True, text=True)

    assert audit().returncode == 0
    with books.engine.begin() as conn:
        conn.execute(update(pools).values(current="10000.01"))
    checked = audit()
    assert checked.returncode == 1 and "pool divine-fortune" in checked.stderr
    books.engine.dispose()


def test_the_rules_page_states_the_simultaneous_win_rule(pools):
    """The game's rules page is generated from the model the server gives; the server adds the
    pool's rules to it."""
    rules = pools.client.get("/v1/games/divine-fortune").json()["features"]["progressive_jackpot"]
    assert "first win recorded by the jackpot pool takes the jackpot" in rules["simultaneous_wins"]
    assert "re-seeded" in rules["simultaneous_wins"] and "rounded down to the cent" in rules["currency"]


@pytest.fixture(params=["sqlite", "postgresql"])
def service_on(request, tmp_path):
    """A jackpot service process on each kind of database."""
    with jackpot_processes.service_on(request.param, tmp_path) as running:
        yield running


def test_simultaneous_claims_at_the_service_are_serialised_on_either_database(service_on):
    """Twenty claims sent at once, straight to the service: in its commit order, the first takes
    the pot and each next one the re-seeded pot; confirmed, the books balance."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    contributed = httpx.post(f"{service_on.url}/v1/pools/divine-fortune/contributions",
                             json={"key": "one:1", "stake": "100.00"})
    assert contributed.status_code == 200, contributed.text
    before = service_on.pool()
    start = threading.Barrier(20)

    def claim(n: int) -> httpx.Response:
        with httpx.Client(base_url=service_on.url, timeout=60) as client:
            start.wait()
            return client.post("/v1/pools/divine-fortune/claims", json={"key": f"server-{n % 2}:{n}"})

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(claim, range(20)))
    assert [a.status_code for a in answers] == [200] * 20
    claims = sorted((a.json() for a in answers), key=lambda c: c["id"])
    pot, reserve, expected = Decimal(before["current"]), Decimal(before["reserve"]), []
    for _ in claims:
        expected.append(cents(pot))
        pot, reserve = SEED + reserve + (pot - cents(pot)), Decimal(0)
    assert [Decimal(c["payout"]) for c in claims] == expected
    for c in claims:
        assert httpx.post(f"{service_on.url}/v1/claims/{c['key']}/confirm").json()["status"] == "confirmed"
    released = httpx.post(f"{service_on.url}/v1/claims/{claims[0]['key']}/release")
    assert released.status_code == 409 and released.json()["error"] == "CLAIM_SETTLED"
    assert service_on.pool()["wins"] == 20 and service_on.get("/v1/audit")["problems"] == []


def test_embedded_pools_take_other_currencies_through_the_player_api(make_api, games):
    """A pound player plays Divine Fortune and wins the Mega on a server with embedded pools;
    a currency without a rate is refused before anything is taken."""
    from slotforge.engine import round as runner
    from slotforge.rgs.api import access
    from slotforge.rgs.store.general import lock_player

    from .test_player_api import MEGA_SCRIPT

    api = make_api(currencies=["EUR", "GBP", "JPY"], jackpot_rates=RATES)
    server = api.client.app.state.server
    game = games["divine-fortune"]
    refused = api.player("10.00", currency="JPY").play("divine-fortune")
    assert refused.status_code == 403 and refused.json()["error"] == "GAME_NOT_ALLOWED", refused.text

    player = api.player("100.00", currency="GBP")
    with server.engine.connect() as conn:
        start = server.jackpots.state(conn, game)
    played = player.finish(player.play("divine-fortune", bet={"bet_level": 1, "coin_value": "0.05"}))
    stake = Decimal(played["round"]["total_bet"])
    with server.engine.connect() as conn:
        pot = server.jackpots.state(conn, game)
    assert pot.contributed - start.contributed == stake * RATES["GBP"] * SHARE

    auth = access.authenticate(server, f"Bearer {player.token}")
    bet = game.parse_bet({"bet_level": 2, "coin_value": "0.05"})
    with server.transaction() as conn:
        _, body = server.start_round(conn, lock_player(conn, auth.player_id), auth, game, bet,
                                     runner.parse_script(game, {"bet": bet.as_json(), **MEGA_SCRIPT}), None)
    with server.engine.connect() as conn:
        pot = server.jackpots.state(conn, game)
    done = player.post(f"/v1/rounds/{body['round']['id']}/decisions", {"choice": "start_bonus"}).json()
    assert Decimal(done["round"]["jackpot_win"]) == cents(pot.current / RATES["GBP"])
    assert done["round"]["currency"] == "GBP"
    import json

    from sqlalchemy import select

    from slotforge.rgs.audit import audit
    from slotforge.rgs.schema import jackpot_entries

    with server.engine.connect() as conn:
        recorded = {kind: json.loads(detail) for kind, detail in conn.execute(select(
            jackpot_entries.c.kind, jackpot_entries.c.detail).where(jackpot_entries.c.round_id == body["round"]["id"]))}
        assert audit(conn) == []
    assert {kind: (d["currency"], d["rate"]) for kind, d in recorded.items()} == {
        "contribution": ("GBP", "1.17"), "claim": ("GBP", "1.17")}
    assert Decimal(recorded["claim"]["payout"]) == Decimal(done["round"]["jackpot_win"])
