"""One autocommit SQLite connection per thread, in WAL mode, for the stores that write a
row per call on SQLite without SQLAlchemy (:mod:`harness_dbos.claims`,
:mod:`harness_dbos.runtime_records`): an ``INSERT`` is committed when it returns."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

__all__ = ["ThreadConnections"]


class ThreadConnections:
    """Per-thread connections to one SQLite file.

    Args:
        path: the database file.
        synchronous: SQLite's ``synchronous`` level (``NORMAL`` or ``FULL``, see
            :func:`harness_dbos.launch`).
        ddl: statements run once on each new connection (``CREATE ... IF NOT EXISTS``).
    """

    def __init__(self, path: str, synchronous: str, ddl: Sequence[str]) -> None:
        self.path = path
        self.synchronous = synchronous
        self.ddl = tuple(ddl)
        self._local = threading.local()

    def get(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use (30 s busy timeout).

        Raises:
            sqlite3.Error: the file cannot be opened or a DDL statement fails.
        """
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, isolation_level=None, timeout=30.0, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(f"PRAGMA synchronous={self.synchronous}")
            for statement in self.ddl:
                connection.execute(statement)
            self._local.connection = connection
        return connection
