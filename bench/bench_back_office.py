"""The back office's reads on a large book: how long each report and look-up takes, and a
``/metrics`` scrape, on PostgreSQL with N synthetic rounds of one operator.

    python bench/bench_back_office.py [--rounds 1000000] [--players 5000] [--days 365]

The rounds are written straight into a new database by SQL (``generate_series``: stakes of 0.20
to 2.00, about one in four winning, spread over ``--days`` days up to now), then the server is
built on it in this process and each request is timed through its ASGI app (best of three). The
reports of the last month are then timed read from the rounds, on their first call (which
summarises the month's ended days) and read from those summaries, with the ratio. The database is
dropped at the end. Needs PostgreSQL at 127.0.0.1:5432 (user postgres).
"""

from __future__ import annotations

import argparse
import secrets
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import psycopg
from fastapi.testclient import TestClient

from slotforge.rgs.api import access
from slotforge.rgs.app import create_app
from slotforge.rgs.backoffice import reports
from slotforge.rgs.settings import load_settings

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
DAY_MS = 86_400_000

FILL = """
INSERT INTO players (operator_id, external_id, currency, fun, balance, wallet, created_at)
SELECT %(operator)s, 'p-' || n, 'EUR', false, 100000, 'internal', %(start)s FROM generate_series(1, %(players)s) n;
INSERT INTO sessions (token_hash, player_id, jurisdiction, created_at, last_seen)
SELECT md5(id::text) || md5((id + 1)::text), id, 'default', %(start)s, %(start)s
FROM players WHERE operator_id = %(operator)s;
INSERT INTO rounds (player_id, session_id, game, status, fun, currency, jurisdiction, stake, win, jackpot_win,
                    balance_before, balance_after, record, started_at, finished_at)
SELECT p.id, s.id, 'dynasty', 'complete', false, 'EUR', 'default', stake, win, 0, 100000, 100000 - stake + win,
       '{"game": "dynasty", "steps": []}', t, t
FROM (SELECT n, 20 * (1 + n %% 10) AS stake,
             CASE WHEN n %% 4 = 0 THEN 20 * (1 + n %% 10) * (n %% 7) ELSE 0 END AS win,
             %(start)s + (n::bigint * %(days)s * %(day)s) / %(rounds)s AS t
      FROM generate_series(1, %(rounds)s) n) r
JOIN players p ON p.operator_id = %(operator)s AND p.external_id = 'p-' || (1 + r.n %% %(players)s)
JOIN sessions s ON s.player_id = p.id;
ANALYZE
"""


def timed(client: TestClient, path: str, key: str | None) -> float:
    """The best of three answers' times, in milliseconds."""
    def ask() -> None:
        answer = client.get(path, headers={"X-Api-Key": key} if key else {})
        assert answer.status_code == 200, answer.text
    return best_of_three(ask)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--days", type=int, default=365, help="the days the rounds are spread over, up to now")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards (its name is printed)")
    args = parser.parse_args()
    name = f"slotforge_bench_office_{secrets.token_hex(3)}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        settings = load_settings(None, database_url=f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}",
                                 games=["dynasty"])
        app = create_app(settings)
        server = app.state.server
        with server.transaction() as conn:
            key = access.add_operator(conn, "bench", server.now())
        start = server.now() - args.days * DAY_MS
        filled = time.perf_counter()
        with psycopg.connect(f"host=127.0.0.1 port=5432 user=postgres dbname={name}", autocommit=True) as db:
            operator = db.execute("SELECT id FROM operators WHERE name = 'bench'").fetchone()[0]
            values = {"operator": operator, "start": start, "players": args.players, "rounds": args.rounds,
                      "day": DAY_MS, "days": args.days}
            for statement in filter(str.strip, FILL.split(";")):
                db.execute(statement, values if "%(" in statement else None)
        print(f"{args.rounds:,} rounds of {args.players:,} players over {args.days} days written in "
              f"{time.perf_counter() - filled:.1f} s")
        client = TestClient(app)
        first_scrape = time.perf_counter()
        client.get("/metrics")
        took = (time.perf_counter() - first_scrape) * 1000
        print(f"{'first /metrics scrape (counts every round)':<55} {took:8.1f} ms")
        the_month(client, server, key, server.now(), name)  # first: no day summarised yet
        print()
        for label, path, with_key in (
            ("/metrics (the rounds since the last scrape)", "/metrics", False),
            ("daily report, the last 30 days", "/v1/operator/reports/daily?tz=Europe/Malta", True),
            ("live RTP, every round", "/v1/operator/reports/rtp", True),
            ("live RTP, the last 7 days", "/v1/operator/reports/rtp?from=" + iso(server.now() - 7 * DAY_MS), True),
            ("rounds, newest 100", "/v1/operator/rounds/search", True),
            ("rounds of one player", "/v1/operator/rounds/search?player=p-17", True),
            ("rounds winning at least 10.00", "/v1/operator/rounds/search?min_win=10.00", True),
            ("players starting with p-12", "/v1/operator/players?q=p-12", True),
            ("one player's overview", "/v1/operator/players/p-17/overview", True),
        ):
            print(f"{label:<55} {timed(client, path, key if with_key else None):8.1f} ms")
        server.engine.dispose()
    finally:
        if args.keep:
            print(f"database kept: {name}")
        else:
            with psycopg.connect(ADMIN, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def the_month(client: TestClient, server, key: str, now: int, name: str) -> None:
    """The last month's reports read from the rounds (no day summarised; the report functions
    called directly, best of three), then through the API: the first call, which summarises the
    month's ended days, and the calls after it, read from the summaries (best of three); ratios."""
    since = now - 30 * DAY_MS
    zone = ZoneInfo("Europe/Malta")
    last = datetime.fromtimestamp(now / 1000, zone).date()
    first = last - timedelta(days=29)
    theory = reports.theory(server.games)
    month = [("daily report, the last 30 days", "/v1/operator/reports/daily?tz=Europe/Malta",
              lambda conn, operator: reports.daily(conn, operator, first, last, zone)),
             ("live RTP, the last 30 days", "/v1/operator/reports/rtp?from=" + iso(since),
              lambda conn, operator: [reports.live_rtp(conn, operator, since, None, theory, free=free)
                                      for free in (False, True)])]  # as the route: paid rounds, free ones
    with psycopg.connect(f"host=127.0.0.1 port=5432 user=postgres dbname={name}", autocommit=True) as db:
        rounds = db.execute("SELECT count(*) FROM rounds WHERE status = 'complete' AND finished_at >= %s",
                            (since,)).fetchone()[0]
        operator = db.execute("SELECT id FROM operators WHERE name = 'bench'").fetchone()[0]
    print(f"\nthe last month: {rounds:,} rounds")
    for label, path, read in month:
        from_rounds = best_of_three(lambda read=read: read_once(server, read, operator))
        started = time.perf_counter()
        assert client.get(path, headers={"X-Api-Key": key}).status_code == 200
        summarising = (time.perf_counter() - started) * 1000
        summarised = timed(client, path, key)
        print(f"{label:<32} from the rounds {from_rounds:8.1f} ms; first call (summarises) {summarising:8.1f} ms; "
              f"from the summaries {summarised:6.1f} ms ({from_rounds / summarised:.1f}x)")


def read_once(server, read, operator: int) -> None:
    with server.engine.connect() as conn:
        read(conn, operator)


def best_of_three(work) -> float:
    """The best of three runs of ``work``, in milliseconds."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


if __name__ == "__main__":
    main()
