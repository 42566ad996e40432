"""Running host tools: the core's default ``harness_execute_tool`` implementation.

:func:`run_tool` calls a tool's ``execute`` (sync, async, generator or async generator),
applies the timeout and the ``on_error`` policy, and normalizes the result with
:func:`~harness_core.tools.output.normalize_output`. Generator tools stream their yields as
preliminary results; the last yielded value is the final result.

Where the code runs:

* ``async def`` functions (and async generators) run on the event loop, like any
  coroutine: they must not block.
* Plain ``def`` functions run in a worker thread (:func:`anyio.to_thread.run_sync`), so a
  blocking tool (``time.sleep``, a synchronous HTTP client, heavy computation) never
  stalls the event loop: read-only sync tools really run in parallel, and a timeout or an
  abort ends the call promptly. The same holds for each step of a sync generator and for
  a sync ``to_model_output``. At most :data:`TOOL_THREAD_LIMIT` such calls run at once per
  event loop (the others wait for a thread).
* A thread cannot be killed: when a timeout or an abort gives up on a sync call, the call
  is *abandoned*: its result is ignored and the thread finishes in the background. Make
  long-running sync tools check a deadline themselves, or write them ``async``.
* The :class:`~harness_core.tools.definition.ToolContext` is an immutable value and is safe to read
  from the thread. Its ``sandbox`` methods are coroutines, though: a tool that uses the
  sandbox should be ``async def``; a sync tool can call one through
  ``anyio.from_thread.run(ctx.sandbox.read_text_file, path)``.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Final, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar

from harness_core.errors import HarnessError
from harness_core.hook_contexts import ExecutionContext
from harness_core.hookspecs import hookimpl
from harness_core.tools.definition import ToolCall
from harness_core.tools.output import ToolOutput, normalize_output

__all__ = ["TOOL_THREAD_LIMIT", "DefaultExecutor", "ToolExecutionError", "run_tool", "tool_thread_limiter"]

T = TypeVar("T")

TOOL_THREAD_LIMIT: Final = 32
"""How many sync tool calls (``execute``, generator steps, ``to_model_output``) may run in
worker threads at once, per event loop."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("harness_core.tool_thread_limiter")
_DONE: Final = object()


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


def tool_thread_limiter() -> anyio.CapacityLimiter:
    """The capacity limiter (one per event loop) bounding sync tool calls in worker threads.

    It has :data:`TOOL_THREAD_LIMIT` tokens; adjust ``total_tokens`` on it to change the
    bound for the running event loop. Must be called from async code.
    """
    try:
        return _LIMITER.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(TOOL_THREAD_LIMIT)
        _LIMITER.set(limiter)
        return limiter


async def _in_thread(function: Callable[..., T], *args: Any) -> T:
    # abandon_on_cancel: a timeout or an abort returns now; the thread finishes on its own.
    return await anyio.to_thread.run_sync(function, *args, abandon_on_cancel=True, limiter=tool_thread_limiter())


def _is_async(function: Callable[..., Any]) -> bool:
    """True for coroutine and async-generator functions (callable objects included)."""
    candidates = (function, getattr(function, "__call__", None))  # noqa: B004 - an async __call__
    return any(
        candidate is not None and (inspect.iscoroutinefunction(candidate) or inspect.isasyncgenfunction(candidate))
        for candidate in candidates
    )


def _next_or_done(iterator: Iterator[Any]) -> Any:
    # StopIteration must not cross the thread boundary (futures refuse it).
    return next(iterator, _DONE)


async def _drain(result: Any, context: ExecutionContext) -> Any:
    """The final value of whatever ``execute`` returned: await it, or iterate a generator."""
    if inspect.isasyncgen(result):
        final: Any = None
        async for item in result:
            final = item
            if context.on_preliminary is not None:
                context.on_preliminary(item)
        return final
    if inspect.isgenerator(result):
        final = None
        while (item := await _in_thread(_next_or_done, result)) is not _DONE:
            final = item
            if context.on_preliminary is not None:
                context.on_preliminary(item)
        return final
    if inspect.isawaitable(result):
        return await result
    return result


async def _call(call: ToolCall, context: ExecutionContext) -> Any:
    execute = context.tool.execute
    if execute is None:
        raise HarnessError(f"tool {context.tool.name!r} is client-side (no execute); the host supplies its result")
    if _is_async(execute) or inspect.isgeneratorfunction(execute):
        # Calling these only creates a coroutine or generator; the body runs below.
        result = execute(call.input, context.tool_context)
    else:
        result = await _in_thread(execute, call.input, context.tool_context)
    return await _drain(result, context)


async def _to_model_output(context: ExecutionContext, result: Any) -> Any:
    convert = context.tool.to_model_output
    if convert is None:
        return result
    converted: Any = convert(result) if _is_async(convert) else await _in_thread(convert, result)
    if inspect.isawaitable(converted):
        converted = await converted
    return converted


async def run_tool(call: ToolCall, context: ExecutionContext) -> ToolOutput:
    """Execute ``call`` with ``context.tool`` and return its bounded output.

    Sync code runs in a worker thread (see the module docs); ``context.timeout`` bounds
    the whole call, ``to_model_output`` included.

    Returns:
        The normalized output. With ``on_error="return-to-model"``, a raise (or timeout)
        becomes an error result ``"Error: <ExceptionType>: <message>"`` (or ``"Error: tool
        'x' timed out after N s"``) whose :attr:`~harness_core.tools.output.ToolOutput.exception`
        holds the exception, for ``on_tool_execution_end``.

    Raises:
        ToolExecutionError: ``execute`` or ``to_model_output`` raised (or timed out) and
            ``on_error`` is ``"fail"``.
    """
    deadline = math.inf if context.timeout is None else anyio.current_time() + context.timeout
    try:
        with anyio.CancelScope(deadline=deadline):
            result = await _call(call, context)
            result = await _to_model_output(context, result)
            return normalize_output(result)
    except Exception as exc:  # a TimeoutError the tool raised itself lands here too
        if context.on_error == "fail":
            raise ToolExecutionError(context.tool.name, call.tool_call_id, exc) from exc
        return normalize_output(ToolOutput(f"Error: {type(exc).__name__}: {exc}", is_error=True, exception=exc))
    # Only the deadline's cancellation gets here (any other cancellation propagates).
    timeout = TimeoutError(f"tool {context.tool.name!r} timed out after {context.timeout} s")
    if context.on_error == "fail":
        raise ToolExecutionError(context.tool.name, call.tool_call_id, timeout)
    return ToolOutput(f"Error: {timeout}", is_error=True, exception=timeout)


class DefaultExecutor:
    """The ``default-executor`` plugin: runs ``tool.execute`` (tryfirst is not needed)."""

    @hookimpl(trylast=True)
    def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Awaitable[ToolOutput] | None:
        if context.tool.execute is None:
            return None
        return run_tool(call, context)
