"""The server's tables (SQLAlchemy Core). Alembic migrations create and change them:
:func:`migrate` brings a database up to the newest.

Money is integer minor units (cents); jackpot pool amounts, kept to fractions of a cent, are
exact decimal strings. Times are integer milliseconds since the epoch (UTC), the same on
SQLite and PostgreSQL. Round records are JSON text: what the engine produced, byte for byte.
"""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ColumnElement,
    Computed,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    literal_column,
    text,
)

from slotforge.db import Id

log = logging.getLogger("slotforge.rgs")

MIGRATIONS = Path(__file__).with_name("migrations")
# What the rounds' ``model`` column is computed from (the SQL differs by database: the migration
# writes each its own; this declaration only keeps the column out of every insert and update).
MODEL_OF_RECORD = "the record's model"
# Any fixed number: the PostgreSQL advisory lock that lets one server at a time migrate.
MIGRATION_LOCK = 0x51077F0A6E

metadata = MetaData(
    naming_convention={
        "pk": "pk_%(table_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "ix": "ix_%(table_name)s_%(column_0_name)s",
    }
)

operators = Table(
    "operators", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False, unique=True),
    # The operator's first key as it was made; keys are read from ``operator_keys`` only.
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("created_at", BigInteger, nullable=False),
)

players = Table(
    "players", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("operator_id", Id, ForeignKey("operators.id"), nullable=True),  # none for fun players
    Column("external_id", String(100), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("fun", Boolean, nullable=False),
    Column("balance", BigInteger, nullable=False),  # seamless: the last balance the operator's wallet told
    Column("wallet", String(12), nullable=False, server_default="internal"),  # internal seamless
    Column("last_round_at", BigInteger, nullable=True),
    Column("created_at", BigInteger, nullable=False),
    UniqueConstraint("operator_id", "external_id"),
)

sessions = Table(
    "sessions", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("player_id", Id, ForeignKey("players.id"), nullable=False),
    Column("jurisdiction", String(40), nullable=False),
    Column("language", String(20), nullable=True),
    Column("created_at", BigInteger, nullable=False),
    Column("last_seen", BigInteger, nullable=False),
)

ledger = Table(
    "ledger", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("player_id", Id, ForeignKey("players.id"), nullable=False),
    Column("kind", String(12), nullable=False),  # deposit withdrawal stake win refund reversal promo promo_back
    Column("amount", BigInteger, nullable=False),  # minor units, never negative; the kind gives the sign
    Column("round_id", Id, nullable=True),
    Column("reference", String(100), nullable=True),
    Column("created_at", BigInteger, nullable=False),
    UniqueConstraint("player_id", "reference"),
    Index("ix_ledger_round", "round_id"),
    sqlite_autoincrement=True,
)

rounds = Table(
    "rounds", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("player_id", Id, ForeignKey("players.id"), nullable=False),
    Column("session_id", Id, ForeignKey("sessions.id"), nullable=False),
    Column("game", String(40), nullable=False),
    Column("status", String(10), nullable=False),  # awaiting complete void
    Column("fun", Boolean, nullable=False),
    Column("currency", String(3), nullable=False),
    Column("jurisdiction", String(40), nullable=False),
    Column("stake", BigInteger, nullable=False),
    Column("win", BigInteger, nullable=False),  # total win, jackpot included
    Column("jackpot_win", BigInteger, nullable=False),
    Column("balance_before", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=False),
    Column("autoplay_id", Id, nullable=True),
    Column("record", Text, nullable=False),  # the engine's record, as played
    Column("void_reason", Text, nullable=True),
    Column("started_at", BigInteger, nullable=False),
    Column("finished_at", BigInteger, nullable=True),
    # Seamless wallet: the debit's transaction id, and where the round stands with the wallet
    # (credit_pending settled rollback_pending rolled_back).
    Column("wallet_tx", String(64), nullable=True),
    Column("wallet_status", String(20), nullable=True),
    # The Idempotency-Key of the request whose seamless debit is in flight for a pending round:
    # a twin of that request reaching another server process finds it and sends no debit.
    Column("request_key", String(200), nullable=True),
    # The model that played the round (``game/version:fingerprint``), computed by the database
    # from the record (migration 0016 gives each database its expression): never written.
    Column("model", Text, Computed(MODEL_OF_RECORD)),
    # A free round: the grant it was played from (its stake the operator's promotional money) and
    # the operator's reference of its campaign, which its history shows.
    Column("free_grant_id", Id, nullable=True),
    Column("free_campaign", String(100), nullable=True),
    Index("ix_rounds_player_id", "player_id", "id"),
    Index("ix_rounds_status", "status", "started_at"),
    Index("ix_rounds_finished", "status", "finished_at"),  # the back office's reports: a range of finish times
    sqlite_autoincrement=True,  # an id never given twice (a rolled-back round's may be named elsewhere)
)
# A seamless player's wins on their way to the wallet, summed on every round: partial, so that the
# sum reads those few rounds, never the player's whole history.
# The condition is also the one a query must state to read the index: the value written in the
# statement's text. As a bound parameter (SQLAlchemy's way with a constant) the planner cannot see
# that the query implies the index's condition: SQLite then walked every round of the player's.
CREDIT_PENDING = rounds.c.wallet_status == literal_column("'credit_pending'")
# (The win too: the sum reads the index alone, and no planner takes the index of all the player's rounds.)
Index("ix_rounds_credit_pending", rounds.c.player_id, rounds.c.win, postgresql_where=CREDIT_PENDING,
      sqlite_where=CREDIT_PENDING)

# A player's real-money rounds by start, for their loss over a period (own limits). Partial, for
# the same reason: a look-up that does not say "real money" (the wins owed, a pending twin) cannot
# read it, and SQLite's planner keeps to the partial index that look-up was made for.
REAL_MONEY = rounds.c.fun.is_(False)
Index("ix_rounds_player_started", rounds.c.player_id, rounds.c.started_at, postgresql_where=REAL_MONEY,
      sqlite_where=REAL_MONEY)

# A player's open rounds, which every round looks for first: one of a game awaiting a decision,
# one pending at its seamless wallet under the request's key. Partial, so that the look costs the
# same after a player's millionth round as after the first (the rounds indexed by player hold
# every one, and those by status every player's).
def is_awaiting(table: Table) -> ColumnElement[bool]:
    """A round of ``table`` (the rounds, or an alias) awaits a decision, as ``ix_rounds_awaiting``
    reads it (a literal: see :data:`CREDIT_PENDING`)."""
    return table.c.status == literal_column("'awaiting'")


def is_pending(table: Table) -> ColumnElement[bool]:
    """A round of ``table`` is pending at its seamless wallet, as ``ix_rounds_pending`` reads it."""
    return table.c.status == literal_column("'pending'")


Index("ix_rounds_awaiting", rounds.c.player_id, rounds.c.game, postgresql_where=is_awaiting(rounds),
      sqlite_where=is_awaiting(rounds))
# (The request's key too: a twin is looked for by both, and SQLite's planner, without statistics,
# would otherwise weigh the index of all the player's rounds as a tie.)
Index("ix_rounds_pending", rounds.c.player_id, rounds.c.request_key, postgresql_where=is_pending(rounds),
      sqlite_where=is_pending(rounds))


def is_complete(table: Table) -> ColumnElement[bool]:
    """A round of ``table`` is complete (a literal: see :data:`CREDIT_PENDING`)."""
    return table.c.status == literal_column("'complete'")


carried_state = Table(
    "carried_state", metadata,
    Column("player_id", Id, ForeignKey("players.id"), primary_key=True),
    Column("game", String(40), primary_key=True),
    Column("state", Text, nullable=False),
)

idempotency = Table(
    "idempotency", metadata,
    Column("player_id", Id, ForeignKey("players.id"), primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("status_code", Integer, nullable=False),
    # The answer (JSON), or none when it is its round as committed: ``round_id`` points to it.
    Column("body", Text, nullable=True),
    Column("round_id", Id, nullable=True),
    Column("created_at", BigInteger, nullable=False),
)

autoplays = Table(
    "autoplays", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("session_id", Id, ForeignKey("sessions.id"), nullable=False),
    Column("plan", Text, nullable=False),  # the request as accepted (JSON)
    Column("played", Integer, nullable=False),
    Column("net", BigInteger, nullable=False),  # wins - stakes so far, minor units
    Column("stopped", String(40), nullable=True),
    Column("created_at", BigInteger, nullable=False),
)

jackpot_pools = Table(
    "jackpot_pools", metadata,
    Column("name", String(80), primary_key=True),
    Column("current", String(80), nullable=False),
    Column("reserve", String(80), nullable=False),
    Column("contributed", String(80), nullable=False),
    Column("seeded", String(80), nullable=False),
    Column("paid", String(80), nullable=False),
    Column("wins", Integer, nullable=False),
)

jackpot_entries = Table(
    "jackpot_entries", metadata,
    Column("pool", String(80), ForeignKey("jackpot_pools.name"), primary_key=True),
    Column("round_id", Id, primary_key=True),
    Column("kind", String(12), primary_key=True),  # contribution claim
    Column("amount", String(80), nullable=False),
    Column("detail", Text, nullable=False),  # the Contribution or Claim, JSON
    Column("created_at", BigInteger, nullable=False),
    Index("ix_jackpot_entries_kind_time", "kind", "created_at"),  # the live stream's read of the latest claims
)

outbox = Table(
    "outbox", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("target", String(20), nullable=False),  # the system owed: wallet, jackpot
    Column("kind", String(20), nullable=False),  # credit rollback contribution claim ...
    Column("key", String(200), nullable=False),  # what the receiver is idempotent on
    Column("round_id", Id, nullable=True),
    Column("payload", Text, nullable=False),  # JSON
    Column("created_at", BigInteger, nullable=False),
    Column("due_at", BigInteger, nullable=False),  # next attempt; later than created_at when held
    Column("attempts", Integer, nullable=False),
    Column("delivered_at", BigInteger, nullable=True),
    Column("answer", Text, nullable=True),  # the receiver's acknowledgement, JSON
    Column("last_error", Text, nullable=True),
    UniqueConstraint("target", "key"),
    Index("ix_outbox_round", "round_id"),
    sqlite_autoincrement=True,
)
# The messages still owed, oldest first: what every delivery pass reads. Partial, so that a pass
# costs the same after a million delivered messages as after ten (an index of every row, ordered
# by id, made PostgreSQL walk past all the delivered ones).
Index("ix_outbox_undelivered", outbox.c.target, outbox.c.id, postgresql_where=outbox.c.delivered_at.is_(None),
      sqlite_where=outbox.c.delivered_at.is_(None))


# What a regulator calls a significant change (settings and games at start-up, voids, adjustments,
# operators and their keys), appended and never edited: each entry's hash covers its fields and the
# hash of the entry before it, so an entry altered or removed breaks the chain from there on (see
# :mod:`slotforge.rgs.compliance.changes`).
change_log = Table(
    "change_log", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("created_at", BigInteger, nullable=False),
    # operator:NAME/key:KEY or operator:NAME/user:USER, admin (the command line), server
    Column("actor", String(200), nullable=False),
    Column("kind", String(40), nullable=False),
    Column("subject", String(200), nullable=False),
    Column("before", Text, nullable=True),  # JSON
    Column("after", Text, nullable=True),  # JSON
    Column("previous_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False, unique=True),
    sqlite_autoincrement=True,  # an id is never given twice, so a removed entry leaves a gap
)

# The limits a player sets on their own play (:mod:`slotforge.rgs.limits`), one row per kind
# (``loss_day``, ``loss_week``, ``loss_month``: minor units of the player's currency;
# ``session_minutes``): ``value`` the limit in force (null: none), and a loosening that waits out
# its cooling-off, ``pending_value`` (null: the limit removed) from ``pending_at`` (null: nothing waits).
player_limits = Table(
    "player_limits", metadata,
    Column("player_id", Id, ForeignKey("players.id"), primary_key=True),
    Column("kind", String(20), primary_key=True),
    Column("value", BigInteger, nullable=True),
    Column("pending_value", BigInteger, nullable=True),
    Column("pending_at", BigInteger, nullable=True),
    Column("updated_at", BigInteger, nullable=False),
)

# A player's time-outs: no round of theirs starts from ``started_at`` until ``until``; kept, not
# overwritten, so that what the player asked for stays on record.
player_time_outs = Table(
    "player_time_outs", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("player_id", Id, ForeignKey("players.id"), nullable=False),
    Column("hours", Integer, nullable=False),
    Column("started_at", BigInteger, nullable=False),
    Column("until", BigInteger, nullable=False),
    Index("ix_player_time_outs_player", "player_id", "until"),
    sqlite_autoincrement=True,
)

# Secrets the server makes for itself and every process of it shares (the key of dispute links,
# of players' pseudonyms): made once, on first use.
server_secrets = Table(
    "server_secrets", metadata,
    Column("name", String(40), primary_key=True),
    Column("value", String(200), nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

# An operator's keys: several, each named and scoped (``rounds``, ``read``, ``write``: the words of
# ``scopes``, space-separated), only their SHA-256 kept. ``revoked_at`` is when the key stops
# opening anything: now for a revocation, later for the old key of a rotation (its grace period).
# Read on every request, never cached, so a revocation holds at once in every server process.
operator_keys = Table(
    "operator_keys", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("operator_id", Id, ForeignKey("operators.id"), nullable=False, index=True),
    Column("name", String(60), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("scopes", String(40), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("last_used_at", BigInteger, nullable=True),
    Column("revoked_at", BigInteger, nullable=True),
)

# The people of an operator's back office: a name (unique on the server), an argon2 hash of the
# password, a role (viewer, support, finance, admin), and the count of failed sign-ins that locks
# the account for a while.
office_users = Table(
    "office_users", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("operator_id", Id, ForeignKey("operators.id"), nullable=False),
    Column("name", String(100), nullable=False, unique=True),
    Column("password_hash", String(200), nullable=False),
    Column("role", String(12), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("failed_logins", Integer, nullable=False, server_default="0"),
    Column("locked_until", BigInteger, nullable=True),
    Column("disabled_at", BigInteger, nullable=True),
)

# A signed-in user's session: the cookie's token and the CSRF token of its writes, hashed.
office_sessions = Table(
    "office_sessions", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("user_id", Id, ForeignKey("office_users.id"), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("csrf_hash", String(64), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("last_seen", BigInteger, nullable=False),
    Column("ended_at", BigInteger, nullable=True),
)
Index("ix_change_log_subject", change_log.c.subject)

# Free rounds: an operator's campaign (games, a bet per currency, rounds per player, when valid)
# and its grants to players. A grant's ``rounds_played`` only ever grows by a conditional update
# in the transaction that commits the round (:mod:`slotforge.rgs.free`), so it never passes
# ``rounds_granted``. JSON text: ``games`` a list of codes, ``bets`` currency -> the game's bet fields.
free_campaigns = Table(
    "free_campaigns", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("operator_id", Id, ForeignKey("operators.id"), nullable=False),
    Column("reference", String(100), nullable=False),  # the operator's, unique per operator
    Column("name", String(200), nullable=False),
    Column("games", Text, nullable=False),
    Column("bets", Text, nullable=False),
    Column("rounds", Integer, nullable=False),  # per player
    Column("valid_from", BigInteger, nullable=False),
    Column("valid_until", BigInteger, nullable=False),  # exclusive: unplayed rounds lapse then
    Column("player_cap", Integer, nullable=True),
    Column("allow_gamble", Boolean, nullable=False),
    Column("jackpot_eligible", Boolean, nullable=False, server_default="0"),
    Column("request_hash", String(64), nullable=False),  # what made it (a repeat of another body is refused)
    Column("created_at", BigInteger, nullable=False),
    Column("cancelled_at", BigInteger, nullable=True),
    UniqueConstraint("operator_id", "reference"),
)

free_grants = Table(
    "free_grants", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("campaign_id", Id, ForeignKey("free_campaigns.id"), nullable=False),
    Column("player_id", Id, ForeignKey("players.id"), nullable=False),
    Column("rounds_granted", Integer, nullable=False),
    Column("rounds_played", Integer, nullable=False, server_default="0"),
    Column("state", String(12), nullable=False),  # offered accepted declined lapsed
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    UniqueConstraint("campaign_id", "player_id"),
    Index("ix_free_grants_player", "player_id"),
)

# The back office's summaries of finished real-money rounds, one UTC day at a time (made when a
# report first needs the day, once it has ended; see rgs/backoffice/summary.py): sums per quarter
# hour, from which a report in any time zone adds up its local days, and each player's first and
# last quarter hour of play per day, from which it counts a local day's players.
summarised_days = Table(
    "summarised_days", metadata,
    Column("day", BigInteger, primary_key=True),  # days since the epoch (UTC)
    Column("summarised_at", BigInteger, nullable=False),
)

quarter_totals = Table(
    "quarter_totals", metadata,
    Column("operator_id", Id, primary_key=True),
    Column("day", BigInteger, primary_key=True),
    Column("quarter", Integer, primary_key=True),  # of the UTC day, 0 to 95
    Column("game", String(40), primary_key=True),
    Column("currency", String(3), primary_key=True),
    Column("model", Text, primary_key=True),  # the round's model, '' where its record names none
    Column("free", Boolean, primary_key=True),  # free rounds (the operator's stake), apart from paid ones
    Column("rounds", BigInteger, nullable=False),
    Column("stakes", BigInteger, nullable=False),
    Column("wins", BigInteger, nullable=False),
    Column("hits", BigInteger, nullable=False),
    Column("jackpot_wins", BigInteger, nullable=False),
    Column("stake_squares", Float, nullable=False),  # the live RTP's band: an approximation already
    Column("contributions", String(80), nullable=False),  # exact decimal text
)

player_days = Table(
    "player_days", metadata,
    Column("operator_id", Id, primary_key=True),
    Column("day", BigInteger, primary_key=True),
    Column("game", String(40), primary_key=True),
    Column("currency", String(3), primary_key=True),
    Column("player_id", Id, primary_key=True),
    Column("first_quarter", Integer, nullable=False),
    Column("last_quarter", Integer, nullable=False),
    Column("last_quarter_before", Integer, nullable=True),  # the day before's, where they played then
)

# Per operator, day, game and currency, counts of ``player_days`` for every quarter q from 0 to 96
# (JSON lists of 97 numbers): ``late[q]`` played at or after q, ``early[q]`` before q, ``both[q]``
# before q and on the day before at or after q. A local day that starts on quarter q of one UTC
# day and ends on quarter q of the next had late[q] + early[q] - both[q] players of those two days.
player_counts = Table(
    "player_counts", metadata,
    Column("operator_id", Id, primary_key=True),
    Column("day", BigInteger, primary_key=True),
    Column("game", String(40), primary_key=True),
    Column("currency", String(3), primary_key=True),
    Column("late", Text, nullable=False),
    Column("early", Text, nullable=False),
    Column("both", Text, nullable=False),
)

# More rows of one table than the transaction a SQLite server was writing when it stopped could
# have held: a group commit's writers (32) times a round's rows of one table.
IDS_IN_FLIGHT = 1_000


def skip_ids_a_crash_may_have_given(connection: Connection) -> None:
    """At a SQLite server's start: move the rounds', ledger's and outbox's ids on past any a
    transaction cut short by a crash (``kill -9``, power) may have given. SQLite rolls their
    ``sqlite_sequence`` back with the transaction, and a claim or message made meanwhile for such
    a row must never name a later one. (PostgreSQL's sequences never go back.)"""
    connection.execute(text("UPDATE sqlite_sequence SET seq = seq + :skip WHERE name IN ('rounds', 'ledger', "
                            "'outbox')"), {"skip": IDS_IN_FLIGHT})
    for table in ("rounds", "ledger", "outbox"):  # a table that never had a row has no line yet
        connection.execute(text("INSERT INTO sqlite_sequence (name, seq) SELECT :table, :skip WHERE NOT EXISTS "
                                "(SELECT 1 FROM sqlite_sequence WHERE name = :table)"),
                           {"table": table, "skip": IDS_IN_FLIGHT})


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration (one process at a time)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        if connection.dialect.name == "sqlite":
            skip_ids_a_crash_may_have_given(connection)
    log.info("database schema is up to date (%s)", engine.url.render_as_string(hide_password=True))
