"""Records of a runtime turn keyed by name, not by position: the table
``harness_dbos_runtime`` of the system database.

DBOS replays a workflow's steps by their position in the workflow. A runtime that owns
its loop (Claude Code) does not repeat itself after a crash: resumed from its own
transcript, it skips the calls it already has results for, so the host-tool executions
of a recovered turn come in another order than the first time. They are recorded here
instead, keyed by ``(workflow id, tool call id)``, so a recovered turn finds the result
of a call whatever position it now has (see :mod:`harness_dbos.runtime_tool`).

Values are pickled (they are :class:`harness_core.ToolOutput` objects and small dicts,
written and read by the same application).
"""

from __future__ import annotations

import pickle
import time
from typing import Any

__all__ = ["RuntimeRecords", "record_key"]


def record_key(workflow_id: str, kind: str, name: str = "") -> str:
    """The key of one record: ``<workflow id>\\x1f<kind>\\x1f<name>`` (e.g. kind
    ``tool-result``, name the tool call id; U+001F, since Postgres text holds no NUL)."""
    return f"{workflow_id}\x1f{kind}\x1f{name}"


class RuntimeRecords:
    """Rows ``(key primary key, workflow_id, value pickled, recorded_at)``.

    Args:
        url: a SQLAlchemy database URL (``postgresql://...`` uses psycopg 3).
        connect_args: the driver's connection arguments.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database cannot be reached (at first use).
    """

    def __init__(self, url: str, *, connect_args: dict[str, Any] | None = None) -> None:
        import sqlalchemy as sa

        if url.startswith(("postgresql://", "postgres://")):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        self._engine = sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args or {})
        self._table = sa.Table(
            "harness_dbos_runtime", sa.MetaData(),
            sa.Column("key", sa.Text, primary_key=True), sa.Column("workflow_id", sa.Text, nullable=False, index=True),
            sa.Column("value", sa.LargeBinary, nullable=False), sa.Column("recorded_at", sa.Float, nullable=False),
        )
        self._ready = False

    def _prepare(self) -> None:
        if not self._ready:
            self._table.metadata.create_all(self._engine, checkfirst=True)
            self._ready = True

    def get(self, key: str) -> Any | None:
        """The value recorded under ``key``, or ``None``."""
        import sqlalchemy as sa

        self._prepare()
        with self._engine.connect() as connection:
            row = connection.execute(sa.select(self._table.c.value).where(self._table.c.key == key)).first()
        return None if row is None else pickle.loads(row[0])

    def put(self, key: str, workflow_id: str, value: Any) -> bool:
        """Record ``value`` under ``key`` unless a value is there; ``False`` when one was
        (the first record stays: a record is never changed)."""
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
        import sqlalchemy as sa

        self._prepare()
        prefix = record_key(workflow_id, kind)
        query = (sa.select(self._table.c.key, self._table.c.value)
                 .where(self._table.c.workflow_id == workflow_id).order_by(self._table.c.recorded_at))
        with self._engine.connect() as connection:
            rows = connection.execute(query).all()
        return {key[len(prefix):]: pickle.loads(value) for key, value in rows if key.startswith(prefix)}
