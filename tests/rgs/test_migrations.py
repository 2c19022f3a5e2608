"""The migrations build exactly the schema the code declares, on either database: a column added
to one and forgotten in the other fails here, not on an operator's upgrade."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from slotforge.db import connect
from slotforge.rgs.schema import metadata, migrate


def test_the_migrated_schema_is_the_declared_schema(database_url):
    engine = connect(database_url)
    try:
        migrate(engine)
        with engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()
    assert differences == []
