"""The general path's statements: a round with a decision, a jackpot, carried state or an
autoplay plan, a void, a recall. The same SQL on both databases (SQLAlchemy Core), run in the
caller's transaction (a :class:`~sqlalchemy.Connection`), so both stores inherit
:class:`GeneralPath` as it is. Each statement is built once: building a statement and its cache
key costs more CPU than running it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update

from slotforge.rgs.schema import autoplays, carried_state, idempotency, is_awaiting, is_pending, players, rounds

LOCK_PLAYER = select(players).where(players.c.id == bindparam("p_player")).with_for_update()
PLAYER_CLOCK = select(players.c.balance, players.c.last_round_at).where(players.c.id == bindparam("p_player"))
STORED_ANSWER = select(idempotency).where(idempotency.c.player_id == bindparam("p_player"),
                                          idempotency.c.key == bindparam("p_key"))
STORE_ANSWER = insert(idempotency)
# A round's answer as sent, kept with its key (a round still awaiting a decision will change).
KEEP_ANSWER = update(idempotency).where(idempotency.c.player_id == bindparam("p_player"),
                                        idempotency.c.key == bindparam("p_key")).values(body=bindparam("p_body"))
OPEN_ROUND = select(rounds.c.id).where(rounds.c.player_id == bindparam("p_player"),
                                       rounds.c.game == bindparam("p_game"), is_awaiting(rounds))
PENDING_TWIN = select(rounds.c.id).where(rounds.c.player_id == bindparam("p_player"), is_pending(rounds),
                                        rounds.c.request_key == bindparam("p_key"))
TOUCH_PLAYER = update(players).where(players.c.id == bindparam("p_player")).values(last_round_at=bindparam("p_now"))
ROUND = select(rounds).where(rounds.c.id == bindparam("p_round"))
PLAYERS_ROUND = ROUND.where(rounds.c.player_id == bindparam("p_player"))
INSERT_ROUND = insert(rounds).returning(rounds.c.id)
PLAY_PLACEHOLDER = update(rounds).where(rounds.c.id == bindparam("p_round")).values(
    status=bindparam("p_status"), record=bindparam("p_record"), balance_before=bindparam("p_before"),
    balance_after=bindparam("p_after"), started_at=bindparam("p_now"))
RECORD_DECISION = update(rounds).where(rounds.c.id == bindparam("p_round")).values(record=bindparam("p_record"))
FINISH_ROUND = update(rounds).where(rounds.c.id == bindparam("p_round")).values(
    status="complete", win=bindparam("p_win"), jackpot_win=bindparam("p_jackpot"),
    balance_after=bindparam("p_balance"), finished_at=bindparam("p_now"), record=bindparam("p_record"))
AUTOPLAY = select(autoplays).where(autoplays.c.id == bindparam("p_plan"))
COUNT_AUTOPLAY = update(autoplays).where(autoplays.c.id == bindparam("p_plan")).values(
    played=bindparam("p_played"), net=bindparam("p_net"), stopped=bindparam("p_stopped"))
STATE_OF = (carried_state.c.player_id == bindparam("p_player"), carried_state.c.game == bindparam("p_game"))
CARRIED_STATE = select(carried_state.c.state).where(*STATE_OF)
UPDATE_STATE = update(carried_state).where(*STATE_OF).values(state=bindparam("p_state"))


def lock_player(conn: Connection, player_id: int) -> dict[str, Any]:
    """The player's row, locked until the transaction ends (PostgreSQL; SQLite holds the
    database's write lock already)."""
    return dict(conn.execute(LOCK_PLAYER, {"p_player": player_id}).mappings().one())


class GeneralPath:
    """The general path's reads and writes of a round, in the caller's transaction."""

    lock_player = staticmethod(lock_player)

    # -- recall ---------------------------------------------------------------------------------
    @staticmethod
    def recall(conn: Connection, player_id: int, key: str) -> Mapping[str, Any] | None:
        """The answer stored with a request's idempotency key (None: none yet)."""
        return conn.execute(STORED_ANSWER, {"p_player": player_id, "p_key": key}).mappings().first()

    @staticmethod
    def store_answer(conn: Connection, player_id: int, key: str, fingerprint: str, status: int,
                     body: dict[str, Any], now: int) -> None:
        """Store a request's answer with its key (in the transaction that did its work)."""
        conn.execute(STORE_ANSWER, dict(player_id=player_id, key=key, request_hash=fingerprint, status_code=status,
                                        body=json.dumps(body), created_at=now))

    @staticmethod
    def round_of(conn: Connection, round_id: int, player_id: int | None = None) -> dict[str, Any] | None:
        """A round as stored (of ``player_id``, when given); None if there is none."""
        if player_id is None:
            row = conn.execute(ROUND, {"p_round": round_id}).mappings().first()
        else:
            row = conn.execute(PLAYERS_ROUND, {"p_round": round_id, "p_player": player_id}).mappings().first()
        return None if row is None else dict(row)

    @staticmethod
    def player_clock(conn: Connection, player_id: int) -> Mapping[str, Any]:
        """The player's balance and the time of their last round."""
        return conn.execute(PLAYER_CLOCK, {"p_player": player_id}).mappings().one()

    @staticmethod
    def open_round(conn: Connection, player_id: int, game: str) -> int | None:
        """The player's round of ``game`` that awaits a decision, if any."""
        return conn.execute(OPEN_ROUND, {"p_player": player_id, "p_game": game}).scalar()

    @staticmethod
    def pending_twin(conn: Connection, player_id: int, key: str) -> int | None:
        """A placeholder of the player's under the request's key (its debit out), if any."""
        return conn.execute(PENDING_TWIN, {"p_player": player_id, "p_key": key}).scalar()

    @staticmethod
    def awaiting_rounds(conn: Connection, player_id: int | None = None) -> list[tuple[int, int, str, int]]:
        """(id, player, jurisdiction, started) of rounds awaiting a decision (one player's, or all)."""
        query = select(rounds.c.id, rounds.c.player_id, rounds.c.jurisdiction, rounds.c.started_at).where(
            rounds.c.status == "awaiting")
        if player_id is not None:
            query = query.where(rounds.c.player_id == player_id)
        return [tuple(row) for row in conn.execute(query)]

    # -- hold the stake: a round's row ----------------------------------------------------------
    @staticmethod
    def touch_player(conn: Connection, player_id: int, now: int) -> None:
        """The player's last round is now (the least time between rounds counts from it)."""
        conn.execute(TOUCH_PLAYER, {"p_player": player_id, "p_now": now})

    @staticmethod
    def insert_round(conn: Connection, row: dict[str, Any]) -> None:
        """Insert the round ``row`` describes (``row`` gains its id); a seamless round's
        placeholder (``row`` has its id) becomes the round."""
        if "id" in row:
            conn.execute(PLAY_PLACEHOLDER, {"p_round": row["id"], "p_status": row["status"], "p_record": row["record"],
                                            "p_before": row["balance_before"], "p_after": row["balance_after"],
                                            "p_now": row["started_at"]})
            return
        row["id"] = conn.execute(INSERT_ROUND, row).scalar_one()

    # -- record a decision, settle, void --------------------------------------------------------
    @staticmethod
    def record_decision(conn: Connection, round_id: int, record: str) -> None:
        """A waiting round's record after a decision that leaves it waiting."""
        conn.execute(RECORD_DECISION, {"p_round": round_id, "p_record": record})

    @staticmethod
    def finish_round(conn: Connection, row: dict[str, Any]) -> None:
        """A round complete as ``row`` says (its win, jackpot, balance, finish time and record)."""
        conn.execute(FINISH_ROUND, {"p_round": row["id"], "p_win": row["win"], "p_jackpot": row["jackpot_win"],
                                    "p_balance": row["balance_after"], "p_now": row["finished_at"],
                                    "p_record": row["record"]})

    @staticmethod
    def void_round(conn: Connection, round_id: int, **values: Any) -> None:
        """A round void: its ``status`` and ``void_reason`` with whatever else changed with them
        (its balance after, its finish, its record)."""
        conn.execute(update(rounds).where(rounds.c.id == round_id).values(**values))

    # -- carried state and autoplay -------------------------------------------------------------
    @staticmethod
    def carried_state(conn: Connection, player_id: int, game: str) -> dict[str, Any]:
        raw = conn.execute(CARRIED_STATE, {"p_player": player_id, "p_game": game}).scalar()
        return json.loads(raw) if raw else {}

    @staticmethod
    def keep_state(conn: Connection, player_id: int, game: str, state: dict[str, Any]) -> None:
        """The state the player's next round of ``game`` starts with (no row while it is empty)."""
        if conn.execute(CARRIED_STATE, {"p_player": player_id, "p_game": game}).first() is None:
            if state:
                conn.execute(insert(carried_state).values(player_id=player_id, game=game, state=json.dumps(state)))
        else:
            conn.execute(UPDATE_STATE, {"p_player": player_id, "p_game": game, "p_state": json.dumps(state)})

    @staticmethod
    def state_left_before(conn: Connection, row: dict[str, Any]) -> dict[str, Any] | None:
        """The carried state the last round of ``row``'s game before it that still counts (not
        void) left (empty if none); None when a later round counts (its outcome stands)."""
        counting = (rounds.c.player_id == row["player_id"], rounds.c.game == row["game"], rounds.c.status != "void")
        if conn.execute(select(rounds.c.id).where(*counting, rounds.c.id > row["id"]).limit(1)).first() is not None:
            return None
        before = conn.execute(select(rounds.c.record).where(*counting, rounds.c.id < row["id"])
                              .order_by(rounds.c.id.desc()).limit(1)).scalar()
        return json.loads(before).get("state") or {} if before else {}

    @staticmethod
    def autoplay(conn: Connection, plan_id: int) -> Mapping[str, Any] | None:
        return conn.execute(AUTOPLAY, {"p_plan": plan_id}).mappings().first()

    @staticmethod
    def count_autoplay(conn: Connection, plan_id: int, played: int, net: int, stopped: str | None) -> None:
        conn.execute(COUNT_AUTOPLAY, {"p_plan": plan_id, "p_played": played, "p_net": net, "p_stopped": stopped})
