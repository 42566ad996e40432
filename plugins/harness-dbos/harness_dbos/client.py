"""DurableClient: reach durable turns from a process that runs no workflow.

It talks only to the system database (``dbos.DBOSClient``): read a turn's parts from any
offset while it runs, read its status, answer its approvals and client-side calls, list
the turns.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from .launch import database_url
from .messages import ANSWERS_TOPIC, STATUS_EVENT, answers_message
from .publish import PARTS_STREAM, read_parts

__all__ = ["DurableClient"]


class DurableClient:
    """A client of the durable turns in one system database.

    Args:
        url: the system database (see :func:`harness_dbos.database_url`; the same default
            SQLite file, ``$HARNESS_DBOS_DATABASE_URL``, or a Postgres URL).
        directory: where the default SQLite file is.

    Raises:
        HarnessConfigurationError: a malformed URL; DBOS errors when the database cannot
            be reached.
    """

    def __init__(self, url: str | None = None, *, directory: str | None = None) -> None:
        from dbos import DBOSClient

        self.url = database_url(url, directory=directory)
        self._client = DBOSClient(system_database_url=self.url)

    def close(self) -> None:
        """Release the database connections."""
        self._client.destroy()

    def __enter__(self) -> DurableClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def parts(self, workflow_id: str, *, offset: int = 0, timeout: float | None = None) -> AsyncIterator[dict[str, Any]]:
        """The turn's parts (JSON, AI SDK shapes) from part index ``offset``, as they are
        published, until the turn ends.

        Raises:
            dbos.error.DBOSStreamTimeoutError: no part for ``timeout`` seconds.
        """
        batches = self._client.read_stream_async(workflow_id, PARTS_STREAM, polling_interval_sec=0.05,
                                                 timeout_seconds=timeout)
        async for part in read_parts(batches, offset):
            yield part

    async def status(self, workflow_id: str, *, timeout: float = 0.0) -> dict[str, Any] | None:
        """The turn's last published status (``state``, ``parts``, pending approvals and
        calls; ``finish_reason`` once finished), or ``None`` before its first pause."""
        value: dict[str, Any] | None = await self._client.get_event_async(workflow_id, STATUS_EVENT, timeout_seconds=timeout)
        return value

    async def answer(self, workflow_id: str, *, approval_responses: Sequence[Mapping[str, Any]] = (),
                     tool_results: Sequence[Mapping[str, Any]] = (), idempotency_key: str | None = None) -> None:
        """Send answers to a paused turn (see :meth:`harness_dbos.DurableAgent.answer`)."""
        message, key = answers_message(approval_responses, tool_results)
        await self._client.send_async(workflow_id, message, ANSWERS_TOPIC, idempotency_key=idempotency_key or key)

    async def result(self, workflow_id: str) -> dict[str, Any]:
        """Wait for the turn's result."""
        handle: Any = await self._client.retrieve_workflow_async(workflow_id)
        value: dict[str, Any] = await handle.get_result(polling_interval_sec=0.1)
        return value

    def turns(self, *, limit: int = 100) -> list[dict[str, Any]]:
        """The newest turn workflows: ``workflow_id``, ``name``, DBOS ``status``
        (``PENDING``, ``SUCCESS``, ``ERROR``...), ``session_id``, ``created_at`` (ms)."""
        rows = self._client.list_workflows(limit=limit, sort_desc=True, load_input=True, load_output=False)
        found = []
        for row in rows:
            if not str(row.name).startswith("harness.turn."):
                continue
            inputs: Any = row.input
            args = inputs.get("args") if isinstance(inputs, dict) else None
            request = args[0] if args else None
            session_id = request.get("session_id") if isinstance(request, dict) else None
            found.append({"workflow_id": row.workflow_id, "name": row.name, "status": row.status,
                          "session_id": session_id, "created_at": row.created_at})
        return found
