"""The domain's refusals and the one table that answers them over HTTP: every refusal the
services raise has its row (status and code), the answer is built from that row, and the
OpenAPI document's error answers come from the same rows."""

from __future__ import annotations

import inspect
import json

import pytest

from slotforge.rgs import errors
from slotforge.rgs.api import answers
from slotforge.rgs.api.answers import BY_ERROR, REFUSALS, refusal_of
from slotforge.rgs.api.http import error_answer

REFUSAL_CLASSES = [kind for _, kind in inspect.getmembers(errors, inspect.isclass)
                   if issubclass(kind, errors.DomainError) and kind is not errors.DomainError]


@pytest.mark.parametrize("kind", REFUSAL_CLASSES, ids=lambda kind: kind.__name__)
def test_every_refusal_has_a_row_of_its_own(kind):
    assert BY_ERROR[kind].error is kind
    assert refusal_of(kind("why")) is BY_ERROR[kind]


def test_each_code_answers_with_one_status():
    statuses: dict[str, set[int]] = {}
    for refusal in REFUSALS:
        statuses.setdefault(refusal.code, set()).add(refusal.status)
    # a body over 64 KB is VALIDATION with 413, every other VALIDATION 422
    assert {code: found for code, found in statuses.items() if len(found) > 1} == {"VALIDATION": {413, 422}}


def test_an_answer_is_built_from_the_refusals_row():
    answer = error_answer(errors.TooSoon("rounds must be at least 2500 ms apart", retry_after_s=2))
    assert answer.status_code == 429 and answer.headers["Retry-After"] == "2"
    assert json.loads(answer.body) == {"error": "MIN_ROUND_DURATION", "message": "rounds must be at least 2500 ms apart"}

    answer = error_answer(errors.InsufficientFunds("balance 1.00 is below the stake 2.00", balance="1.00"))
    assert answer.status_code == 402 and "Retry-After" not in answer.headers
    assert json.loads(answer.body) == {"error": "INSUFFICIENT_FUNDS", "message": "balance 1.00 is below the stake 2.00",
                                       "balance": "1.00"}

    answer = error_answer(errors.invalid("bet.lines", "bet.lines: expected 1 to 20", errors.InvalidBet))
    assert answer.status_code == 422
    assert json.loads(answer.body)["field"] == "bet.lines" and json.loads(answer.body)["error"] == "INVALID_BET"


def test_a_routes_declared_errors_are_the_tables_rows():
    """``/openapi.json`` names each error answer's codes from the rows a route declares."""
    declared = answers.PLAY_ROUND
    for refusal in (answers.INSUFFICIENT_FUNDS, answers.ROUND_IN_PROGRESS, answers.MIN_ROUND_DURATION):
        assert f"`{refusal.code}`: {refusal.when}" in declared[refusal.status]["description"]
