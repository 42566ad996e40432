"""A tool execution as a DBOS step, started at most once (the path of built-in harness turns
on Postgres, or without :func:`harness_dbos.launch`'s records; on SQLite they are recorded
by call id instead, :mod:`harness_dbos.inline_tool`): a host tool
(``harness_execute_tool``) or a built-in the built-in harness runs in this process
(``harness_execute_builtin``: ``read``, ``write``, ``edit``, ``bash``..., its MCP tools).

DBOS records a step's output once it returns, and a replay returns the record without
running the step again. A worker killed *while* a tool runs leaves the step unrecorded,
and DBOS alone would run it again on recovery (at least once). So the step first claims
``sha256(kind, workflow id, step id, call id)`` in the turn's claim store (a
:class:`harness_core.ContinuationStore`, by default a
:class:`harness_core.SqliteContinuationStore`): only the first claim executes the tool;
an execution found claimed but unrecorded was interrupted, is not run again, and gives
the model :data:`INTERRUPTED` as an error result. A completed execution is never repeated;
an interrupted one is never repeated either (at most once), and the model is told so.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Awaitable
from typing import Literal

import anyio
import attrs

from harness_core import ToolCall, ToolOutput

from ._context import TurnRuntime
from ._recorded import run_recorded_step

__all__ = ["INTERRUPTED", "durable_tool_call"]

INTERRUPTED = (
    "Error: the worker running this tool stopped before its result was recorded; the tool was "
    "not run again (it may have partly run). Check its effects before calling it again."
)
"""The error result of an execution that a crash interrupted."""


def _claim_key(runtime: TurnRuntime, step_id: object, call: ToolCall, kind: str) -> str:
    text = f"harness-dbos/{kind}\0{runtime.workflow_id}\0{step_id}\0{call.tool_call_id}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def durable_tool_call(awaitable: Awaitable[ToolOutput], call: ToolCall, runtime: TurnRuntime,
                            kind: Literal["host-tool", "builtin"] = "host-tool") -> ToolOutput:
    """Run ``awaitable`` (the execution the inner ``harness_execute_tool`` /
    ``harness_execute_builtin`` implementations returned) as the step ``<kind>:<name>``
    of the running turn.

    Returns:
        the tool's output, or :data:`INTERRUPTED` as an error result when an earlier
        worker started this execution and died before recording it. The record holds the
        output without its host-only ``exception`` (this process's caller still gets it).

    Raises:
        whatever the execution raised (``on_error="fail"``), rebuilt from the record on a
        replay.
    """
    from dbos import DBOS

    started = False
    live: ToolOutput | None = None

    async def execute() -> ToolOutput:
        nonlocal started, live
        key = _claim_key(runtime, DBOS.step_id, call, kind)
        if getattr(runtime.claims, "claims_inline", False):  # a local SQLite insert: no thread hop
            claimed = runtime.claims.claim(key, runtime.workflow_id)
        else:
            claimed = await anyio.to_thread.run_sync(runtime.claims.claim, key, runtime.workflow_id)
        if not claimed:
            return ToolOutput(INTERRUPTED, is_error=True)
        started = True
        live = await awaitable
        # an exception object need not pickle (nor unpickle): it is never recorded
        return live if live.exception is None else attrs.evolve(live, exception=None)

    try:
        recorded: ToolOutput = await run_recorded_step(f"{kind}:{call.tool_name}", execute)
        return live if live is not None else recorded
    finally:
        if not started:
            _discard(awaitable)  # replayed or interrupted: the execution never runs


def _discard(awaitable: object) -> None:
    """Close a coroutine that will never run, and the unstarted coroutines it was given
    as arguments (the inner ``harness_execute_tool`` layers), so none warns that it was
    never awaited."""
    if not inspect.iscoroutine(awaitable):
        return
    created = inspect.getcoroutinestate(awaitable) == inspect.CORO_CREATED
    frame = awaitable.cr_frame
    arguments = list(frame.f_locals.values()) if created and frame is not None else []
    awaitable.close()
    for argument in arguments:
        _discard(argument)
