"""A round of an operator's own wallet (seamless), on the event loop: no thread of its own.

The money guarantees are those of :mod:`slotforge.rgs.wallets.seamless` (the debit's rollback
held before the debit is sent, cancelled in the round's transaction); this module only moves the
waiting off threads. For a round of the plain kind (:func:`~slotforge.rgs.rounds.straight.plain`),
:func:`play_at_wallet`:

1. commits the round's placeholder and its debit's held rollback (:meth:`Server.hold_debit`,
   which first refuses what would refuse the round), as a write job of the process's writer:
   on SQLite in a shared commit of its batched writes;
2. sends the debit on the wallets' call loop (:class:`~slotforge.rgs.wallets.seamless.CallLoop`)
   and awaits it, holding no thread and no transaction;
3. runs the round function on the event loop (nothing slow runs in the round's transaction);
4. commits the round as the general path does (:meth:`Server.start_round` with the result, inside
   :meth:`Server.once_in`): the held rollback cancelled, the stake and the win in the ledger, the
   credit written to the outbox, the answer stored with the key; or, for a debit that was
   refused or went unanswered, the round void and its rollback due at once;
5. if that transaction fails, makes the rollback due at once (a process that dies instead leaves
   it held: the next process delivers it when it falls due).

The credit then goes to the wallet with the outbox's next pass, every due credit of the pass at
once on the call loop. A round the function fails to play (a malfunction) is played once more in
the round's transaction, which voids it and refunds the stake if it fails again.

Under load this path costs a fraction of the general one, where each round held a thread of its
operator's lane for the whole exchange and httpx's synchronous client fought over its pool's
lock: docs/server.md has the figures.
"""

from __future__ import annotations

from typing import Any

from slotforge.engine import round as runner
from slotforge.engine.bet import Bet
from slotforge.engine.game import Game
from slotforge.rgs.money import to_minor
from slotforge.rgs.rounds.service import Auth, Server
from slotforge.rgs.rounds.straight import claimed, plain, play


def at_wallet(auth: Auth, game: Game, autoplay_id: int | None) -> bool:
    """Whether a round takes this path: a seamless player's round of the plain kind."""
    return auth.wallet == "seamless" and plain(auth, game, autoplay_id)


async def play_at_wallet(server: Server, auth: Auth, game: Game, bet: Bet, script: runner.Script | None,
                         key: str | None, fingerprint: str) -> tuple[int, dict[str, Any]]:
    """Play a seamless round (steps 1 to 5 of the module's description): ``(status, answer)``."""
    server.check_key(key)
    stake = to_minor(bet.total_bet, "bet")
    with server.in_flight(auth.player_id, key):
        intent = await claimed(server, auth, key, lambda conn: server.hold_debit(conn, auth, key, game.code, stake,
                                                                                 None))
        if intent is not None:
            server.seamless.track(intent)
        committed = False
        try:
            result = None
            if intent is not None:
                await server.seamless.send_from_loop(intent)
                if intent.declined is None:
                    result = play(server, auth, game, bet, script)  # None: a malfunction, played again below

            def commit(conn, player) -> tuple[int, dict[str, Any]]:
                # No intent: a twin's answer was stored meanwhile, which once_in answers with.
                return server.start_round(conn, player, auth, game, bet, script, None, debit=intent, result=result)

            answer = await claimed(server, auth, key, lambda conn: server.once_in(conn, auth, key, fingerprint,
                                                                                  commit))
            committed = True
            return answer
        finally:
            if intent is not None and not server.seamless.done(intent, committed):
                await server.transaction.run(lambda conn: server.seamless.roll_back_now(conn, intent))
