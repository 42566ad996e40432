"""Exactly-once continuation: a store that lets each suspended state be continued only once.

**The replay hazard.** Suspended state (``session.suspend_turn()``) is a value: nothing in it
changes when it is used, so continuing the same state twice (a retried request, two workers
reading the same queue message, a user double-clicking "approve") runs its approved calls
twice, in whatever processes do it. A signature (``state_secret=``) does not prevent this.

Give the agent a :class:`ContinuationStore` (``HarnessAgent(continuation_store=...)``) and
``create_session(continue_from=state)`` first *claims* the state: the first claim of a state,
in any process sharing the store, succeeds; every later one raises
:class:`ContinuationReplayError` before the runtime is started, so nothing runs twice. A
claimed state is spent even if its process dies before continuing (at most once); suspend the
turn again for a new state. The key is the SHA-256 of the state's canonical JSON (keys sorted,
no whitespace, the ``signature`` key left out), so the same state given as a mapping or as
JSON text is the same claim.

:class:`SqliteContinuationStore` (stdlib :mod:`sqlite3`, one file, safe across processes on
one machine) is the default implementation; anything with a ``claim`` method satisfying the
:class:`ContinuationStore` protocol works (a database row with a unique key, Redis ``SET NX``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness_core.errors import HarnessConfigurationError, TurnStateError

__all__ = ["ContinuationReplayError", "ContinuationStore", "SqliteContinuationStore", "claim_state", "state_key"]


class ContinuationReplayError(TurnStateError):
    """This suspended state was already continued (claimed in the agent's continuation store)."""


@runtime_checkable
class ContinuationStore(Protocol):
    """Records which suspended states were continued.

    ``claim`` must be atomic across every process sharing the store: exactly one caller
    gets ``True`` for a key. It may raise; the agent then refuses to continue (fail closed).
    """

    def claim(self, key: str, session_id: str) -> bool:
        """Claim ``key`` (a 64-hex-digit state digest) for ``session_id``; ``False`` if it was claimed before."""
        ...


def state_key(state: Mapping[str, Any]) -> str:
    """The SHA-256 hex digest of ``state``'s canonical JSON, without its ``signature``."""
    body = {k: v for k, v in state.items() if k != "signature"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SqliteContinuationStore:
    """A :class:`ContinuationStore` in one SQLite file (table ``harness_continuations``).

    Args:
        path: the database file (created with its parent directory if missing).
        timeout: seconds to wait for another process's write lock.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self._timeout = timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS harness_continuations (key TEXT PRIMARY KEY, "
                           "session_id TEXT NOT NULL, claimed_at REAL NOT NULL, pid INTEGER NOT NULL)")
        except (OSError, sqlite3.Error) as exc:
            raise HarnessConfigurationError(f"continuation store {str(self.path)!r} cannot be opened: {exc}") from None

    def __repr__(self) -> str:
        return f"SqliteContinuationStore({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)

    def claim(self, key: str, session_id: str) -> bool:
        """Insert ``key`` unless present, in one statement (atomic under SQLite's write lock)."""
        db = self._connect()
        try:
            cursor = db.execute("INSERT OR IGNORE INTO harness_continuations VALUES (?, ?, ?, ?)",
                                (key, session_id, time.time(), os.getpid()))
            return cursor.rowcount == 1
        finally:
            db.close()


def claim_state(store: ContinuationStore | None, state: Mapping[str, Any], session_id: str) -> None:
    """Claim ``state`` in ``store`` (no-op without a store).

    Raises:
        ContinuationReplayError: the state was claimed before, or the store failed.
    """
    if store is None:
        return
    key = state_key(state)
    try:
        claimed = store.claim(key, session_id)
    except Exception as exc:
        raise ContinuationReplayError(
            f"continue_from: the continuation store failed ({type(exc).__name__}: {exc}); not continuing, "
            "since the state might have been continued already") from None
    if claimed is not True:
        raise ContinuationReplayError(
            f"continue_from: this suspended state of session {session_id!r} was already continued "
            f"(claim {key[:12]}... in {store!r}); continuing it again would run its approved calls twice")
