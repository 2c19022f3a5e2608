"""Claims held by a game server that will not come back: listed with `slotforge jackpot claims`
and settled by hand with `slotforge jackpot settle`, the books balancing after each step."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from typer.testing import CliRunner

from slotforge.cli import app
from slotforge.db import connect
from slotforge.jackpot.books import Books
from slotforge.jackpot.books import audit as audit_books
from slotforge.jackpot.pool import PoolConfig

POOL = "divine-fortune"
runner = CliRunner()


@pytest.fixture
def books(tmp_path):
    """A service's books with contributions and two claims held by a vanished server."""
    url = f"sqlite:///{tmp_path / 'jackpot.db'}"
    books = Books(connect(url), time.time)
    books.ensure(POOL, PoolConfig())
    for n in range(3):
        books.contribute(POOL, f"gone:{n}", Decimal("50.00"), "EUR", Decimal(1))
    books.claim(POOL, "gone:10", "EUR", Decimal(1))
    books.contribute(POOL, "gone:11", Decimal("80.00"), "EUR", Decimal(1))
    books.claim(POOL, "gone:12", "EUR", Decimal(1))
    books.contribute(POOL, "alive:1", Decimal("20.00"), "EUR", Decimal(1))
    books.url = url
    yield books
    books.engine.dispose()


def jackpot(books: Books, *args: str):
    return runner.invoke(app, ["jackpot", *args, "--database", books.url])


def state(books: Books):
    with books.engine.connect() as conn:
        assert audit_books(conn) == []
        return books.state(conn, POOL), {e["key"]: e for e in books.entries(conn, kind="claim")}


def test_the_held_claims_are_listed_with_their_key_status_and_payout(books):
    _, claims = state(books)
    listed = jackpot(books, "claims", "--status", "held")
    assert listed.exit_code == 0, listed.output
    for key in ("gone:10", "gone:12"):
        assert key in listed.output and claims[key]["amount"] in listed.output
    assert "2 claims" in listed.output
    assert "2 claims" in jackpot(books, "claims", "--server", "gone").output
    assert "0 claims" in jackpot(books, "claims", "--server", "alive").output
    refused = jackpot(books, "claims", "--status", "pending")
    assert refused.exit_code == 2 and "'held', 'confirmed', 'released'" in refused.output


def test_a_released_claim_pays_back_into_the_pot_and_the_books_balance(books):
    before, claims = state(books)
    settled = jackpot(books, "settle", "gone:10", "--as", "released")
    assert settled.exit_code == 0, settled.output
    after, claims_after = state(books)
    paid_back = Decimal(claims["gone:10"]["amount"])
    assert after.current == before.current + paid_back
    assert after.paid == before.paid - paid_back and after.wins == before.wins - 1
    assert claims_after["gone:10"]["status"] == "released" and claims_after["gone:12"]["status"] == "held"
    again = jackpot(books, "settle", "gone:10", "--as", "released")  # idempotent: nothing paid back twice
    assert again.exit_code == 0 and state(books)[0] == after


def test_a_confirmed_claim_is_final_and_cannot_then_be_released(books):
    before, _ = state(books)
    assert jackpot(books, "settle", "gone:12", "--as", "confirmed").exit_code == 0
    after, claims = state(books)
    assert claims["gone:12"]["status"] == "confirmed" and after == before
    refused = jackpot(books, "settle", "gone:12", "--as", "released")
    assert refused.exit_code == 2 and "is confirmed; it cannot be released" in refused.output
    assert state(books)[0] == before


def test_an_unknown_key_is_refused_naming_the_argument(books):
    refused = jackpot(books, "settle", "gone:99", "--as", "released")
    assert refused.exit_code == 2 and "KEY: no claim 'gone:99'" in refused.output
