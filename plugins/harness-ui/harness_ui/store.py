"""Where a chat's detached session waits between requests, keyed by chat id.

After each request the chat app detaches the session: a paused turn with
``await session.suspend_turn()`` (kind ``"suspended"``, continued with
``create_session(continue_from=state)``), an idle one with ``await session.stop()``
(kind ``"stopped"``, continued with ``resume_from=state``). The JSON state never holds
tool context (the core leaves it out); the application rebinds it per request.

:class:`ChatStore` is the protocol; :class:`SqliteChatStore` the default (stdlib
``sqlite3`` in WAL mode, one short transaction per call in a worker thread), so any
worker process and a restarted server continue the same chat. ``take`` removes the
record in the same transaction it reads it: a paused turn is continued at most once,
even when two workers get the same continuation.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import anyio.to_thread
import attrs

__all__ = ["ChatRecord", "ChatStore", "MemoryChatStore", "SqliteChatStore"]

RecordKind = Literal["suspended", "stopped"]


@attrs.frozen
class ChatRecord:
    """A detached session.

    Attributes:
        kind: ``"suspended"`` (a paused turn: ``continue_from``) or ``"stopped"`` (idle:
            ``resume_from``).
        state: the JSON state from the core (a mapping).
        message_id: the id of the assistant message the chat's last response streamed.
        updated_at: seconds since the epoch.
    """

    kind: RecordKind
    state: dict[str, Any]
    message_id: str | None = None
    updated_at: float = attrs.field(factory=time.time)


@runtime_checkable
class ChatStore(Protocol):
    """Storage of detached sessions by chat id. Implementations must be safe to use from
    several processes when the app runs with several workers."""

    async def take(self, chat_id: str) -> ChatRecord | None:
        """Remove and return the chat's record (``None`` when there is none), atomically."""
        ...

    async def put(self, chat_id: str, record: ChatRecord) -> None:
        """Store (or replace) the chat's record."""
        ...


class MemoryChatStore:
    """A process-local store (tests, single-process apps); lost on restart."""

    def __init__(self) -> None:
        self._records: dict[str, ChatRecord] = {}

    async def take(self, chat_id: str) -> ChatRecord | None:
        """See :meth:`ChatStore.take`."""
        return self._records.pop(chat_id, None)

    async def put(self, chat_id: str, record: ChatRecord) -> None:
        """See :meth:`ChatStore.put`."""
        self._records[chat_id] = record


_SCHEMA = """CREATE TABLE IF NOT EXISTS harness_chats (
    chat_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('suspended', 'stopped')),
    state TEXT NOT NULL,
    message_id TEXT,
    updated_at REAL NOT NULL
)"""


class SqliteChatStore:
    """A :class:`ChatStore` in an SQLite file (created with its parent directory).

    Args:
        path: the database file.
        timeout: seconds to wait for another process's write lock.

    Raises:
        sqlite3.Error: the file cannot be opened or is not a database (at construction).
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self._timeout = timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
        # WAL with synchronous=NORMAL: no corruption on a crash; a power loss may lose the
        # last few commits (a chat then starts its next turn from the state before).
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def _take(self, chat_id: str) -> ChatRecord | None:
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            row = connection.execute(
                "SELECT kind, state, message_id, updated_at FROM harness_chats WHERE chat_id = ?", (chat_id,)
            ).fetchone()
            if row is not None:
                connection.execute("DELETE FROM harness_chats WHERE chat_id = ?", (chat_id,))
            connection.execute("COMMIT")
        finally:
            connection.close()
        if row is None:
            return None
        kind, state, message_id, updated_at = row
        return ChatRecord(kind=kind, state=json.loads(state), message_id=message_id, updated_at=updated_at)

    def _put(self, chat_id: str, record: ChatRecord) -> None:
        connection = self._connect()
        try:
            connection.execute(
                "INSERT OR REPLACE INTO harness_chats (chat_id, kind, state, message_id, updated_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (chat_id, record.kind, json.dumps(record.state), record.message_id, record.updated_at),
            )
        finally:
            connection.close()

    async def take(self, chat_id: str) -> ChatRecord | None:
        """See :meth:`ChatStore.take`."""
        return await anyio.to_thread.run_sync(self._take, chat_id)

    async def put(self, chat_id: str, record: ChatRecord) -> None:
        """See :meth:`ChatStore.put`."""
        await anyio.to_thread.run_sync(self._put, chat_id, record)
