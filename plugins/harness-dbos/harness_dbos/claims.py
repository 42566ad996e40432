"""A :class:`harness_core.ContinuationStore` in a SQL database (Postgres or SQLite,
through SQLAlchemy, which DBOS already uses): the table ``harness_dbos_claims``."""

from __future__ import annotations

import os
import time
from typing import Any

__all__ = ["SqlClaimStore"]


class SqlClaimStore:
    """Claims as rows of ``harness_dbos_claims (key primary key, session_id, claimed_at, pid)``.

    Args:
        url: a SQLAlchemy database URL (``postgresql://...`` uses psycopg 3).
        connect_args: the driver's connection arguments (for SQLite,
            :func:`harness_dbos.launch.sqlite_connect_args`).

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database cannot be reached (at first use).
    """

    def __init__(self, url: str, *, connect_args: dict[str, Any] | None = None) -> None:
        import sqlalchemy as sa

        if url.startswith(("postgresql://", "postgres://")):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        self._engine = sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args or {})
        self._table = sa.Table(
            "harness_dbos_claims", sa.MetaData(),
            sa.Column("key", sa.Text, primary_key=True), sa.Column("session_id", sa.Text, nullable=False),
            sa.Column("claimed_at", sa.Float, nullable=False), sa.Column("pid", sa.Integer, nullable=False),
        )
        self._ready = False

    def claim(self, key: str, session_id: str) -> bool:
        """Insert ``key``; ``False`` when it was claimed before (one atomic insert)."""
        import sqlalchemy as sa

        if not self._ready:
            self._table.metadata.create_all(self._engine, checkfirst=True)
            self._ready = True
        try:
            with self._engine.begin() as connection:
                connection.execute(self._table.insert().values(
                    key=key, session_id=session_id, claimed_at=time.time(), pid=os.getpid()))
            return True
        except sa.exc.IntegrityError:
            return False
