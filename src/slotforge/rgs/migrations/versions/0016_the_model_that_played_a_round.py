"""the model that played a round, as a column of its own

A round's record names the model that played it (``game/version:fingerprint``): with RTP versions
in play, two rounds of one game may have played two versions, and the live RTP compares each
version with its own theory. The reports group by that name, so it is a column, computed by the
database from the record (no round path writes it, so none can forget it): stored on PostgreSQL
(parsed once when the record is written), virtual on SQLite (whose ``ALTER TABLE`` adds no stored
generated column; read from the record when a report asks).

A later SQLite migration that rebuilds the rounds table (alembic's batch mode) must leave this
column out of the copy and declare it again: SQLite refuses a value written into it.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

FROM_RECORD = {
    "postgresql": ("(record::json ->> 'model')", True),
    "sqlite": ("json_extract(record, '$.model')", False),
}


def upgrade() -> None:
    expression, stored = FROM_RECORD[op.get_bind().dialect.name]
    op.add_column('rounds', sa.Column('model', sa.Text(), sa.Computed(expression, persisted=stored)))


def downgrade() -> None:
    op.drop_column('rounds', 'model')
