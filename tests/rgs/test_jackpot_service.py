"""Two game servers and one jackpot service, each a real process: simultaneous Mega wins, other
currencies, the live stream, and ``kill -9`` of the service with rounds in flight.

How a Mega is won here: real-money rounds take no script (the contract forbids it), and a Mega
is about one round in millions. So the test opens each winning round the way a second worker
process of that game server would: on the server's own database, through the round service's
``start_round`` with the engine's script of a bonus game about to fill the grid (the stake taken,
the round committed, its contribution queued in the outbox, as for any round). The real server
processes then play everything that matters over HTTP: the players' ``start_bonus`` decisions,
sent all at once, resume the rounds, fill the grids and claim the pot at the service.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_DOWN, Decimal

import httpx
import pytest
from sqlalchemy import func, select, update

from slotforge.db import connect
from slotforge.jackpot.stream import read_events
from slotforge.rgs.jackpots.networked import SILENT_S, NetworkedJackpots
from slotforge.rgs.outbox import pending
from slotforge.rgs.rounds.service import Server
from slotforge.rgs.schema import rounds
from slotforge.rgs.settings import load_settings
from tests.rounds import open_forced_round

from .conftest import BACKENDS, Api, ServerProcess, audit
from .jackpot_processes import JackpotService, service_on
from .test_player_api import MEGA_SCRIPT

SEED = Decimal("10000")
SHARE = Decimal("0.037")
RATES = {"GBP": "1.17", "USD": "0.92"}
MEGA_BET = {"bet_level": 2, "coin_value": "0.05"}  # 20 x 2 x 0.05 = 2.00
GAME = "divine-fortune"


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(Decimal("0.01"), rounding=ROUND_DOWN)


def wait_until(condition, timeout: float = 30.0, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out"
        time.sleep(every)


class GameServer:
    """A game server process pointed at the service, its operator API, and a second 'worker' on
    its database in this process (to open scripted rounds, see the module's docstring)."""

    def __init__(self, process: ServerProcess, games) -> None:
        self.process = process
        self.url = process.url
        self.database_url = process.database_url
        settings = load_settings(None, database_url=self.database_url,
                                 jackpot_url=process.env.get("SLOTFORGE_JACKPOT_URL"), jackpot_rates=RATES)
        self.server_id = settings.jackpot_server() if settings.jackpot_url else None
        jackpots = NetworkedJackpots(settings.jackpot_url, self.server_id) if settings.jackpot_url else None
        self.worker = Server(settings, connect(self.database_url), {GAME: games[GAME]}, jackpots=jackpots)
        self.client = httpx.Client(base_url=self.url, timeout=60)
        self.api = Api(self.client, process.operator_key())

    def key(self, round_id: int) -> str:
        """A round's key at the jackpot service (embedded pools: the round's id)."""
        return f"{self.server_id}:{round_id}" if self.server_id else str(round_id)

    def open_mega(self, player) -> int:
        """A committed round waiting for its bonus start, whose bonus fills the grid."""
        opened = open_forced_round(self.worker, f"Bearer {player.token}", self.worker.games[GAME],
                                   {"bet": MEGA_BET, **MEGA_SCRIPT})
        assert opened["status"] == "awaiting"
        return opened["id"]

    def pending(self) -> int:
        with self.worker.engine.connect() as conn:
            return pending(conn, "jackpot")

    def close(self) -> None:
        self.client.close()
        self.worker.engine.dispose()
        self.process.kill()


@pytest.fixture(scope="module", params=BACKENDS)
def service(request, tmp_path_factory):
    """This module's jackpot service, on each kind of database in turn: what it promises after
    ``kill -9`` it promises on either."""
    with service_on(request.param, tmp_path_factory.mktemp("jackpot")) as running:
        yield running


@pytest.fixture(scope="module")
def servers(service, tmp_path_factory, games):
    """Two game servers sharing the service, each with its own database."""
    folder = tmp_path_factory.mktemp("servers")
    env = {"SLOTFORGE_JACKPOT_URL": service.url, "SLOTFORGE_JACKPOT_RATES": json.dumps(RATES),
           "SLOTFORGE_CURRENCIES": '["EUR", "GBP", "USD"]'}
    processes = [ServerProcess(f"sqlite:///{folder / f'{name}.db'}", folder / f"{name}.log", games=f'["{GAME}"]',
                               extra_env=env) for name in ("a", "b")]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda process: process.start(), processes))
    running = [GameServer(process, games) for process in processes]
    for server in running:
        wait_until(lambda server=server: httpx.get(f"{server.url}/v1/jackpots",
                                                   headers=server.api.player("0.00").headers).status_code == 200)
    yield running
    for server in running:
        server.close()


def decide(server: GameServer, player, round_id: int, start: threading.Barrier) -> httpx.Response:
    with httpx.Client(base_url=server.url, timeout=60) as client:
        start.wait()
        return client.post(f"/v1/rounds/{round_id}/decisions", json={"choice": "start_bonus"},
                           headers={**player.headers, "Idempotency-Key": secrets.token_hex(8)})


def test_twenty_simultaneous_megas_on_two_servers_one_takes_the_pot_the_rest_reseeded_pots(service, servers):
    winners = [(server, server.api.player("100.00")) for server in servers for _ in range(10)]
    opened = [(server, player, server.open_mega(player)) for server, player in winners]
    keys = {server.key(round_id) for server, _, round_id in opened}
    # Every round's contribution reaches the service before the claims.
    wait_until(lambda: keys <= {e["key"] for e in service.entries(kind="contribution")})
    before = service.pool()

    start = threading.Barrier(len(opened))
    with ThreadPoolExecutor(len(opened)) as pool:
        answers = list(pool.map(lambda o: decide(*o, start), opened))
    assert [a.status_code for a in answers] == [200] * 20, [a.text for a in answers if a.status_code != 200]

    # The service's commit order of the claims, and what each round was paid.
    claims = [e for e in service.entries(kind="claim") if e["key"] in keys]
    assert len(claims) == 20
    paid = {server.key(a.json()["round"]["id"]): Decimal(a.json()["round"]["jackpot_win"])
            for (server, _, _), a in zip(opened, answers, strict=True)}
    # Expected: the first committed takes the pot; each next one the pot re-seeded at 10,000 plus
    # the reserve (first time only: nothing was contributed in between) plus the cent's fraction left.
    pot, reserve, expected = Decimal(before["current"]), Decimal(before["reserve"]), []
    for _ in claims:
        expected.append(cents(pot))
        pot, reserve = SEED + reserve + (pot - cents(pot)), Decimal(0)
    assert [paid[c["key"]] for c in claims] == expected
    assert expected[0] > SEED + Decimal("0.50") > max(expected[1:])  # one pot, nineteen re-seeded pots
    for answer in answers:
        record = answer.json()["round"]
        coins = sum(Decimal(w["amount"]) for step in record["steps"] for w in step["wins"])
        assert Decimal(record["total_win"]) == coins + Decimal(record["jackpot_win"])
        assert Decimal(answer.json()["balance"]) == Decimal("98.00") + Decimal(record["total_win"])
    # The confirms arrive from both servers' outboxes; the books balance everywhere.
    wait_until(lambda: all(e["status"] == "confirmed" for e in service.entries(kind="claim") if e["key"] in keys))
    assert service.get("/v1/audit")["problems"] == []
    for server in servers:
        checked = audit_with_service(server, service)
        assert checked.returncode == 0, checked.stderr


def audit_with_service(server: GameServer | ServerProcess, service: JackpotService, **env: str | None):
    """``slotforge audit --jackpot`` of ``server``'s database, in its environment changed by
    ``env`` (None: a variable left out)."""
    import subprocess
    import sys

    from .conftest import SRC

    process = server if isinstance(server, ServerProcess) else server.process
    environment = {**process.env, "PYTHONPATH": str(SRC), **env}
    return subprocess.run([sys.executable, "-m", "slotforge.cli", "audit", "--database", process.database_url,
                           "--jackpot", service.url], capture_output=True, text=True,
                          env={name: value for name, value in environment.items() if value is not None})


def test_gbp_and_usd_stakes_contribute_their_converted_share_and_a_payout_is_converted_back(service, servers):
    server = servers[0]
    played = []
    for currency in ("GBP", "USD"):
        player = server.api.player("50.00", currency=currency)
        for _ in range(5):
            body = player.finish(player.play(GAME, bet={"bet_level": 1, "coin_value": "0.01"}))
            played.append((server.key(body["round"]["id"]), Decimal(body["round"]["total_bet"]), currency))
    wait_until(lambda: {k for k, _, _ in played} <= {e["key"] for e in service.entries(kind="contribution")})
    entries = {e["key"]: e for e in service.entries(kind="contribution")}
    for key, stake, currency in played:
        entry = entries[key]
        assert (entry["currency"], entry["rate"], Decimal(entry["stake"])) == (currency, RATES[currency], stake)
        assert Decimal(entry["amount"]) == stake * Decimal(RATES[currency]) * SHARE  # exact, to the last digit

    # A pound player wins the Mega: paid the pot divided by the rate, rounded down to the penny.
    player = servers[1].api.player("100.00", currency="GBP")
    round_id = servers[1].open_mega(player)
    key = servers[1].key(round_id)
    wait_until(lambda: key in {e["key"] for e in service.entries(kind="contribution")})
    before = service.pool()
    pot, reserve = Decimal(before["current"]), Decimal(before["reserve"])
    answer = player.post(f"/v1/rounds/{round_id}/decisions", {"choice": "start_bonus"})
    assert answer.status_code == 200, answer.text
    won = Decimal(answer.json()["round"]["jackpot_win"])
    assert won == cents(pot / Decimal("1.17")) and answer.json()["round"]["currency"] == "GBP"
    claim = next(e for e in service.entries(kind="claim") if e["key"] == key)
    assert (claim["currency"], claim["rate"], Decimal(claim["payout"])) == ("GBP", "1.17", won)
    assert Decimal(claim["amount"]) == won * Decimal("1.17")  # what the pool paid, in EUR, exactly
    # What the payout left of the pot (less than a penny's worth) stays in the next one.
    assert Decimal(service.pool()["current"]) == SEED + reserve + pot - won * Decimal("1.17")
    assert pot - won * Decimal("1.17") < Decimal("0.0117")


@pytest.fixture(scope="module")
def embedded(tmp_path_factory, games):
    """A game server keeping its pool in its own database."""
    folder = tmp_path_factory.mktemp("embedded")
    process = ServerProcess(f"sqlite:///{folder / 'embedded.db'}", folder / "embedded.log", games=f'["{GAME}"]')
    running = GameServer(process.start(), games)
    yield running
    running.close()


def test_a_connected_player_sees_a_win_of_a_networked_pool(servers):
    a_win_reaches_a_connected_player(servers[0])


def test_a_connected_player_sees_a_win_of_an_embedded_pool(embedded):
    a_win_reaches_a_connected_player(embedded)


def a_win_reaches_a_connected_player(server: GameServer) -> None:
    """The win and the pools' values reach a player listening to the stream (how soon depends
    on the machine: printed, not asserted)."""
    watcher = server.api.player("0.00")
    events: list[tuple[float, str, dict]] = []
    stop = threading.Event()

    def listen() -> None:
        try:
            with httpx.Client(base_url=server.url, timeout=30) as client, client.stream(
                    "GET", "/v1/jackpots/stream", params={"token": watcher.token}) as stream:
                for event, data in read_events(stream.iter_lines()):
                    events.append((time.monotonic(), event, data))
                    if stop.is_set():
                        return
        except httpx.HTTPError:  # the server went away (its fixture ended)
            return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    wait_until(lambda: any(e == "values" for _, e, _ in events))
    winner = server.api.player("100.00")
    round_id = server.open_mega(winner)
    answer = winner.post(f"/v1/rounds/{round_id}/decisions", {"choice": "start_bonus"})
    answered = time.monotonic()
    assert answer.status_code == 200, answer.text
    win = wait_until(lambda: next((e for e in events if e[1] == "win" and e[2]["key"] == server.key(round_id)), None),
                     timeout=30)
    print(f"\nthe win arrived {win[0] - answered:.2f} s after the round's answer")
    assert Decimal(win[2]["payout"]) == Decimal(answer.json()["round"]["jackpot_win"])
    wait_until(lambda: len([1 for _, e, _ in events if e == "values"]) >= 3, timeout=30)
    values = [at for at, e, _ in events if e == "values"]
    # Every second, not faster (a busy machine only spreads them out): no flood of values.
    assert (values[-1] - values[0]) / (len(values) - 1) > 0.7, values
    stop.set()


def test_a_service_with_a_secret_answers_only_the_game_servers_that_send_it(tmp_path):
    secret = secrets.token_hex(16)
    service = JackpotService(f"sqlite:///{tmp_path / 'jackpot.db'}", tmp_path / "service.log", secret=secret).start()
    with_secret = ServerProcess(f"sqlite:///{tmp_path / 'a.db'}", tmp_path / "a.log", games=f'["{GAME}"]', extra_env={
        "SLOTFORGE_JACKPOT_URL": service.url, "SLOTFORGE_JACKPOT_SECRET": secret})
    without = ServerProcess(f"sqlite:///{tmp_path / 'b.db'}", tmp_path / "b.log", games=f'["{GAME}"]', extra_env={
        "SLOTFORGE_JACKPOT_URL": service.url})
    try:
        assert httpx.get(f"{service.url}/v1/health").status_code == 200
        for headers in ({}, {"Authorization": f"Bearer {secrets.token_hex(16)}"}):
            for method, path in (("GET", "/v1/pools"), ("POST", f"/v1/pools/{GAME}/claims"),
                                 ("POST", "/v1/claims/x:1/release"), ("GET", "/v1/jackpots/stream")):
                refused = httpx.request(method, f"{service.url}{path}", headers=headers, json={})
                assert refused.status_code == 401 and refused.json()["error"] == "UNAUTHORIZED", (method, path)
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda process: process.start(), (with_secret, without)))
        player = Api(httpx.Client(base_url=with_secret.url, timeout=60), with_secret.operator_key()).player("10.00")
        played = wait_until(lambda: (answer := player.play(GAME, MEGA_BET)).status_code == 200 and answer, every=0.5)
        stake = Decimal(played.json()["round"]["total_bet"])
        delivered = wait_until(lambda: service.entries(kind="contribution"))
        assert [Decimal(e["stake"]) for e in delivered] == [stake] == [Decimal("2.00")]
        stranger = Api(httpx.Client(base_url=without.url, timeout=60), without.operator_key()).player("10.00")
        heard = refused_while_the_stream_speaks(stranger, service.url, secret)
        assert heard >= 2, f"the stream spoke {heard} time(s) while the stranger was watched: the refusals prove nothing"
        assert stranger.get("/v1/session").json()["balance"] == "10.00"
        assert audit_with_service(with_secret, service).returncode == 0  # the secret from its environment
        refused = audit_with_service(with_secret, service, SLOTFORGE_JACKPOT_SECRET=None)
        assert refused.returncode == 1 and "refused this audit (401)" in refused.stderr
        assert "SLOTFORGE_JACKPOT_SECRET" in refused.stderr and "1 difference in" in refused.stderr
    finally:
        for process in (with_secret, without, service):
            process.kill()


def refused_while_the_stream_speaks(stranger, url: str, secret: str) -> int:
    """Ask a game server without the secret for rounds, again and again, for longer than the
    service's stream may stay silent (past that, a server that heard it once would still count it
    as there), while this test listens to that stream with the secret. Every round must be refused
    with nothing taken; returns how many events the stream sent meanwhile (each one the stranger
    would have heard, had the service let it in)."""
    heard: list[str] = []
    deadline = time.monotonic() + SILENT_S + 0.5

    def listen() -> None:
        with httpx.Client(base_url=url, timeout=10, headers={"Authorization": f"Bearer {secret}"}) as client, \
                client.stream("GET", "/v1/jackpots/stream") as stream:
            for event, _ in read_events(stream.iter_lines()):
                heard.append(event)
                if time.monotonic() > deadline:
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    while time.monotonic() < deadline:
        refused = stranger.play(GAME)
        assert refused.status_code == 503 and refused.json()["error"] == "JACKPOT_UNAVAILABLE"
        time.sleep(0.25)  # the pace of the asking, not a wait for anything
    listener.join(5)
    return len(heard)


def test_kill_9_of_the_service_answers_503_takes_nothing_and_delivers_the_queue_after_restart(service, servers):
    server = servers[0]
    stop = threading.Event()
    codes: list[int] = []
    players = [server.api.player("500.00") for _ in range(4)]

    def play(player) -> None:
        with httpx.Client(base_url=server.url, timeout=30, headers=player.headers) as client:
            while not stop.is_set():
                answer = client.post("/v1/rounds", json={"game": GAME}, headers={"Idempotency-Key": secrets.token_hex(8)})
                codes.append(answer.status_code)
                while answer.status_code == 200 and answer.json()["round"]["status"] == "awaiting":
                    choice = answer.json()["round"]["awaiting"]["options"][0]
                    answer = client.post(f"/v1/rounds/{answer.json()['round']['id']}/decisions",
                                         json={"choice": choice}, headers={"Idempotency-Key": secrets.token_hex(8)})

    threads = [threading.Thread(target=play, args=(p,), daemon=True) for p in players]
    for thread in threads:
        thread.start()
    wait_until(lambda: codes.count(200) >= 20)
    # The service hangs (deliveries wait, rounds go on and queue their contributions), then dies.
    service.freeze()
    played = codes.count(200)
    wait_until(lambda: codes.count(200) >= played + 4)  # rounds go on while it hangs
    service.kill()
    queued = server.pending()
    assert queued > 0, "rounds played while the service hung queue their contributions"
    wait_until(lambda: 503 in codes, timeout=10)
    stop.set()
    for thread in threads:
        thread.join(30)

    # While it is away: 503 JACKPOT_UNAVAILABLE, and nothing taken.
    probe = server.api.player("10.00")
    refused = probe.play(GAME)
    assert refused.status_code == 503 and refused.json()["error"] == "JACKPOT_UNAVAILABLE", refused.text
    assert probe.get("/v1/session").json()["balance"] == "10.00"
    assert probe.get("/v1/rounds").json()["rounds"] == []
    assert server.pending() >= queued  # still owed, not lost

    service.start()
    wait_until(lambda: server.pending() == 0, timeout=30)
    assert wait_until(lambda: probe.play(GAME).status_code == 200, timeout=10)
    wait_until(lambda: server.pending() == 0, timeout=30)

    # Every real round of the server contributed once, exactly: its stake x 3.7%.
    with server.worker.engine.connect() as conn:
        stakes = dict(conn.execute(select(rounds.c.id, rounds.c.stake).where(rounds.c.fun.is_(False))).all())
        assert conn.execute(select(func.count()).select_from(rounds).where(rounds.c.status == "void")).scalar() == 0
    theirs = {e["key"]: e for e in service.entries(kind="contribution", server=server.server_id)}
    assert set(theirs) == {server.key(round_id) for round_id in stakes}
    for round_id, stake in stakes.items():
        entry = theirs[server.key(round_id)]
        assert Decimal(entry["amount"]) == Decimal(stake) / 100 * Decimal(entry["rate"]) * SHARE
    books = service.pool()
    assert Decimal(books["seeded"]) + Decimal(books["contributed"]) == (
        Decimal(books["paid"]) + Decimal(books["current"]) + Decimal(books["reserve"]))
    assert service.get("/v1/audit")["problems"] == []
    for each in servers:
        checked = audit_with_service(each, service)
        assert checked.returncode == 0, checked.stderr
    assert audit(server.database_url).returncode == 0

    # The audit matches the two books: a round's jackpot the service did not pay is a difference.
    with server.worker.engine.begin() as conn:
        conn.execute(update(rounds).where(rounds.c.jackpot_win > 0).values(jackpot_win=rounds.c.jackpot_win + 1))
    checked = audit_with_service(server, service)
    assert checked.returncode == 1 and "no matching claim at the service" in checked.stderr
