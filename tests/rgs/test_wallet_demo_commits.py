"""The reference wallet's books: calls that arrive together share one commit, each in a savepoint
of its own, and each is answered only once that commit is done."""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from slotforge.rgs.wallets.demo import Books


def call(transaction_id: str, player: str = "p", amount: int = 100, currency: str = "EUR") -> dict:
    return {"transaction_id": transaction_id, "round_id": 1, "player_id": player, "amount": amount,
            "currency": currency, "game": "dynasty"}


def together(books: Books, calls: list[tuple[str, dict]]) -> list:
    """The calls applied at once, on an event loop of their own (outcome or exception, in order)."""
    async def main() -> list:
        return await asyncio.gather(*(books.apply(kind, body) for kind, body in calls), return_exceptions=True)

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, main()).result()


@pytest.fixture
def books(tmp_path) -> Books:
    books = Books(tmp_path / "wallet.db")
    books.deposit("p", "EUR", 10_000)
    books.deposit("q", "USD", 50)
    return books


def committed_rows(books: Books) -> tuple[int, int]:
    """What another connection sees: the transactions' rows and p's balance."""
    with sqlite3.connect(books.path) as reader:
        rows = reader.execute("SELECT count(*) FROM transactions WHERE kind != 'deposit'").fetchone()[0]
        balance = reader.execute("SELECT balance FROM players WHERE id = 'p'").fetchone()[0]
    return rows, balance


def test_calls_arriving_together_share_one_commit_and_each_is_applied_once(books):
    commits = []
    books.db.set_trace_callback(lambda statement: commits.append(statement) if statement == "COMMIT" else None)

    outcomes = together(books, [("debit", call(f"d{n}")) for n in range(10)] + [("credit", call("c0", amount=7))])

    assert [status for status, _ in outcomes] == [200] * 11
    assert len(commits) == 1
    assert committed_rows(books) == (11, 10_000 - 10 * 100 + 7)
    # A repeat of every call, together again: answered from what is stored, nothing moved twice.
    repeats = together(books, [("debit", call(f"d{n}")) for n in range(10)])
    assert [answer for _, answer in repeats] == [answer for _, answer in outcomes[:10]]
    assert committed_rows(books) == (11, 10_000 - 10 * 100 + 7)


def test_a_refused_or_failing_call_keeps_nothing_of_its_own_and_takes_nothing_from_the_others(books, monkeypatch):
    moved = books._move

    def failing_on_boom(kind: str, body: dict):
        if body["transaction_id"] == "boom":
            moved(kind, {**body, "transaction_id": "half-of-boom"})  # written, then the call fails
            raise RuntimeError("the disk is on fire")
        return moved(kind, body)

    monkeypatch.setattr(books, "_move", failing_on_boom)
    outcomes = together(books, [
        ("debit", call("a")),
        ("debit", call("mismatch", player="q", currency="EUR")),  # q plays in USD: refused
        ("debit", call("boom")),
        ("debit", call("poor", player="q", amount=10_000, currency="USD")),  # refused, and recorded as refused
        ("credit", call("b", amount=30)),
    ])

    assert outcomes[0] == (200, {"balance": "99.00"})
    assert outcomes[1][0] == 409 and outcomes[1][1]["error"] == "CURRENCY_MISMATCH"
    assert isinstance(outcomes[2], RuntimeError)
    assert outcomes[3] == (402, {"error": "INSUFFICIENT_FUNDS", "balance": "0.50"})
    assert outcomes[4] == (200, {"balance": "99.30"})
    with sqlite3.connect(books.path) as reader:
        kept = {row[0] for row in reader.execute("SELECT id FROM transactions WHERE kind != 'deposit'")}
    assert kept == {"a", "poor", "b"}
    assert committed_rows(books) == (3, 10_000 - 100 + 30)
