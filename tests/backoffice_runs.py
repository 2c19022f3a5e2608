"""Runs of real-money rounds for the back office's tests, played through the game server's own
round service (its transaction, wallet, ledger and jackpot contributions, as the round route
plays them) in the test's process, on the server's database:

- an honest run: the game's round function drawing from a seeded stream (the secure generator's
  draws, made reproducible so that the test cannot fail by chance);
- a forced run: every round's screen forced by a script (QA's forced outcomes, which the API
  accepts in fun sessions only), here a winning screen each time, so the actual RTP leaves the
  band its rounds allow.

Import it as ``from backoffice_runs import ...`` (``tests/`` is on the import path)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from slotforge.engine import round as runner
from slotforge.engine.game import Game
from slotforge.rgs.api import access
from slotforge.rgs.api.player import parse_bet
from slotforge.rgs.rounds.service import Server


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Rounds played meanwhile (in this process) draw from xoshiro256**(seed) instead of the
    secure generator."""
    original_play, original_resume = runner.play_round, runner.resume_round
    source = runner.seeded_words(seed)
    runner.play_round = lambda game, bet=None, **options: original_play(game, bet, source=source, **options)
    runner.resume_round = lambda game, record, choice, source_=source: original_resume(game, record, choice, source_)
    try:
        yield
    finally:
        runner.play_round, runner.resume_round = original_play, original_resume


def winning_screen(game: Game, at_least: Decimal) -> list[list[str]]:
    """A first screen of ``game`` at the default bet that wins ``at_least`` in the base game and
    triggers nothing, found by playing seeded rounds."""
    for seed in range(5000):
        record = runner.play(game, None, source=runner.seeded_words(seed))
        base = record["steps"][0]
        if len(record["steps"]) == 1 and not base["events"] and Decimal(record["total_win"]) >= at_least:
            return base["screen"]
    raise AssertionError(f"no screen winning {at_least} in 5000 seeds")


def play_real(server: Server, token: str, game_code: str, count: int,
              script: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Play ``count`` real-money rounds for the session ``token`` (collecting any gamble); the
    rounds' answers."""
    auth = access.authenticate(server, f"Bearer {token}")
    game = server.playable(game_code)
    bet = parse_bet(game, {})
    forced = runner.parse_script(game, {**script, "bet": bet.as_json()}) if script else None
    answers = []
    for _ in range(count):
        status, body = server.once.run(auth.player_id, secrets.token_hex(8), "backoffice-test", lambda conn, row:
                                       server.start_round(conn, row, auth, game, bet, forced, None))
        assert status == 200, body
        while body["round"]["status"] == "awaiting":
            options = body["round"]["awaiting"]["options"]
            choice = "collect" if "collect" in options else options[0]
            status, body = server.once.run(
                auth.player_id, secrets.token_hex(8), "backoffice-test",
                lambda conn, row, round_id=body["round"]["id"], choice=choice: server.decide(conn, auth, round_id, choice))
            assert status == 200, body
        answers.append(body["round"])
    return answers
