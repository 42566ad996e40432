"""A tool execution of the built-in harness's durable turn, recorded by call id on the
event loop (SQLite): a host tool (``harness_execute_tool``) or a built-in the built-in
harness runs in this process (``harness_execute_builtin``: ``read``, ``write``, ``bash``...).

The model requests of the turn are DBOS steps, so the tool call ids of a replayed response
are the recorded ones: a call id names one execution across every execution of the turn.
Each execution is recorded in the table ``harness_dbos_runtime``
(:class:`~harness_dbos.runtime_records.RuntimeRecords`) under
``(workflow id, "<kind>-result", "<call id>#<n>")`` (``n`` counts earlier executions of the
same call id in this turn, 0 unless a model repeats ids), instead of as a positional DBOS
step (about 2 ms of CPU each):

1. a recorded outcome for the key is returned as it was (the tool is not run);
2. otherwise the execution is claimed in the turn's claim store (one claim per key across
   every worker): a key found claimed and unrecorded was interrupted by a crash, is not run
   again, and records :data:`~harness_dbos.INTERRUPTED` as its error result;
3. the tool runs and its outcome (the output without its host-only ``exception``, or the
   exception with ``on_error="fail"``, as a :class:`~harness_dbos._recorded.Failure`) is
   recorded; the first record of a key wins (a racing worker's ``INTERRUPTED`` included).

On SQLite the record reads and writes and the claim are single ``sqlite3`` statements on
the event loop (no thread hop); other stores go through a worker thread.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
import attrs

from harness_core import ToolCall, ToolOutput

from ._context import TurnRuntime
from ._recorded import Failure, Outcome
from .runtime_records import RuntimeRecords, record_key
from .tool_step import INTERRUPTED, _discard

__all__ = ["inline_tool_call", "result_kind", "uses_inline_records"]


def result_kind(kind: str) -> str:
    """The record kind of ``kind``'s executions: ``host-tool-result`` or ``builtin-result``."""
    return f"{kind}-result"


async def _call(inline: bool, function: Callable[..., Any], *args: Any) -> Any:
    return function(*args) if inline else await anyio.to_thread.run_sync(function, *args)


async def inline_tool_call(awaitable: Awaitable[ToolOutput], call: ToolCall, runtime: TurnRuntime,
                           kind: Literal["host-tool", "builtin"] = "host-tool") -> ToolOutput:
    """Run ``awaitable`` (the execution of ``call``) at most once per key of the turn.

    Returns:
        the tool's output (with its ``exception`` in the process that ran it), the recorded
        one on a replay, or :data:`~harness_dbos.INTERRUPTED` as an error result when an
        earlier worker started it and died before recording it.

    Raises:
        whatever the execution raised (``on_error="fail"``), rebuilt from the record.
    """
    records = runtime.tool_records
    assert records is not None
    workflow_id = runtime.workflow_id
    occurrence = runtime.occurrence(f"{kind}\0{call.tool_call_id}")
    key = record_key(workflow_id, result_kind(kind), f"{call.tool_call_id}#{occurrence}")
    inline = records.records_inline
    started = False
    try:
        recorded: Outcome | None = await _call(inline, records.get, key)
        if recorded is not None:
            output: ToolOutput = recorded.unwrap()
            return output
        await _check_owner(inline, records, workflow_id)  # a stale execution neither claims nor records
        claim = hashlib.sha256(f"harness-dbos/inline-tool\0{key}".encode()).hexdigest()
        claims_inline = bool(getattr(runtime.claims, "claims_inline", False))
        if not await _call(claims_inline, runtime.claims.claim, claim, workflow_id):
            recorded = Outcome(value=ToolOutput(INTERRUPTED, is_error=True))
            live: ToolOutput | None = None
        else:
            started = True
            recorded, live = await _execute(awaitable)
        if not await _call(inline, records.put, key, workflow_id, recorded):
            recorded, live = await _call(inline, records.get, key), None  # the first record wins
            assert recorded is not None
        if started:
            await _check_owner(inline, records, workflow_id)  # lost the turn while the tool ran: stop here
    finally:
        if not started:
            _discard(awaitable)
    if live is not None:
        return live
    output = recorded.unwrap()
    return output


async def _check_owner(inline: bool, records: RuntimeRecords, workflow_id: str) -> None:
    """Stop an execution that no longer owns its workflow (DBOS handed it to a recovery).

    DBOS checks ownership when it records a step, not when it replays one: an execution that
    lost its turn while a tool ran would otherwise replay the new owner's model responses and
    reach the next calls. Raises ``dbos.DBOSWorkflowConflictIDError`` (a ``BaseException``,
    as DBOS raises at a step) when DBOS's owner token of the workflow is not this
    execution's; nothing outside a DBOS workflow (and no store but SQLite) is checked.
    """
    if not inline:
        return
    from dbos._context import current_owner_xid  # DBOS's token of this execution (not public)
    from dbos._error import DBOSWorkflowConflictIDError

    mine = current_owner_xid(workflow_id)
    if mine is not None and records.owner(workflow_id) != mine:
        raise DBOSWorkflowConflictIDError(workflow_id)


async def _execute(awaitable: Awaitable[ToolOutput]) -> tuple[Outcome, ToolOutput | None]:
    try:
        output = await awaitable
    except Exception as exc:
        return Outcome(failure=Failure.of(exc)), None
    # an exception object need not pickle (nor unpickle): it is never recorded
    return Outcome(value=output if output.exception is None else attrs.evolve(output, exception=None)), output


def uses_inline_records(records: RuntimeRecords | None) -> bool:
    """Whether built-in turns record tool executions by call id in ``records`` (SQLite)."""
    return records is not None and records.records_inline
