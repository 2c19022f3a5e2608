"""A seamless round on the general path (a round of an autoplay plan, of a jackpot game, of a
game that carries state, or a fast path's rare case): its placeholder, which holds its debit's
rollback, committed before the debit is sent between the round's two transactions; a debit the
wallet declined voids the round. The money guarantees are
:mod:`slotforge.rgs.wallets.seamless.debits`'s."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from slotforge.rgs.money import to_minor
from slotforge.rgs.rounds import rules
from slotforge.rgs.rounds.claims import in_progress
from slotforge.rgs.store.general import lock_player
from slotforge.rgs.wallets.seamless.debits import DebitIntent

if TYPE_CHECKING:
    from slotforge.rgs.rounds.service import Auth, Server


def staked(server: Server, auth: Auth, key: str | None, game: str, stake: Decimal, autoplay_id: int | None,
           run: Callable[[DebitIntent | None], tuple[int, dict[str, Any]]]) -> tuple[int, dict[str, Any]]:
    """Run a request that takes a stake: ``run(debit)`` gets a seamless player's debit, sent
    before the round's transaction with its rollback held (see
    :mod:`slotforge.rgs.wallets.seamless.debits`); None for the internal wallet, and for a
    request answered already or still running."""
    if auth.wallet != "seamless" or not key or server.once.answered_or_running(auth.player_id, key):
        return run(None)
    with server.transaction() as conn:
        intent = hold_debit(server, conn, auth, key, game, to_minor(stake, "bet"), autoplay_id)
    if intent is None:  # a twin of this request was answered meanwhile, in another process
        return run(None)
    server.seamless.debits.track(intent)
    committed = False
    try:
        server.seamless.debits.send(intent)
        answer = run(intent)
        committed = True
        return answer
    finally:
        server.seamless.debits.settle(server.transaction, intent, committed)

def hold_debit(server: Server, conn: Connection, auth: Auth, key: str, game: str, stake: int,
               autoplay_id: int | None) -> DebitIntent | None:
    """In a transaction of its own (``conn``), before a seamless round's debit: refuse what
    would refuse the round, then write its placeholder, which holds its debit's rollback (to be
    tracked once committed); unless a twin of this request got there first in another server
    process: its debit in flight (409 ``REQUEST_IN_PROGRESS``), or its answer stored (None: the
    caller answers from it)."""
    player = lock_player(conn, auth.player_id)  # twins take turns here, whichever process they reach
    if server.store.recall(conn, auth.player_id, key) is not None:
        return None
    if server.store.pending_twin(conn, auth.player_id, key) is not None:
        raise in_progress()
    now = server.now()
    rules.refuse_open_round(server.store, conn, auth.player_id, game)
    rules.refuse_too_soon(player, auth.jurisdiction, now)
    if autoplay_id is not None:
        rules.refuse_stopped_autoplay(server.store, conn, auth.session_id, autoplay_id)
    rules.refuse_past_own_limits(conn, auth.jurisdiction, auth.fun, auth.player_id, auth.started_at, stake, now)
    balance = player["balance"]
    placeholder = dict(player_id=auth.player_id, session_id=auth.session_id, game=game, fun=False,
                       currency=auth.currency, jurisdiction=auth.jurisdiction_name, stake=stake, win=0,
                       jackpot_win=0, balance_before=balance, balance_after=balance, autoplay_id=autoplay_id,
                       started_at=now, finished_at=None, void_reason=None, status="pending", record="{}",
                       wallet_status="debit_pending", request_key=key)
    return server.seamless.debits.hold(conn, placeholder, game)
