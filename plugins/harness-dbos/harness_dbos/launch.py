"""Configuring and launching DBOS for durable turns: SQLite by default, Postgres by URL.

:func:`launch` builds the process's one ``DBOS`` instance on a system database and
launches it (which recovers this executor's pending turn workflows), after every
:class:`~harness_dbos.DurableAgent` of the process is built. The host-tool start claims
are the table ``harness_dbos_claims`` of the same database
(:class:`~harness_dbos.claims.SqlClaimStore`, a :class:`harness_core.ContinuationStore`).

SQLite connections run in WAL mode with ``synchronous=NORMAL`` by default: a commit
survives the process being killed (what recovery needs), not a power loss or an OS crash
right after it; ``sqlite_synchronous="FULL"`` survives those too, at one fsync per
recorded step (about 100 times slower on a busy virtual disk).

Plugin discovery imports this module (through the package, for :func:`launch`), so it
imports ``sqlite3``, ``pickle`` and the stores only when :func:`launch` or
:func:`sqlite_connect_args` runs.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harness_core import HarnessConfigurationError

if TYPE_CHECKING:
    from harness_core import ContinuationStore

    from .runtime_records import RuntimeRecords

__all__ = ["DATABASE_ENV", "claims_store", "runtime_records", "database_url", "destroy", "launch", "sqlite_connect_args"]

DATABASE_ENV = "HARNESS_DBOS_DATABASE_URL"
"""The environment variable naming the system database when none is given."""

_claims: ContinuationStore | None = None
_records: RuntimeRecords | None = None


def database_url(url: str | None = None, *, directory: str | os.PathLike[str] | None = None) -> str:
    """The system database URL: ``url``, else ``$HARNESS_DBOS_DATABASE_URL``, else the
    SQLite file ``harness-dbos.sqlite`` in ``directory`` (default: the working directory).

    Raises:
        HarnessConfigurationError: a URL that is neither ``sqlite:///...`` nor ``postgresql://...``.
    """
    url = url or os.environ.get(DATABASE_ENV)
    if not url:
        folder = Path(directory) if directory is not None else Path.cwd()
        return f"sqlite:///{(folder / 'harness-dbos.sqlite').resolve()}"
    if not (url.startswith("sqlite:///") or url.startswith(("postgresql://", "postgresql+psycopg://", "postgres://"))):
        raise HarnessConfigurationError("harness-dbos: the database URL must start with sqlite:/// or postgresql://")
    return url


@functools.cache
def _wal_connection() -> type[Any]:
    """``_WalConnection``: a sqlite3 connection in WAL mode with ``synchronous`` set to its
    class attribute ``synchronous`` (defined on first use: ``sqlite3`` loads then)."""
    import sqlite3

    class _WalConnection(sqlite3.Connection):
        synchronous = "NORMAL"

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.execute("PRAGMA journal_mode=WAL")
            self.execute(f"PRAGMA synchronous={self.synchronous}")

    return _WalConnection


def sqlite_connect_args(synchronous: Literal["NORMAL", "FULL"] = "NORMAL") -> dict[str, Any]:
    """``connect_args`` giving SQLAlchemy's sqlite3 connections WAL mode and ``synchronous``.

    Raises:
        HarnessConfigurationError: another ``synchronous`` level.
    """
    if synchronous not in ("NORMAL", "FULL"):
        raise HarnessConfigurationError("harness-dbos: sqlite_synchronous must be 'NORMAL' or 'FULL'")
    factory = type(f"_WalConnection{synchronous.title()}", (_wal_connection(),), {"synchronous": synchronous})
    return {"factory": factory}


def launch(url: str | None = None, *, name: str = "harness", directory: str | os.PathLike[str] | None = None,
           executor_id: str | None = None, application_version: str | None = None,
           sqlite_synchronous: Literal["NORMAL", "FULL"] = "NORMAL", **config: Any) -> None:
    """Build and launch DBOS on the system database (see :func:`database_url`).

    Args:
        name: the DBOS application name.
        executor_id: this worker's executor id (DBOS recovers the pending workflows of
            its own executor id at launch; the default ``local`` suits one machine).
        application_version: pin the version (by default DBOS hashes the workflow
            code: a worker with other code does not recover older turns).
        sqlite_synchronous: the SQLite ``synchronous`` level (see the module docstring).
        config: more ``DBOSConfig`` keys.
    """
    from dbos import DBOS, DBOSConfig

    from .claims import SqlClaimStore
    from .runtime_records import RuntimeRecords

    global _claims, _records
    resolved = database_url(url, directory=directory)
    settings: DBOSConfig = {"name": name, "system_database_url": resolved, "log_level": "WARNING",
                            "notification_listener_polling_interval_sec": 0.05}
    if executor_id is not None:
        settings["executor_id"] = executor_id
    if application_version is not None:
        settings["application_version"] = application_version
    connect_args = sqlite_connect_args(sqlite_synchronous) if resolved.startswith("sqlite:") else None
    if connect_args is not None:
        Path(resolved.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        settings["db_engine_kwargs"] = {"connect_args": connect_args}
    settings.update(config)  # type: ignore[typeddict-item]
    _claims = SqlClaimStore(resolved, sqlite_synchronous=sqlite_synchronous)
    _records = RuntimeRecords(resolved, connect_args=connect_args, sqlite_synchronous=sqlite_synchronous)
    DBOS(config=settings)
    DBOS.launch()


def destroy() -> None:
    """Shut DBOS down in this process (workflows still running are recovered later)."""
    from dbos import DBOS

    global _claims, _records
    DBOS.destroy(workflow_completion_timeout_sec=0)
    _claims = _records = None


def claims_store() -> ContinuationStore:
    """The claim store :func:`launch` made.

    Raises:
        HarnessConfigurationError: DBOS was not launched through :func:`launch` and the
            DurableAgent has no ``claims`` of its own (fail closed: no tool runs).
    """
    if _claims is None:
        raise HarnessConfigurationError(
            "harness-dbos: no claim store: launch DBOS with harness_dbos.launch(...) or give DurableAgent(claims=...)"
        )
    return _claims


def runtime_records() -> RuntimeRecords:
    """The records of runtime turns :func:`launch` made (:mod:`harness_dbos.runtime_records`).

    Raises:
        HarnessConfigurationError: DBOS was not launched through :func:`launch`.
    """
    if _records is None:
        raise HarnessConfigurationError("harness-dbos: no runtime records: launch DBOS with harness_dbos.launch(...)")
    return _records
