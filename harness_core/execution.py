"""Running host tools: the core's default ``harness_execute_tool`` implementation.

:func:`run_tool` calls a tool's ``execute`` (sync, async, generator or async generator),
applies the timeout and the ``on_error`` policy, and normalizes the result with
:func:`~harness_core.output.normalize_output`. Generator tools stream their yields as
preliminary results; the last yielded value is the final result.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import Any

import anyio

from .contexts import ExecutionContext
from .errors import HarnessError
from .hookspecs import hookimpl
from .output import ToolOutput, normalize_output
from .tools import ToolCall

__all__ = ["DefaultExecutor", "ToolExecutionError", "run_tool"]


class ToolExecutionError(HarnessError):
    """A host tool raised and the ``on_error`` policy is ``"fail"``; the turn fails.

    Attributes:
        tool_name: the tool that raised.
        tool_call_id: the call.
    """

    def __init__(self, tool_name: str, tool_call_id: str, cause: BaseException) -> None:
        super().__init__(f"tool {tool_name!r} (call {tool_call_id}) failed: {type(cause).__name__}: {cause}")
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id


async def _call(call: ToolCall, context: ExecutionContext) -> Any:
    execute = context.tool.execute
    if execute is None:
        raise HarnessError(f"tool {context.tool.name!r} is client-side (no execute); the host supplies its result")
    result = execute(call.input, context.tool_context)
    if inspect.isasyncgen(result):
        final: Any = None
        async for item in result:
            final = item
            if context.on_preliminary is not None:
                context.on_preliminary(item)
        return final
    if inspect.isgenerator(result):
        final = None
        for item in result:
            final = item
            if context.on_preliminary is not None:
                context.on_preliminary(item)
        return final
    if inspect.isawaitable(result):
        return await result
    return result


async def run_tool(call: ToolCall, context: ExecutionContext) -> ToolOutput:
    """Execute ``call`` with ``context.tool`` and return its bounded output.

    Raises:
        ToolExecutionError: ``execute`` raised (or timed out) and ``on_error`` is
            ``"fail"``; with ``"return-to-model"`` the error becomes an error result
            ``"<ExceptionType>: <message>"`` instead.
    """
    try:
        if context.timeout is not None:
            with anyio.fail_after(context.timeout):
                result = await _call(call, context)
        else:
            result = await _call(call, context)
        if context.tool.to_model_output is not None:
            result = context.tool.to_model_output(result)
            if inspect.isawaitable(result):
                result = await result
        return normalize_output(result)
    except TimeoutError as exc:
        if context.on_error == "fail":
            raise ToolExecutionError(context.tool.name, call.tool_call_id, exc) from exc
        return ToolOutput(f"Error: tool {context.tool.name!r} timed out after {context.timeout} s", is_error=True)
    except Exception as exc:
        if context.on_error == "fail":
            raise ToolExecutionError(context.tool.name, call.tool_call_id, exc) from exc
        return normalize_output(ToolOutput(f"Error: {type(exc).__name__}: {exc}", is_error=True))


class DefaultExecutor:
    """The ``default-executor`` plugin: runs ``tool.execute`` (tryfirst is not needed)."""

    @hookimpl(trylast=True)
    def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Awaitable[ToolOutput] | None:
        if context.tool.execute is None:
            return None
        return run_tool(call, context)
