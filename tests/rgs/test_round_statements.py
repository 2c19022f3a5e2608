"""A round of the internal wallet costs at most five SQL statements and one commit on SQLite, and
one statement on PostgreSQL (a call of a function that does the whole transaction, in autocommit:
no ``BEGIN`` or ``COMMIT`` is sent): every statement the server sends while it plays the round is
counted (transaction control aside), so a statement added to the round's path fails here."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import event, select
from sqlalchemy.engine.default import CACHE_HIT

from slotforge.rgs.schema import idempotency, ledger

from .conftest import losing_screen
from .statements import Counter

MOST_STATEMENTS = {"sqlite": 5, "postgresql": 1}
COMMITS = {"sqlite": 1, "postgresql": 0}  # PostgreSQL's call commits itself, no COMMIT of its own


@pytest.fixture
def api(make_api):
    return make_api(jurisdictions={"nogamble": {"gamble": False}})


def counted(api, action):
    counter = Counter(api.client.app.state.server)
    counter.counting = True
    try:
        answer = action()
    finally:
        counter.counting = False
    return answer, counter


def test_a_round_of_the_internal_wallet_is_five_statements_and_one_commit_or_one_call(api):
    player = api.player("10.00", jurisdiction="nogamble")
    first = player.play()  # the first request of a session reads the session; the next use it as read
    assert first.status_code == 200, first.text

    answer, counter = counted(api, player.play)

    assert answer.status_code == 200, answer.text
    played = answer.json()
    backend = api.client.app.state.server.engine.dialect.name
    assert len(counter.statements) <= MOST_STATEMENTS[backend], counter.statements
    assert counter.commits == COMMITS[backend]
    # ... and the round is all there: its balance, its ledger entries, its stored answer.
    stake, win = Decimal(played["round"]["total_bet"]), Decimal(played["round"]["total_win"])
    assert Decimal(played["balance"]) == Decimal(first.json()["balance"]) - stake + win
    assert player.get("/v1/session").json()["balance"] == played["balance"]
    with api.client.app.state.server.engine.connect() as conn:
        entries = conn.execute(select(ledger.c.kind, ledger.c.amount).where(
            ledger.c.round_id == played["round"]["id"])).all()
        stored = conn.execute(select(idempotency.c.round_id, idempotency.c.body).where(
            idempotency.c.round_id == played["round"]["id"])).one()
    assert sorted(entries) == sorted([("stake", int(stake * 100))] + ([("win", int(win * 100))] if win else []))
    assert stored == (played["round"]["id"], None)  # a pointer to the round, not a second copy


def test_a_retry_gets_the_original_answer_from_the_round_and_plays_nothing(api):
    player = api.player("10.00", jurisdiction="nogamble")
    first = player.play(key="the-key")
    again = player.play(key="the-key")
    assert again.status_code == 200 and again.json() == first.json()
    assert player.get("/v1/session").json()["balance"] == first.json()["balance"]
    reused = player.play(game="dynasty", bet={"lines": 10}, key="the-key")
    assert reused.status_code == 422 and reused.json()["error"] == "IDEMPOTENCY_KEY_REUSED"


def test_refusals_of_the_straight_round_take_nothing(make_api, games):
    api = make_api(qa=True, fun_balance="1.00")
    player = api.fun_player()
    screen = losing_screen(games["dynasty"])
    balance = Decimal(player.get("/v1/session").json()["balance"])
    stakes = int(balance / Decimal("0.20"))
    for _ in range(stakes):
        assert player.play(script={"screens": [screen]}).status_code == 200
    broke = player.play(script={"screens": [screen]})
    assert broke.status_code == 402 and broke.json() == {**broke.json(), "error": "INSUFFICIENT_FUNDS",
                                                         "balance": "0.00"}
    assert player.get("/v1/session").json()["balance"] == "0.00"


def test_no_statement_of_a_round_is_compiled_again(api):
    """Building a statement costs more CPU than running it: after a first round of each kind (a
    loss, a win), every statement of the next rounds comes from SQLAlchemy's compiled cache."""
    player = api.player("10.00", jurisdiction="nogamble")
    for _ in range(6):  # losses and wins: the ledger's one entry and two
        assert player.play().status_code == 200
    misses: list[str] = []

    def looked_up(_conn, _cursor, statement, _parameters, context, _many) -> None:
        if context.compiled is not None and context.cache_hit is not CACHE_HIT:
            misses.append(f"{context.cache_hit}: {statement[:80]}")

    engine = api.client.app.state.server.engine
    event.listen(engine, "before_cursor_execute", looked_up)
    try:
        for _ in range(6):
            assert player.play().status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", looked_up)
    assert misses == []
