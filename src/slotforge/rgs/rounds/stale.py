"""Interrupted rounds: a round left awaiting a decision longer than its jurisdiction allows is
completed with the default choices."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from slotforge.engine import round as runner
from slotforge.rgs.errors import DomainError
from slotforge.rgs.rounds.ahead import resume_ahead
from slotforge.rgs.rounds.resumed import play_on
from slotforge.rgs.store.general import lock_player

if TYPE_CHECKING:
    from slotforge.rgs.rounds.service import Server

log = logging.getLogger("slotforge.rgs")
DAY_MS = 86_400_000


def complete_stale_rounds(server: Server, player_id: int | None = None) -> int:
    """Complete open rounds older than their jurisdiction allows, with the default choices."""
    now = server.now()
    with server.engine.connect() as conn:
        candidates = server.store.awaiting_rounds(conn, player_id)
    done = 0
    for round_id, owner, jurisdiction, started_at in candidates:
        profile = server.settings.jurisdiction(jurisdiction) or server.settings.jurisdiction("default")
        if now - started_at < profile.interrupted_round_days * DAY_MS:
            continue
        try:
            done += complete_stale_round(server, round_id, owner)
        except DomainError as error:  # e.g. its jackpot service is away: the round waits for the next pass
            log.warning("interrupted round %s not completed yet: %s", round_id, error.message)
    return done


def complete_stale_round(server: Server, round_id: int, owner: int) -> int:
    """Complete one interrupted round with the default choices; 1 if done."""
    ahead = resume_ahead(server, owner, round_id, None)
    with server.transaction() as conn:
        lock_player(conn, owner)
        row = server.store.round_of(conn, round_id)
        if row["status"] != "awaiting" or not server.warmup.ready(row["game"]):  # the next pass, once ready
            return 0
        game = server.played(row)
        if ahead is not None:
            server.continue_round(conn, game, row, *ahead.on(row))
        else:
            server.continue_round(conn, game, row, play_on(game, runner.RoundResult.of(json.loads(row["record"])),
                                                         None))
        log.info("completed interrupted round %s with the default choices", round_id)
        return 1
