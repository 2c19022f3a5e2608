"""The Mega jackpot pool: exact money, exact splits, balanced books, claims locked to a round."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotforge.jackpot import ClaimLocked, InMemoryPool, JackpotError, JackpotPool, PoolConfig, settle, split

# Stakes as a casino takes them: whole cents from 0.01 to 100,000.00.
stakes = st.integers(min_value=1, max_value=10_000_000).map(lambda cents: Decimal(cents) / 100)
# A sequence of bets, each possibly winning the jackpot.
plays = st.lists(st.tuples(stakes, st.booleans()), min_size=1, max_size=60)


def all_decimal(state) -> bool:
    return all(isinstance(getattr(state, f), Decimal) for f in ("current", "reserve", "contributed", "seeded", "paid"))


@given(stakes)
def test_a_contribution_is_exactly_3_7_percent_split_80_20(stake):
    amount, to_current, to_reserve = split(stake, PoolConfig())
    assert amount == stake * Decimal("0.037")
    assert to_current + to_reserve == amount
    assert to_reserve == amount * Decimal("0.2")
    assert to_current == amount * Decimal("0.8")
    assert all(isinstance(x, Decimal) for x in (amount, to_current, to_reserve))


@settings(max_examples=150)
@given(plays)
def test_the_books_always_balance_and_never_hold_a_float(sequence):
    pool = InMemoryPool()
    contributed = Decimal(0)
    for n, (stake, wins) in enumerate(sequence):
        made = pool.contribute(f"r{n}", stake)
        contributed += made.amount
        if wins:
            claim = pool.claim(f"r{n}")
            assert claim.amount == claim.amount.quantize(Decimal("0.01"))
            assert claim.amount >= Decimal("10000")
        state = pool.state()
        assert state.balances()
        assert all_decimal(state)
        assert state.contributed == contributed
    assert pool.state().seeded == Decimal(10000) * (1 + pool.state().wins)


@given(st.lists(stakes, min_size=1, max_size=40))
def test_a_win_pays_seed_plus_80_percent_and_the_next_starts_from_the_reserve(bets):
    pool = InMemoryPool()
    for n, stake in enumerate(bets):
        pool.contribute(f"r{n}", stake)
    total = sum(stake * Decimal("0.037") for stake in bets)
    claim = pool.claim("winner")
    exact_current = Decimal(10000) + total * Decimal("0.8")
    assert claim.amount + claim.left_over == exact_current
    assert claim.left_over < Decimal("0.01")
    assert pool.state().current == Decimal(10000) + total * Decimal("0.2") + claim.left_over
    assert pool.state().reserve == 0


def test_retried_calls_are_not_counted_twice():
    pool = InMemoryPool()
    first = pool.contribute("r1", Decimal("2.00"))
    assert pool.contribute("r1", Decimal("2.00")) == first
    claim = pool.claim("r1")
    assert pool.claim("r1") == claim
    assert pool.state().wins == 1


def test_a_locked_claim_belongs_to_its_round():
    pool = InMemoryPool()
    assert pool.lock_claim("r1") == Decimal("10000.00")
    with pytest.raises(ClaimLocked):
        pool.claim("r2")
    pool.release_claim("r1")
    assert pool.claim("r2").amount == Decimal("10000.00")


def test_concurrent_contributions_are_all_counted():
    pool = InMemoryPool()

    def bets(worker: int) -> None:
        for n in range(500):
            pool.contribute(f"w{worker}-{n}", Decimal("1.00"))

    threads = [threading.Thread(target=bets, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    state = pool.state()
    assert state.contributed == Decimal("0.037") * 4000
    assert state.balances()


def test_floats_and_bad_stakes_are_refused():
    pool = InMemoryPool()
    for bad in (1.0, Decimal("-1"), Decimal("0"), Decimal("NaN")):
        with pytest.raises(JackpotError):
            pool.contribute("r", bad)  # type: ignore[arg-type]
    with pytest.raises(JackpotError):
        PoolConfig(contribution=0.037)  # type: ignore[arg-type]


def test_fun_play_neither_contributes_nor_claims():
    pool = InMemoryPool()
    assert settle(pool, "r1", Decimal("1.00"), won=False, fun_play=True).payout == 0
    assert pool.state().contributed == 0
    with pytest.raises(ValueError):
        settle(pool, "r2", Decimal("1.00"), won=True, fun_play=True)


def test_settle_contributes_and_claims():
    pool = InMemoryPool()
    settled = settle(pool, "r1", Decimal("100.00"), won=True)
    assert settled.contribution.amount == Decimal("3.700")
    assert settled.payout == Decimal("10002.96")
    assert isinstance(pool, JackpotPool)
