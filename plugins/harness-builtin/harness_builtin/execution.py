"""Running built-in calls: deadlines, expected errors, the ``on_error`` policy, and the
batch scheduler (read-only calls in parallel, the others one at a time, results in call
order)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

import anyio
import attrs

from harness_core.errors import HarnessError
from harness_core.tools.definition import HarnessTool, ToolContext
from harness_core.tools.output import ToolOutput, normalize_output

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


async def _invoke(tool: HarnessTool, validated_input: Any, context: ToolContext) -> Any:
    execute = tool.execute
    if execute is None:  # pragma: no cover - built-ins always execute
        raise ToolError(f"built-in tool {tool.name!r} has no execute function")
    if inspect.iscoroutinefunction(execute):
        return await execute(validated_input, context)
    # Blocking file work runs in a worker thread so read-only calls really run in parallel
    # and the deadline can abandon a stuck call.
    result = await anyio.to_thread.run_sync(
        functools.partial(execute, validated_input, context), abandon_on_cancel=True
    )
    if inspect.isawaitable(result):
        result = await result
    return result


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
            result = await _invoke(tool, validated_input, context)
        else:
            with anyio.fail_after(deadline):
                result = await _invoke(tool, validated_input, context)
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
        if on_error == "fail":
            raise BuiltinToolFailure(tool.name, context.tool_call_id, exc) from exc
        return ToolOutput(f"Error: {type(exc).__name__}: {exc}", is_error=True)


@attrs.frozen
class ScheduledCall:
    """One call of a batch: whether it may run in parallel, and how to run it."""

    read_only: bool
    run: Callable[[], Awaitable[ToolOutput]]


async def run_batch(calls: Sequence[ScheduledCall], *, concurrency: int) -> list[ToolOutput]:
    """Run a model response's calls and return their outputs in call order.

    Consecutive read-only calls run in parallel, at most ``concurrency`` at a time; any
    other call runs alone, after the calls before it finished and before the calls after
    it start. An exception from one call cancels the batch and propagates.
    """
    results: list[ToolOutput | None] = [None] * len(calls)
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(index: int) -> None:
        async with limiter:
            results[index] = await calls[index].run()

    index = 0
    while index < len(calls):
        if not calls[index].read_only:
            results[index] = await calls[index].run()
            index += 1
            continue
        end = index
        while end < len(calls) and calls[end].read_only:
            end += 1
        if end - index == 1:
            results[index] = await calls[index].run()
        else:
            async with anyio.create_task_group() as group:
                for position in range(index, end):
                    group.start_soon(one, position)
        index = end
    return [result for result in results if result is not None]
