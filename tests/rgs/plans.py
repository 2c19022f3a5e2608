"""How the database reads a query: for tests that a query stays cheap however much history
the tables hold."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection
from sqlalchemy.sql import Executable


def assert_read_through(conn: Connection, query: Executable, index: str, most_rows: int) -> None:
    """PostgreSQL must read at most ``most_rows`` rows in any step of the query's plan (run
    and measured: ``EXPLAIN ANALYZE``); SQLite, which keeps no statistics here, must plan it
    through ``index``."""
    sql = str(query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))
    if conn.dialect.name == "postgresql":
        plan = conn.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + sql).scalar()[0]["Plan"]
        assert rows_read(plan) <= most_rows, plan
    else:
        plan = " ".join(row[-1] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
        assert index in plan, plan


def rows_read(plan: dict[str, Any]) -> int:
    """The most rows any node of a PostgreSQL plan produced or read and threw away."""
    own = plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)
    return max([own, *(rows_read(child) for child in plan.get("Plans", []))])
