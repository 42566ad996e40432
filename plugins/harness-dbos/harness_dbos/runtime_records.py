"""Records of a runtime turn keyed by name, not by position: the table
``harness_dbos_runtime`` of the system database.

DBOS replays a workflow's steps by their position in the workflow. A runtime that owns
its loop (Claude Code) does not repeat itself after a crash: resumed from its own
transcript, it skips the calls it already has results for, so the host-tool executions
of a recovered turn come in another order than the first time. They are recorded here
instead, keyed by ``(workflow id, tool call id)``, so a recovered turn finds the result
of a call whatever position it now has (see :mod:`harness_dbos.runtime_tool`).

The built-in harness's durable turns record their host-tool and built-in executions here
too on SQLite (:mod:`harness_dbos.inline_tool`), keyed by the call ids of their recorded
model responses.

Values are pickled (they are :class:`harness_core.ToolOutput` objects and small dicts,
written and read by the same application). On SQLite the table is read and written through
the standard ``sqlite3`` module, one autocommit WAL connection per thread (a record is one
``INSERT``, committed when :meth:`RuntimeRecords.put` returns, cheap enough for the event
loop: :attr:`RuntimeRecords.records_inline`); on Postgres through SQLAlchemy.
"""

from __future__ import annotations

import pickle
import sqlite3
import time
from typing import Any

from ._sqlite_threads import ThreadConnections

__all__ = ["RuntimeRecords", "record_key"]

_DDL = ("CREATE TABLE IF NOT EXISTS harness_dbos_runtime (key TEXT NOT NULL PRIMARY KEY, workflow_id TEXT NOT NULL, "
        "value BLOB NOT NULL, recorded_at FLOAT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS ix_harness_dbos_runtime_workflow_id ON harness_dbos_runtime (workflow_id)")


def record_key(workflow_id: str, kind: str, name: str = "") -> str:
    """The key of one record: ``<workflow id>\\x1f<kind>\\x1f<name>`` (e.g. kind
    ``tool-result``, name the tool call id; U+001F, since Postgres text holds no NUL)."""
    return f"{workflow_id}\x1f{kind}\x1f{name}"


class RuntimeRecords:
    """Rows ``(key primary key, workflow_id, value pickled, recorded_at)``.

    Args:
        url: a SQLAlchemy database URL (``postgresql://...`` uses psycopg 3).
        connect_args: the driver's connection arguments (SQLAlchemy only).
        sqlite_synchronous: SQLite's ``synchronous`` level (see :func:`harness_dbos.launch`).

    Raises:
        sqlite3.Error / sqlalchemy.exc.SQLAlchemyError: the database cannot be reached (at
            first use).
    """

    def __init__(self, url: str, *, connect_args: dict[str, Any] | None = None,
                 sqlite_synchronous: str = "NORMAL") -> None:
        self._sqlite_path = url.removeprefix("sqlite:///") if url.startswith("sqlite:") else None
        self.records_inline = self._sqlite_path is not None
        """True for SQLite: :meth:`get` and :meth:`put` are local statements the event loop may run itself."""
        self._sqlite = None if self._sqlite_path is None else ThreadConnections(self._sqlite_path, sqlite_synchronous,
                                                                               _DDL)
        self._ready = False
        if self._sqlite_path is not None:
            return
        import sqlalchemy as sa

        if url.startswith(("postgresql://", "postgres://")):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        self._engine = sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args or {})
        self._table = sa.Table(
            "harness_dbos_runtime", sa.MetaData(),
            sa.Column("key", sa.Text, primary_key=True), sa.Column("workflow_id", sa.Text, nullable=False, index=True),
            sa.Column("value", sa.LargeBinary, nullable=False), sa.Column("recorded_at", sa.Float, nullable=False),
        )

    def _prepare(self) -> None:
        if not self._ready:
            self._table.metadata.create_all(self._engine, checkfirst=True)
            self._ready = True

    def get(self, key: str) -> Any | None:
        """The value recorded under ``key``, or ``None``."""
        if self._sqlite is not None:
            found = self._sqlite.get().execute("SELECT value FROM harness_dbos_runtime WHERE key = ?", (key,)).fetchone()
            return None if found is None else pickle.loads(found[0])
        import sqlalchemy as sa

        self._prepare()
        with self._engine.connect() as connection:
            row = connection.execute(sa.select(self._table.c.value).where(self._table.c.key == key)).first()
        return None if row is None else pickle.loads(row[0])

    def owner(self, workflow_id: str) -> str | None:
        """DBOS's ownership token of ``workflow_id`` (``workflow_status.owner_xid`` of the
        SQLite system database: the execution allowed to record it), or ``None``.
        SQLite only (``None`` on another database)."""
        if self._sqlite is None:
            return None
        found = self._sqlite.get().execute("SELECT owner_xid FROM workflow_status WHERE workflow_uuid = ?",
                                           (workflow_id,)).fetchone()
        return None if found is None else found[0]

    def put(self, key: str, workflow_id: str, value: Any) -> bool:
        """Record ``value`` under ``key`` unless a value is there; ``False`` when one was
        (the first record stays: a record is never changed)."""
        if self._sqlite is not None:
            try:
                self._sqlite.get().execute("INSERT INTO harness_dbos_runtime VALUES (?, ?, ?, ?)",
                                           (key, workflow_id, pickle.dumps(value), time.time()))
                return True
            except sqlite3.IntegrityError:
                return False
        import sqlalchemy as sa

        self._prepare()
        try:
            with self._engine.begin() as connection:
                connection.execute(self._table.insert().values(
                    key=key, workflow_id=workflow_id, value=pickle.dumps(value), recorded_at=time.time()))
            return True
        except sa.exc.IntegrityError:
            return False

    def of_workflow(self, workflow_id: str, kind: str) -> dict[str, Any]:
        """Every record of ``kind`` for ``workflow_id``, by name, in the order recorded."""
        prefix = record_key(workflow_id, kind)
        if self._sqlite is not None:
            found = self._sqlite.get().execute(
                "SELECT key, value FROM harness_dbos_runtime WHERE workflow_id = ? ORDER BY recorded_at",
                (workflow_id,)).fetchall()
            return {key[len(prefix):]: pickle.loads(value) for key, value in found if key.startswith(prefix)}
        import sqlalchemy as sa

        self._prepare()
        query = (sa.select(self._table.c.key, self._table.c.value)
                 .where(self._table.c.workflow_id == workflow_id).order_by(self._table.c.recorded_at))
        with self._engine.connect() as connection:
            rows = connection.execute(query).all()
        return {key[len(prefix):]: pickle.loads(value) for key, value in rows if key.startswith(prefix)}
