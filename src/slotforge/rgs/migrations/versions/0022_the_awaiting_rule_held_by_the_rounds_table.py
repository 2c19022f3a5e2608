"""the rule that a player has no second round of a game while one awaits a decision, held by the
rounds table's triggers

The rule was written four times: as a condition of SQLite's statements of a round (the straight
round's insert, a seamless round's placeholder and its finish) and in each of PostgreSQL's three
round functions. Two triggers on ``rounds`` now hold it, once per database, for every path that
writes a round: one refuses the insert of a round (whatever its status), the other the update
that plays a pending round (a seamless wallet's placeholder turned awaiting or complete), when a
round of the same player and game awaits a decision. Their look-up reads ``ix_rounds_awaiting``
(migration 0010).

On PostgreSQL both call ``slotforge_none_awaiting`` (``rgs/sql/none_awaiting.sql``), which raises
SQLSTATE SF001, the round functions' refusal; this migration installs it, then the three round
functions of today, which no longer state the rule (``slotforge_settle_at_wallet`` loses its
``p_game``, which only the rule read). On SQLite each trigger raises ``RAISE(ABORT, ...)`` with
:data:`REFUSAL`, which the SQLite round store reads as a refusal
(``slotforge.rgs.store.sqlite``): the statement is undone, and the round's savepoint with it.

A rebuild of ``rounds`` on SQLite (a batch operation of a later migration) drops its triggers:
such a migration must make them again. A downgrade drops the triggers and their function; the
round functions stay as the files define them (as after migrations 0011 and 0017): a downgrade
serves to migrate again, with this version's code.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-08
"""

from alembic import op

from slotforge.rgs import sql

revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

# What SQLite's triggers abort a statement with (the SQLite store matches it).
REFUSAL = "round refused: a round of the game awaits a decision"
# A round of NEW's player and game awaits a decision (the condition of ix_rounds_awaiting written
# as a literal, so that SQLite's planner reads that index).
AWAITING = ("EXISTS (SELECT 1 FROM rounds WHERE player_id = NEW.player_id AND game = NEW.game "
            "AND status = 'awaiting')")
# A pending round played: the update that the rule guards (a void or a rollback is not one).
PLAYED = "OLD.status = 'pending' AND NEW.status IN ('awaiting', 'complete')"

# Each trigger: when it fires on SQLite, and on PostgreSQL.
TRIGGERS = {
    'rounds_none_awaiting_insert': (f"BEFORE INSERT ON rounds WHEN {AWAITING}",
                                    "BEFORE INSERT ON rounds FOR EACH ROW"),
    'rounds_none_awaiting_play': (f"BEFORE UPDATE OF status ON rounds WHEN {PLAYED} AND {AWAITING}",
                                  f"BEFORE UPDATE OF status ON rounds FOR EACH ROW WHEN ({PLAYED})"),
}


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        sql.install(op.get_bind(), "none_awaiting")
        for name, (_sqlite, postgres) in TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {postgres} EXECUTE FUNCTION slotforge_none_awaiting()")
        sql.install(op.get_bind(), "play_round", "hold_debit", "settle_at_wallet")
    else:
        for name, (sqlite, _postgres) in TRIGGERS.items():
            op.execute(f"CREATE TRIGGER {name} {sqlite} BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END")


def downgrade() -> None:
    on_postgres = op.get_bind().dialect.name == "postgresql"
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON rounds" if on_postgres else f"DROP TRIGGER {name}")
    sql.drop(op.get_bind(), "none_awaiting")
