"""The books' audit: every player's balance is the sum of their ledger, every round's money is
in the ledger exactly once, every jackpot pool balances.

    deposits - withdrawals - stakes + wins + refunds - reversals + promo - promo_back == balance
                                                                       (every internal-wallet player)
    seeds + contributions == paid + current + reserve                (every pool)

A seamless player's money lives in the operator's wallet: their balance here is only the last one
the wallet reported, so it is not checked against the ledger. Their rounds are (stake, win and
refund once each, like every round's), and so is what the wallet is owed: every completed round's
credit and every void round's rollback is acknowledged or still in the outbox. Whether the
wallet's books agree is the reconciliation of the two sides (docs/wallet.md).

A free round's stake is the operator's promotional money: its ledger holds a ``promo`` credit
of the stake beside the ``stake`` debit (and, if void, the ``refund`` and a ``promo_back``), so
the player's balance is still the ledger's sum and every round's stake is booked once.

With a jackpot service, :func:`check_service` also has the service audit its own books and
matches them against this server's: every contribution the outbox delivered is recorded there
with the same stake and rate, and every round that won a jackpot has its claim there, confirmed
(or its confirm still queued), paying what the round paid.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, func, select

from slotforge.jackpot import PoolState
from slotforge.rgs.money import to_minor
from slotforge.rgs.rounds.void import reversed_in_record
from slotforge.rgs.schema import jackpot_entries, jackpot_pools, ledger, outbox, players, rounds
from slotforge.rgs.wallets.internal import ledger_sum
from slotforge.rgs.wallets.seamless.credits import TARGET
from slotforge.rgs.wallets.seamless.debits import owed as wallet_owed


def audit(conn: Connection) -> list[str]:
    """Every difference found, one line each (empty when the books balance)."""
    return [*check_players(conn), *check_rounds(conn), *check_wallet_owed(conn), *check_pools(conn)]


def check_players(conn: Connection) -> list[str]:
    sums = ledger_sum(conn)
    problems = []
    for player_id, balance in conn.execute(select(players.c.id, players.c.balance).where(
            players.c.wallet != "seamless")):
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
    columns = (rounds.c.id, rounds.c.status, rounds.c.stake, rounds.c.win, rounds.c.record, rounds.c.free_grant_id)
    for row in conn.execute(select(*columns)).mappings():
        expected = {"stake": row["stake"]}
        if row["free_grant_id"] is not None:  # its stake is the operator's promotional money, returned if void
            expected.update(promo=row["stake"], **({"promo_back": row["stake"]} if row["status"] == "void" else {}))
        if row["status"] == "pending":  # a seamless round waiting for its debit: nothing recorded yet
            expected = {}
        elif row["status"] == "complete":
            expected["win"] = row["win"]
        elif row["status"] == "void":
            expected["refund"] = row["stake"]
            expected.update(void_expected(row, problems))
        elif row["status"] != "awaiting":
            problems.append(f"round {row['id']}: status {row['status']!r} is not awaiting, complete, void or "
                            "pending")
        for kind in ("stake", "win", "refund", "reversal", "promo", "promo_back"):
            count, total = entries.get((row["id"], kind), (0, 0))
            want = expected.get(kind, 0)
            if total != want or count > 1:
                problems.append(f"round {row['id']}: {kind} {want} expected, the ledger has {total} in {count} entries")
    return problems


def void_expected(row: Any, problems: list[str]) -> dict[str, int]:
    """What a void round's ledger holds besides its stake and refund: nothing for a round voided
    open; for one voided after it completed, its win and the reversal its record states, which
    with what could not be reversed makes the whole win."""
    stated = reversed_in_record(row["record"])
    if stated is None:
        return {}
    taken, left = stated
    if taken < 0 or left < 0 or taken + left != row["win"]:
        problems.append(f"round {row['id']}: void after completion reverses {taken} and reports {left} not reversed, "
                        f"which is not its win {row['win']}")
    return {"win": row["win"], "reversal": taken}


def check_wallet_owed(conn: Connection) -> list[str]:
    """Each seamless round's credit (complete) or rollback (void, or pending: a debit whose round
    has not committed) is in the outbox, once; or, for a pending round, held by the round itself
    until it falls due (``wallet_status`` ``debit_pending``)."""
    owed = {key: kind for kind, key in conn.execute(select(outbox.c.kind, outbox.c.key).where(
        outbox.c.target == TARGET))}
    problems = []
    query = select(rounds.c.id, rounds.c.status, rounds.c.wallet_tx, rounds.c.wallet_status,
                   rounds.c.free_grant_id).where(rounds.c.wallet_tx.is_not(None))
    for round_id, status, debit, wallet_status, free_grant in conn.execute(query):
        if status == "pending" and wallet_status == "debit_pending":  # its rollback held by the round
            continue
        if free_grant is not None and status != "complete":  # a free round: no debit to roll back
            continue
        key, kind = {"complete": (f"{debit}-win", "credit"), "void": (debit, "rollback"),
                     "pending": (debit, "rollback")}.get(status, (None, None))
        if key is not None and owed.get(key) != kind:
            problems.append(f"round {round_id}: {status}, but its {kind} {key} is owed to nobody: not in the outbox")
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
            "jackpot pools": count(jackpot_pools), "wallet calls not yet acknowledged": wallet_owed(conn)}


def check_service(conn: Connection, url: str, server_id: str, secret: str | None = None) -> list[str]:
    """The jackpot service's books, and this server's entries matched against them."""
    import httpx

    from slotforge.jackpot.service import bearer
    from slotforge.rgs.jackpots.networked import TARGET as JACKPOT
    from slotforge.rgs.jackpots.networked import confirm_key

    try:
        with httpx.Client(base_url=url, timeout=30, headers=bearer(secret)) as client:
            books = client.get("/v1/audit").raise_for_status().json()
            theirs = {(e["kind"], e["key"]): e for e in
                      client.get("/v1/entries", params={"server": server_id}).raise_for_status().json()["entries"]}
    except httpx.HTTPStatusError as error:
        status = error.response.status_code
        why = ("it refused this audit (401): give it its secret (SLOTFORGE_JACKPOT_SECRET, or jackpot_secret in "
               "the file --config names)" if status == 401 else f"{status} {error.response.text[:200]}")
        return [f"jackpot service at {url}: cannot be audited: {why}"]
    except (httpx.HTTPError, ValueError, KeyError) as error:
        return [f"jackpot service at {url}: cannot be audited: {error}"]
    problems = [f"jackpot service: {problem}" for problem in books["problems"]]
    ours = {(m["kind"], m["key"]): m for m in conn.execute(select(outbox).where(outbox.c.target == JACKPOT)).mappings()}
    for (kind, key), message in ours.items():
        payload = json.loads(message["payload"])
        if kind == "contribution" and message["delivered_at"] is not None:
            entry = theirs.get(("contribution", key))
            if entry is None or (entry["stake"], entry["rate"]) != (payload["stake"], payload["rate"]):
                problems.append(f"contribution {key}: delivered as {payload['stake']} at {payload['rate']}, the "
                                f"service has {entry and (entry['stake'], entry['rate'])}")
        elif kind == "confirm":
            entry = theirs.get(("claim", payload["key"]))
            wanted = "confirmed" if message["delivered_at"] is not None else ("held", "confirmed")
            if entry is None or entry["status"] not in wanted or entry["payout"] != payload["payout"]:
                problems.append(f"claim {payload['key']}: paid {payload['payout']} by the round, the service has "
                                f"{entry and (entry['status'], entry['payout'])}")
    for round_id, paid, currency in conn.execute(select(rounds.c.id, rounds.c.jackpot_win, rounds.c.currency).where(
            rounds.c.jackpot_win > 0)):
        message = ours.get(("confirm", confirm_key(f"{server_id}:{round_id}")))
        if message is None or to_minor(Decimal(json.loads(message["payload"])["payout"])) != paid:
            problems.append(f"round {round_id}: jackpot {paid} {currency} with no matching claim at the service")
    for (kind, key), entry in theirs.items():
        if kind == "claim" and entry["status"] == "confirmed" and ("confirm", confirm_key(key)) not in ours:
            problems.append(f"claim {key}: confirmed at the service, unknown here")
    return problems
