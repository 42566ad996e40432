"""A :class:`harness_core.ContinuationStore` in a SQL database (Postgres or SQLite): the
table ``harness_dbos_claims``.

Postgres goes through SQLAlchemy (which DBOS already uses). SQLite goes through the standard
``sqlite3`` module directly, one autocommit connection per thread in WAL mode: a claim is one
``INSERT`` (about 0.05 ms, against about 0.8 ms through a SQLAlchemy transaction), and it is
durable (committed) when :meth:`SqlClaimStore.claim` returns.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any, Literal

from ._sqlite_threads import ThreadConnections

__all__ = ["SqlClaimStore"]

_DDL = ("CREATE TABLE IF NOT EXISTS harness_dbos_claims (key TEXT PRIMARY KEY, session_id TEXT NOT NULL, "
        "claimed_at FLOAT NOT NULL, pid INTEGER NOT NULL)",)


class SqlClaimStore:
    """Claims as rows of ``harness_dbos_claims (key primary key, session_id, claimed_at, pid)``.

    Args:
        url: a database URL: ``sqlite:///path`` or ``postgresql://...`` (psycopg 3).
        sqlite_synchronous: SQLite's ``synchronous`` level (see :func:`harness_dbos.launch`).

    Raises:
        sqlite3.Error / sqlalchemy.exc.SQLAlchemyError: the database cannot be reached (at
            first use).
    """

    def __init__(self, url: str, *, sqlite_synchronous: Literal["NORMAL", "FULL"] = "NORMAL") -> None:
        self._sqlite_path = url.removeprefix("sqlite:///") if url.startswith("sqlite:") else None
        self.claims_inline = self._sqlite_path is not None
        """True for SQLite: :meth:`claim` is a local insert the event loop may run itself."""
        self._sqlite = None if self._sqlite_path is None else ThreadConnections(self._sqlite_path, sqlite_synchronous,
                                                                               _DDL)
        self._engine: Any = None
        self._table: Any = None
        if self._sqlite_path is None:
            import sqlalchemy as sa

            if url.startswith(("postgresql://", "postgres://")):
                url = "postgresql+psycopg://" + url.split("://", 1)[1]
            self._engine = sa.create_engine(url, pool_pre_ping=True)
            self._table = sa.Table(
                "harness_dbos_claims", sa.MetaData(),
                sa.Column("key", sa.Text, primary_key=True), sa.Column("session_id", sa.Text, nullable=False),
                sa.Column("claimed_at", sa.Float, nullable=False), sa.Column("pid", sa.Integer, nullable=False),
            )
        self._ready = False

    def claim(self, key: str, session_id: str) -> bool:
        """Insert ``key``; ``False`` when it was claimed before (one atomic insert)."""
        if self._sqlite is not None:
            try:
                self._sqlite.get().execute("INSERT INTO harness_dbos_claims VALUES (?, ?, ?, ?)",
                                           (key, session_id, time.time(), os.getpid()))
                return True
            except sqlite3.IntegrityError:
                return False
        return self._claim_sql(key, session_id)

    def _claim_sql(self, key: str, session_id: str) -> bool:
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
