"""The conformance suite: the same scenarios, through the server's HTTP API, on each database
(SQLite, PostgreSQL) with each wallet (the server's own, and a seamless one: ``slotforge
wallet-demo`` as a real process). After each, the books balance (``slotforge.rgs.audit``; with the
seamless wallet, both sides' books agree transaction by transaction)."""

from __future__ import annotations

import secrets
import threading
import time
from decimal import Decimal

import pytest

from .conformance import BOOKS, GAMBLE, awaiting_round, completed_win, open_book, played
from .wallets import WalletProcess

STAKE = Decimal("0.20")  # Dynasty's default bet


@pytest.fixture(scope="module")
def wallet(tmp_path_factory):
    process = WalletProcess(tmp_path_factory.mktemp("wallet"), "--hang-s", "0.6").start()
    yield process
    process.kill()


@pytest.fixture(params=BOOKS)
def book(request, tmp_path, games, wallet):
    yield from open_book(request.param, tmp_path, games, wallet)


@pytest.fixture(params=[name for name in BOOKS if name.endswith("seamless")])
def seamless_book(request, tmp_path, games, wallet):
    yield from open_book(request.param, tmp_path, games, wallet)


def test_the_stake_is_taken_and_the_win_paid(book):
    player = book.player("10.00")
    before = book.balance(player)
    for _ in range(5):
        round_ = played(player.play())
        assert round_["status"] == "complete" and Decimal(round_["total_bet"]) == STAKE
        after = book.balance(player)
        assert after == before - STAKE + Decimal(round_["total_win"])
        before = after
    book.balances()


def test_a_stake_above_the_balance_is_refused_and_nothing_taken(book):
    player = book.player("0.10")
    refused = player.play()
    assert refused.status_code == 402, refused.text
    assert refused.json()["error"] == "INSUFFICIENT_FUNDS"
    assert book.balance(player) == Decimal("0.10")
    book.balances()


def test_a_round_awaiting_a_decision_refuses_a_second_round_of_the_game(book):
    player = book.player("20.00", jurisdiction=GAMBLE)
    waiting = awaiting_round(player)
    second = player.play()
    assert second.status_code == 409, second.text
    assert second.json()["error"] == "ROUND_IN_PROGRESS" and second.json()["round"] == waiting["id"]
    before = book.balance(player)
    collected = player.finish(player.post(f"/v1/rounds/{waiting['id']}/decisions",
                                          {"choice": waiting["awaiting"]["options"][0]}))["round"]
    assert collected["status"] == "complete"
    assert book.balance(player) == before + Decimal(collected["total_win"])
    assert player.finish(player.play())["round"]["id"] > waiting["id"]  # the game is free again
    book.balances()


def test_twin_requests_answer_once_and_move_the_money_once(book):
    player = book.player("10.00")
    before = book.balance(player)
    key = secrets.token_hex(8)
    first = player.play(key=key)
    again = player.play(key=key)
    assert again.status_code == first.status_code == 200 and as_first(again.json()) == as_first(first.json())
    round_ = first.json()["round"]
    assert book.balance(player) == before - STAKE + Decimal(round_["total_win"])
    other = player.play(bet={"lines": 5}, key=key)
    reused = book.documented_status("IDEMPOTENCY_KEY_REUSED")
    assert other.status_code == reused and other.json()["error"] == "IDEMPOTENCY_KEY_REUSED", other.text
    assert book.balance(player) == before - STAKE + Decimal(round_["total_win"])
    book.balances()


def as_first(answer: dict) -> dict:
    """A round's answer but for where a seamless round stands with the wallet, which a repeat
    answers as it stands now (the win's credit acknowledged meanwhile)."""
    wallet = answer["round"].get("wallet")
    return {**answer, "round": {**answer["round"], **({"wallet": {**wallet, "status": None}} if wallet else {})}}


def test_twins_in_flight_play_one_round(book):
    """Twins sent at once: one round is played; each twin answers it or says it is in flight."""
    player = book.player("10.00")
    before = book.balance(player)
    key, answers, start = secrets.token_hex(8), [], threading.Barrier(6)

    def send() -> None:
        start.wait()
        answers.append(player.play(key=key))

    twins = [threading.Thread(target=send) for _ in range(6)]
    for twin in twins:
        twin.start()
    for twin in twins:
        twin.join()
    in_flight = book.documented_status("REQUEST_IN_PROGRESS")
    bodies = [answer.json() for answer in answers if answer.status_code == 200]
    assert bodies and all(as_first(body) == as_first(bodies[0]) for body in bodies)
    assert all(answer.status_code == 200 or (answer.status_code == in_flight and
                                             answer.json()["error"] == "REQUEST_IN_PROGRESS") for answer in answers)
    history = player.get("/v1/rounds").json()["rounds"]
    assert [r["id"] for r in history] == [bodies[0]["round"]["id"]]
    assert book.balance(player) == before - STAKE + Decimal(bodies[0]["round"]["total_win"])
    book.balances()


def test_voiding_an_open_round_refunds_its_stake(book):
    player = book.player("20.00", jurisdiction=GAMBLE)
    waiting = awaiting_round(player)
    before = book.balance(player)
    voided = book.api.operator("POST", f"/v1/operator/rounds/{waiting['id']}/void", json={"reason": "fault"})
    assert voided.status_code == 200, voided.text
    assert voided.json()["round"]["status"] == "void" and voided.json()["refunded"] is True
    assert book.balance(player) == before + STAKE
    book.balances()


def test_voiding_a_completed_round_reverses_it_where_the_money_is_the_servers(book):
    player = book.player("20.00")
    won = completed_win(player)
    before = book.balance(player)
    voided = book.api.operator("POST", f"/v1/operator/rounds/{won['id']}/void", json={"reason": "fault"})
    if book.wallet is None:  # the stake back, the win taken back
        assert voided.status_code == 200, voided.text
        assert book.balance(player) == before + STAKE - Decimal(won["total_win"])
    else:  # a paid win is in the operator's wallet: refused, nothing moved
        assert voided.status_code == 422 and voided.json()["field"] == "round", voided.text
        assert book.balance(player) == before
    book.balances()


def test_a_declined_debit_voids_the_round_and_takes_nothing(seamless_book):
    player = seamless_book.player("0.10")
    refused = player.play()
    assert refused.status_code == 402 and refused.json()["error"] == "INSUFFICIENT_FUNDS", refused.text
    assert seamless_book.balance(player) == Decimal("0.10")
    stored = player.get(f"/v1/rounds/{refused.json()['round']}").json()["round"]
    assert stored["status"] == "void" and stored["wallet"]["status"] == "rolled_back"
    seamless_book.balances()


@pytest.mark.parametrize("fault", ["timeout", "late"])
def test_a_debit_timed_out_or_answered_late_is_rolled_back(seamless_book, fault):
    """timeout: the debit hangs past the server's time-out, applying nothing; late: the wallet
    applies it but its answer comes too late. Either way the round is void and rolled back."""
    player = seamless_book.player("10.00")
    seamless_book.wallet.faults(**{fault: 1.0, "hang_s": 0.6})
    refused = player.play()
    assert refused.status_code == 503 and refused.json()["error"] == "WALLET_UNAVAILABLE", refused.text
    seamless_book.wallet.faults()
    time.sleep(0.7)  # the hung calls end (a late one applies its debit)
    assert seamless_book.balance(player) == Decimal("10.00")
    stored = player.get(f"/v1/rounds/{refused.json()['round']}").json()["round"]
    assert stored["status"] == "void" and stored["wallet"]["status"] == "rolled_back"
    assert played(player.play())["status"] == "complete"
    seamless_book.balances()
