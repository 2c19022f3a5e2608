"""The books' audit: every player's balance is the sum of their ledger, every round's money is
in the ledger exactly once, every jackpot pool balances.

    deposits - withdrawals - stakes + wins + refunds == balance      (every player)
    seeds + contributions == paid + current + reserve                (every pool)
"""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import Connection, func, select

from slotforge.jackpot import PoolState
from slotforge.rgs.schema import jackpot_entries, jackpot_pools, ledger, players, rounds
from slotforge.rgs.wallet import ledger_sum


def audit(conn: Connection) -> list[str]:
    """Every difference found, one line each (empty when the books balance)."""
    return [*check_players(conn), *check_rounds(conn), *check_pools(conn)]


def check_players(conn: Connection) -> list[str]:
    sums = ledger_sum(conn)
    problems = []
    for player_id, balance in conn.execute(select(players.c.id, players.c.balance)):
        if balance < 0:
            problems.append(f"player {player_id}: balance {balance} is negative")
        if sums.get(player_id, 0) != balance:
            problems.append(f"player {player_id}: balance {balance} but the ledger sums to {sums.get(player_id, 0)}")
    return problems


def check_rounds(conn: Connection) -> list[str]:
    """Each round's stake, win and refund appear in the ledger once, matching the round."""
    entries: dict[tuple[int, str], tuple[int, int]] = {}
    query = select(ledger.c.round_id, ledger.c.kind, func.count(), func.sum(ledger.c.amount)).where(
        ledger.c.round_id.is_not(None)).group_by(ledger.c.round_id, ledger.c.kind)
    for round_id, kind, count, total in conn.execute(query):
        entries[(round_id, kind)] = (int(count), int(total))
    problems = []
    for row in conn.execute(select(rounds.c.id, rounds.c.status, rounds.c.stake, rounds.c.win)).mappings():
        expected = {"stake": row["stake"]}
        if row["status"] == "complete":
            expected["win"] = row["win"]
        elif row["status"] == "void":
            expected["refund"] = row["stake"]
        elif row["status"] != "awaiting":
            problems.append(f"round {row['id']}: status {row['status']!r} is not awaiting, complete or void")
        for kind in ("stake", "win", "refund"):
            count, total = entries.get((row["id"], kind), (0, 0))
            want = expected.get(kind, 0)
            if total != want or count > 1:
                problems.append(f"round {row['id']}: {kind} {want} expected, the ledger has {total} in {count} entries")
    return problems


def check_pools(conn: Connection) -> list[str]:
    problems = []
    for row in conn.execute(select(jackpot_pools)).mappings():
        state = PoolState(*(Decimal(row[name]) for name in ("current", "reserve", "contributed", "seeded", "paid")),
                          wins=row["wins"])
        if not state.balances():
            problems.append(f"pool {row['name']}: seeds {state.seeded} + contributions {state.contributed} != paid "
                            f"{state.paid} + current {state.current} + reserve {state.reserve}")
        for kind, books in (("contribution", state.contributed), ("claim", state.paid)):
            amounts = conn.execute(select(jackpot_entries.c.amount).where(
                jackpot_entries.c.pool == row["name"], jackpot_entries.c.kind == kind)).scalars()
            recorded = sum((Decimal(a) for a in amounts), Decimal(0))
            if recorded != books:
                problems.append(f"pool {row['name']}: {kind}s recorded {recorded}, the pool's books say {books}")
    return problems


def summary(conn: Connection) -> dict[str, int]:
    """What was audited."""
    count = lambda table: conn.execute(select(func.count()).select_from(table)).scalar_one()  # noqa: E731
    return {"players": count(players), "rounds": count(rounds), "ledger entries": count(ledger),
            "jackpot pools": count(jackpot_pools)}
