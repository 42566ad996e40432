"""Running built-in calls on the core's executor and call scheduler.

:func:`execute_builtin` runs one call with :func:`harness_core.invoke_tool` (the one
executor: sync tools in a worker thread, async and generator tools on the loop) and adds
what only built-ins have: a deadline and expected errors (:class:`~harness_builtin.tools.ToolError`,
OS errors) as error results; the adapter's ``on_error`` setting for the rest is applied by
the core's :func:`harness_core.settle_error`.
:func:`run_batch` schedules a model response's calls with :class:`harness_core.CallScheduler`
(read-only calls in parallel, the others one at a time, in call order).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

import anyio
import attrs

from harness_core import (
    CallScheduler,
    ExecutionContext,
    HarnessError,
    HarnessTool,
    ToolCall,
    ToolContext,
    ToolExecutionError,
    ToolOutput,
    invoke_tool,
    normalize_output,
    settle_error,
)

from .tools._common import ToolError, describe_os_error

__all__ = ["BuiltinToolFailure", "ScheduledCall", "execute_builtin", "run_batch"]


class BuiltinToolFailure(HarnessError):
    """A built-in tool raised unexpectedly and the ``on_error`` policy is ``"fail"``.

    Attributes:
        tool_name: the tool.
        tool_call_id: the call.
    """

    def __init__(self, tool_name: str, tool_call_id: str, cause: BaseException) -> None:
        super().__init__(f"built-in tool {tool_name!r} (call {tool_call_id}) failed: {type(cause).__name__}: {cause}")
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id


async def execute_builtin(
    tool: HarnessTool,
    validated_input: Any,
    context: ToolContext,
    *,
    deadline: float | None = None,
    on_error: Literal["return-to-model", "fail"] = "return-to-model",
) -> ToolOutput:
    """Run one built-in call and return its bounded output.

    Expected failures (:class:`~harness_builtin.tools.ToolError`, OS errors such as a
    missing file or a path outside the workspace) and a passed ``deadline`` (seconds)
    always become error results. Any other exception follows ``on_error``.

    Raises:
        BuiltinToolFailure: an unexpected exception with ``on_error="fail"``.
    """
    try:
        if deadline is None:
            result = await invoke_tool(tool, validated_input, context)
        else:
            with anyio.fail_after(deadline):
                result = await invoke_tool(tool, validated_input, context)
        return normalize_output(result)
    except ToolError as exc:
        return ToolOutput(f"Error: {exc}", is_error=True)
    except TimeoutError:
        return ToolOutput(
            f"Error: {tool.name} did not finish within its {deadline:g} s deadline and was stopped",
            is_error=True,
        )
    except OSError as exc:
        return ToolOutput("Error: " + describe_os_error(exc, str(exc.filename or "")), is_error=True)
    except Exception as exc:
        # The on_error decision is the core's (settle_error); only the error type is ours.
        call = ToolCall(tool_call_id=context.tool_call_id, tool_name=tool.name, input=validated_input)
        try:
            return settle_error(exc, call, ExecutionContext(tool=tool, tool_context=context, on_error=on_error))
        except ToolExecutionError:
            raise BuiltinToolFailure(tool.name, context.tool_call_id, exc) from exc


@attrs.frozen
class ScheduledCall:
    """One call of a batch: whether it may run in parallel, and how to run it."""

    read_only: bool
    run: Callable[[], Awaitable[ToolOutput]]


async def run_batch(calls: Sequence[ScheduledCall], *, concurrency: int) -> list[ToolOutput]:
    """Run a model response's calls and return their outputs in call order.

    Consecutive read-only calls run in parallel, at most ``concurrency`` at a time; any
    other call runs alone, after the calls before it finished and before the calls after
    it start (:class:`harness_core.CallScheduler`, slots taken in call order). An exception
    from one call cancels the batch and propagates unchanged.
    """
    if len(calls) == 1:
        return [await calls[0].run()]
    scheduler = CallScheduler(max_parallel=concurrency)
    slots = [scheduler.slot(read_only=call.read_only) for call in calls]
    results: list[ToolOutput | None] = [None] * len(calls)
    failures: list[BaseException] = []

    async def one(index: int) -> None:
        try:
            async with slots[index]:
                results[index] = await calls[index].run()
        except Exception as exc:
            failures.append(exc)
            group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        for index in range(len(calls)):
            group.start_soon(one, index)
    if failures:
        raise failures[0]
    return [result for result in results if result is not None]
