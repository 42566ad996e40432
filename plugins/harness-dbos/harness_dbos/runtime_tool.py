"""A host-tool execution of a runtime turn (Claude Code...), recorded by call id.

In a turn whose runtime owns its loop, :class:`~harness_dbos.DurableAgent` runs the
runtime inside one DBOS step per slice, and a host tool is not a positional DBOS step (a
resumed runtime calls its tools in another order, see :mod:`harness_dbos.runtime_records`).
Each execution is instead recorded under ``(workflow id, tool call id)``:

1. a recorded result for the call id is returned as it was, and the tool is not run;
2. otherwise the call is claimed in the turn's claim store (one claim per call id across
   every worker) and its name and input are recorded as *started*: a call found claimed
   and unrecorded was interrupted by a crash, is not run again, and gets
   :data:`~harness_dbos.INTERRUPTED` as its (recorded) error result;
3. the tool runs and its result (or the exception with ``on_error="fail"``) is recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable
from typing import Any

import anyio
import attrs

from harness_core import ToolCall, ToolOutput

from ._context import TurnRuntime
from ._recorded import Failure, Outcome
from .runtime_records import RuntimeRecords, record_key
from .tool_step import INTERRUPTED, _discard

__all__ = ["RESULT", "STARTED", "recorded_tool_call"]

STARTED = "tool-started"
"""Record kind: ``{"tool_name", "input"}`` of a call whose execution was claimed."""
RESULT = "tool-result"
"""Record kind: the :class:`~harness_dbos._recorded.Outcome` of an execution."""


async def recorded_tool_call(awaitable: Awaitable[ToolOutput], call: ToolCall, runtime: TurnRuntime) -> ToolOutput:
    """Run ``awaitable`` (the execution of ``call``) at most once per call id of the turn.

    Returns:
        the tool's output, the recorded one on a replay, or :data:`INTERRUPTED` as an error
        result when an earlier worker started it and died before recording it.

    Raises:
        whatever the execution raised (``on_error="fail"``), rebuilt from the record.
    """
    records = runtime.records
    assert records is not None
    workflow_id = runtime.workflow_id
    result_key = record_key(workflow_id, RESULT, call.tool_call_id)
    started = False
    try:
        recorded: Outcome | None = await anyio.to_thread.run_sync(records.get, result_key)
        if recorded is None:
            claim = hashlib.sha256(f"harness-dbos/runtime-tool\0{result_key}".encode()).hexdigest()
            if await anyio.to_thread.run_sync(runtime.claims.claim, claim, workflow_id):
                started = True
                recorded = await _execute(awaitable, call, records, workflow_id)
            else:
                recorded = Outcome(value=ToolOutput(INTERRUPTED, is_error=True))
            await anyio.to_thread.run_sync(records.put, result_key, workflow_id, recorded)
            recorded = await anyio.to_thread.run_sync(records.get, result_key)  # the first record wins
            assert recorded is not None
    finally:
        if not started:
            _discard(awaitable)
    output: ToolOutput = recorded.unwrap()
    return output


async def _execute(awaitable: Awaitable[ToolOutput], call: ToolCall, records: RuntimeRecords,
                   workflow_id: str) -> Outcome:
    started: dict[str, Any] = {"tool_name": call.tool_name, "input": call.input}
    await anyio.to_thread.run_sync(records.put, record_key(workflow_id, STARTED, call.tool_call_id),
                                   workflow_id, started)
    try:
        output = await awaitable
    except Exception as exc:
        return Outcome(failure=Failure.of(exc))
    return Outcome(value=attrs.evolve(output, exception=None))
