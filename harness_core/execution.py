"""Running tool calls: the one executor, the execution policies, and the call scheduler.

**The executor.** :func:`invoke_tool` calls a tool's ``execute`` (sync, async, generator or
async generator) and its ``to_model_output``; :func:`execute_call` turns the value into a
:class:`~harness_core.tools.output.ToolOutput` (not yet cut). Generator tools stream their
yields as preliminary results; the last yielded value is the final result. The core's
``default-executor`` plugin runs host tools with it, and harness-builtin runs its
built-ins with it.

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

**The policies** (each an ``harness_execute_tool`` wrapper the core registers, see
:mod:`harness_core.plugins.execution_policy`): :func:`within_timeout` (``context.timeout``),
:func:`settle_error` (the ``on_error`` policy, the only place it is read) and the
:data:`~harness_core.tools.output.MAX_OUTPUT_CHARS` cut of
:func:`~harness_core.tools.output.normalize_output`. :func:`run_tool` composes all of it
for one call without the plugin manager.

**The scheduler.** :class:`CallScheduler` admits calls in arrival order: read-only calls
run in parallel (optionally at most ``max_parallel`` at once), any other call runs alone,
after every call admitted before it and before every call admitted after it.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from types import TracebackType
from typing import Any, Final, TypeVar

import anyio
import anyio.lowlevel
import anyio.to_thread
from anyio.lowlevel import RunVar

from harness_core.errors import HarnessError
from harness_core.hook_contexts import BuiltinExecutionContext, ExecutionContext
from harness_core.hookspecs import hookimpl
from harness_core.tools.definition import HarnessTool, ToolCall, ToolContext
from harness_core.tools.output import ToolOutput, normalize_output

__all__ = [
    "TOOL_THREAD_LIMIT",
    "CallScheduler",
    "DefaultExecutor",
    "ToolExecutionError",
    "ToolTimeout",
    "execute_call",
    "invoke_tool",
    "run_tool",
    "settle_error",
    "tool_thread_limiter",
    "within_timeout",
]

T = TypeVar("T")

TOOL_THREAD_LIMIT: Final = 32
"""How many sync tool calls (``execute``, generator steps, ``to_model_output``) may run in
worker threads at once, per event loop."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("harness_core.tool_thread_limiter")
_DONE: Final = object()
_UNBOUNDED: Final = 2**62


class ToolTimeout(TimeoutError):
    """The call passed its ``timeout``; reported as ``TimeoutError`` with this message."""


def _type_name(exc: BaseException) -> str:
    return "TimeoutError" if isinstance(exc, ToolTimeout) else type(exc).__name__


class ToolExecutionError(HarnessError):
    """A host tool raised and the ``on_error`` policy is ``"fail"``; the turn fails.

    Attributes:
        tool_name: the tool that raised.
        tool_call_id: the call.
    """

    def __init__(self, tool_name: str, tool_call_id: str, cause: BaseException) -> None:
        super().__init__(f"tool {tool_name!r} (call {tool_call_id}) failed: {_type_name(cause)}: {cause}")
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
    """True for coroutine and async-generator functions (callable objects included).

    Remembered per function object (a tool's ``execute`` is asked on every call); objects
    that cannot be weakly referenced or hashed are inspected each time.
    """
    try:
        return _ASYNC_KINDS[function]
    except (KeyError, TypeError):
        pass
    answer = _inspect_async(function)
    with contextlib.suppress(TypeError):
        _ASYNC_KINDS[function] = answer
    return answer


_ASYNC_KINDS: weakref.WeakKeyDictionary[Callable[..., Any], bool] = weakref.WeakKeyDictionary()


def _inspect_async(function: Callable[..., Any]) -> bool:
    candidates = (function, getattr(function, "__call__", None))  # noqa: B004 - an async __call__
    return any(
        candidate is not None and (inspect.iscoroutinefunction(candidate) or inspect.isasyncgenfunction(candidate))
        for candidate in candidates
    )


def _next_or_done(iterator: Iterator[Any]) -> Any:
    # StopIteration must not cross the thread boundary (futures refuse it).
    return next(iterator, _DONE)


async def _drain(result: Any, on_preliminary: Callable[[Any], None] | None) -> Any:
    """The final value of whatever ``execute`` returned: await it, or iterate a generator."""
    if inspect.isasyncgen(result):
        final: Any = None
        async for item in result:
            final = item
            if on_preliminary is not None:
                on_preliminary(item)
        return final
    if inspect.isgenerator(result):
        final = None
        while (item := await _in_thread(_next_or_done, result)) is not _DONE:
            final = item
            if on_preliminary is not None:
                on_preliminary(item)
        return final
    if inspect.isawaitable(result):
        return await result
    return result


async def invoke_tool(tool: HarnessTool, input: Any, tool_context: ToolContext, *,
                      on_preliminary: Callable[[Any], None] | None = None) -> Any:
    """Run ``tool.execute(input, tool_context)`` then ``tool.to_model_output``; the raw value.

    Args:
        tool: the tool (its ``execute`` must not be ``None``).
        input: the validated input.
        tool_context: what ``execute`` receives as its second argument.
        on_preliminary: called with each value a generator tool yields.

    Raises:
        HarnessError: the tool is client-side (no ``execute``).
        Exception: whatever ``execute`` or ``to_model_output`` raised, unchanged.
    """
    execute = tool.execute
    if execute is None:
        raise HarnessError(f"tool {tool.name!r} is client-side (no execute); the host supplies its result")
    if _is_async(execute) or inspect.isgeneratorfunction(execute):
        # Calling these only creates a coroutine or generator; the body runs below.
        result = execute(input, tool_context)
    else:
        result = await _in_thread(execute, input, tool_context)
    result = await _drain(result, on_preliminary)
    convert = tool.to_model_output
    if convert is None:
        return result
    converted: Any = convert(result) if _is_async(convert) else await _in_thread(convert, result)
    if inspect.isawaitable(converted):
        converted = await converted
    return converted


async def execute_call(call: ToolCall, context: ExecutionContext) -> ToolOutput:
    """:func:`invoke_tool` for one host call, normalized to a ToolOutput (not cut).

    Raises:
        Exception: whatever the tool raised, or ``TypeError`` for a value that is not
            JSON-serializable; the ``on_error`` policy deals with it.
    """
    value = await invoke_tool(context.tool, call.input, context.tool_context, on_preliminary=context.on_preliminary)
    return normalize_output(value, limit=_UNBOUNDED)


async def within_timeout(awaitable: Awaitable[T], call: ToolCall, context: ExecutionContext) -> T:
    """Await ``awaitable`` within ``context.timeout`` seconds (no bound when ``None``).

    Raises:
        ToolTimeout: the deadline passed (``"tool 'x' timed out after N s"``).
    """
    if context.timeout is None:
        return await awaitable
    with anyio.CancelScope(deadline=anyio.current_time() + context.timeout):
        return await awaitable
    # Only the deadline's cancellation gets here (any other cancellation propagates).
    raise ToolTimeout(f"tool {context.tool.name!r} timed out after {context.timeout} s")


def settle_error(exc: BaseException, call: ToolCall, context: ExecutionContext) -> ToolOutput:
    """The ``on_error`` policy: what a failed call becomes. The only code reading ``on_error``.

    Returns:
        With ``"return-to-model"``: ``"Error: <ExceptionType>: <message>"`` (or ``"Error:
        tool 'x' timed out after N s"``) as an error result whose ``exception`` is ``exc``.

    Raises:
        ToolExecutionError: ``on_error == "fail"`` (``exc`` itself when it already is one).
    """
    if isinstance(exc, ToolExecutionError):
        raise exc
    if context.on_error == "fail":
        raise ToolExecutionError(context.tool.name, call.tool_call_id, exc) from exc
    text = f"Error: {exc}" if isinstance(exc, ToolTimeout) else f"Error: {type(exc).__name__}: {exc}"
    return ToolOutput(text, is_error=True, exception=exc)


async def with_error_policy(awaitable: Awaitable[ToolOutput], call: ToolCall, context: ExecutionContext) -> ToolOutput:
    """Await ``awaitable``; an exception goes through :func:`settle_error`."""
    try:
        return await awaitable
    except Exception as exc:  # a TimeoutError the tool raised itself lands here too
        return settle_error(exc, call, context)


async def run_tool(call: ToolCall, context: ExecutionContext) -> ToolOutput:
    """Execute ``call`` with ``context.tool`` and return its bounded output, without plugins.

    The composition of the executor and the three core policies: timeout (covering
    ``to_model_output`` too), ``on_error``, and the 100,000-character cut. Sync code runs
    in a worker thread (see the module docs).

    Returns:
        The normalized output. With ``on_error="return-to-model"``, a raise (or timeout)
        becomes an error result (see :func:`settle_error`) whose
        :attr:`~harness_core.tools.output.ToolOutput.exception` holds the exception.

    Raises:
        ToolExecutionError: ``execute`` or ``to_model_output`` raised (or timed out) and
            ``on_error`` is ``"fail"``.
    """
    output = await with_error_policy(within_timeout(execute_call(call, context), call, context), call, context)
    return normalize_output(output)


class DefaultExecutor:
    """The ``default-executor`` plugin (``trylast``): runs ``tool.execute`` with
    :func:`execute_call`, and a runtime's in-process built-in with ``context.execute()``."""

    @hookimpl(trylast=True)
    def harness_execute_tool(self, call: ToolCall, context: ExecutionContext) -> Awaitable[ToolOutput] | None:
        if context.tool.execute is None:
            return None
        return execute_call(call, context)

    @hookimpl(trylast=True)
    def harness_execute_builtin(self, context: BuiltinExecutionContext) -> Awaitable[ToolOutput]:
        return context.execute()


class _Slot:
    """One admission to a :class:`CallScheduler`; queued when made, granted in order."""

    def __init__(self, scheduler: CallScheduler, read_only: bool) -> None:
        self.scheduler = scheduler
        self.read_only = read_only
        self.granted = False
        self.done = False
        self._wake: anyio.Event | None = None  # made only for a slot that has to wait
        scheduler.enqueue(self)

    def grant(self) -> None:
        """Internal to :class:`CallScheduler`: admit this slot (wakes its waiter, if any)."""
        self.granted = True
        if self._wake is not None:
            self._wake.set()

    async def __aenter__(self) -> None:
        if self.granted:  # admitted at once: no wait (and no loop round trip)
            try:
                await anyio.lowlevel.checkpoint_if_cancelled()
            except BaseException:
                self.scheduler.release(self)
                raise
            return
        self._wake = anyio.Event()
        try:
            await self._wake.wait()
        except BaseException:
            self.scheduler.release(self)
            raise

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self.scheduler.release(self)


class CallScheduler:
    """Read-only calls in parallel, the others exclusive, admitted in arrival order.

    Usage: ``async with scheduler.slot(read_only=tool.read_only): await run()``. The slot
    takes its place in the queue when :meth:`slot` is called (synchronously), so calls
    scheduled in order are admitted in that order: a read-only call waits for an earlier
    exclusive call, and an exclusive call waits for every earlier call. Not thread-safe:
    use it from one event loop.

    Args:
        max_parallel: at most this many read-only calls at once (``None``: no bound).
    """

    def __init__(self, *, max_parallel: int | None = None) -> None:
        if max_parallel is not None and max_parallel < 1:
            raise ValueError(f"max_parallel must be at least 1, got {max_parallel}")
        self._max = math.inf if max_parallel is None else max_parallel
        self._queue: deque[_Slot] = deque()
        self._readers = 0
        self._writer = False

    def slot(self, *, read_only: bool) -> _Slot:
        """A place in the queue, entered with ``async with``; released on exit or cancel."""
        return _Slot(self, read_only)

    @property
    def running(self) -> int:
        """How many calls hold a slot now."""
        return self._readers + int(self._writer)

    def enqueue(self, slot: _Slot) -> None:
        """Internal to :class:`_Slot`: queue ``slot`` and admit what can run."""
        self._queue.append(slot)
        self._admit()

    def release(self, slot: _Slot) -> None:
        """Internal to :class:`_Slot`: give ``slot`` back (granted or still queued)."""
        if slot.done:
            return
        slot.done = True
        if slot.granted:
            if slot.read_only:
                self._readers -= 1
            else:
                self._writer = False
        else:
            self._queue.remove(slot)
        self._admit()

    def _admit(self) -> None:
        while self._queue:
            head = self._queue[0]
            if head.read_only:
                if self._writer or self._readers >= self._max:
                    return
                self._readers += 1
            else:
                if self._writer or self._readers:
                    return
                self._writer = True
            self._queue.popleft()
            head.grant()
