"""Results of a harness turn: :class:`StreamResult` (live) and :class:`GenerateResult` (collected).

A *result slice* is what one ``agent.stream()`` / ``continue_stream()`` call produces: the
parts from ``start`` to ``finish`` (or ``abort``). A turn that pauses for an approval or a
client-side tool result ends its slice with finish reason ``awaiting-approval`` or
``awaiting-tool-result``; the continuation is a new slice of the same turn.

The shapes follow the AI SDK's ``streamText`` / ``generateText`` results: ``text``,
``tool_calls`` and ``tool_results`` describe the **last step** of the slice (like the AI
SDK); :attr:`GenerateResult.steps` holds every step, and :attr:`GenerateResult.parts`
every part.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import attrs

from harness_core.agent.collected import GenerateResult, StepResult, collect_parts
from harness_core.agent.output import Output, StructuredOutput, partial_outputs
from harness_core.parts.models import (
    FinishReason,
    Part,
    TextDeltaPart,
    ToolApprovalRequestPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

if TYPE_CHECKING:
    from harness_core.agent.session import HarnessSession

__all__ = ["GenerateResult", "StepResult", "StreamResult", "collect_parts"]


T = TypeVar("T")


class StreamResult:
    """A live result slice: an async stream of parts plus awaitable summaries.

    Returned by ``agent.stream()`` and ``agent.continue_stream()``. Nothing runs until
    the result is consumed: iterate :attr:`full_stream` (or :attr:`text_stream`), await
    one of the summaries (``await result.text``), call :meth:`consume`, or enter it with
    ``async with``. Parts are buffered, so :attr:`full_stream` can be iterated again
    afterwards (it replays) and summaries are available after streaming.

    Consume a result from one task. When you stop reading before the end, leave the
    ``async with`` block or call :meth:`aclose`: an unfinished slice is then aborted
    (``turn.abort()``, an ``abort`` part, the session back to idle).

    Example::

        async with agent.stream(session=session, prompt="Fix the test") as result:
            async for part in result.full_stream:
                print(part.to_json())
        print(await result.finish_reason)
    """

    def __init__(
        self,
        source: Callable[[StreamResult], AsyncGenerator[Part, None]],
        *,
        session: HarnessSession,
    ) -> None:
        self._source_factory = source
        self._source: AsyncGenerator[Part, None] | None = None
        self._parts: list[Part] = []
        self._done = False
        self._lock: anyio.Lock | None = None
        self._abort_reason: str | None = None
        self._abort_requested = False
        self._abort_callbacks: list[Callable[[], None]] = []
        self._collected: GenerateResult | None = None
        self._tools_context: Mapping[str, Any] = {}
        self._output: Output | None = None
        self.session = session
        """The session this slice belongs to."""

    # -- abort -------------------------------------------------------------------------

    def abort(self, reason: str | None = None) -> None:
        """Abort the turn: the slice ends with an ``abort`` part, the session goes idle.

        Safe to call at any time from the task (or a task of the same event loop) that
        consumes the result, including from inside ``async for``; a no-op once the slice
        has finished.
        """
        if self._done or self._abort_requested:
            return
        self._abort_requested = True
        self._abort_reason = reason
        for callback in list(self._abort_callbacks):
            callback()

    @property
    def abort_requested(self) -> bool:
        """True once :meth:`abort` was called."""
        return self._abort_requested

    @property
    def abort_reason(self) -> str | None:
        """The reason given to :meth:`abort`, if any."""
        return self._abort_reason

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Register ``callback`` to run on :meth:`abort` (the turn runner's hook); returns an unregister function."""
        self._abort_callbacks.append(callback)
        if self._abort_requested:
            callback()

        def remove() -> None:
            if callback in self._abort_callbacks:
                self._abort_callbacks.remove(callback)

        return remove

    def bind_tools_context(self, tools_context: Mapping[str, Any]) -> None:
        """Record the tools context in effect for this slice (set once, when the slice starts)."""
        self._tools_context = tools_context

    def bind_output(self, output: Output | None) -> None:
        """Record the structured output the slice's turn asked for (set when the slice starts)."""
        self._output = output

    # -- streaming ---------------------------------------------------------------------

    async def _part_at(self, index: int) -> Part | None:
        if index >= len(self._parts):
            await self._fill(index)
        return self._parts[index] if index < len(self._parts) else None

    async def _fill(self, index: int | None) -> None:
        """Read parts from the source until part ``index`` exists (``None``: to the end).

        One lock acquisition per call, not per part: :meth:`consume` reads every part with
        the lock held once (an uncontended ``fast_acquire`` lock does not yield to the loop).
        """
        parts = self._parts
        while not self._done and (index is None or index >= len(parts)):
            if self._lock is None:
                self._lock = anyio.Lock(fast_acquire=True)
            async with self._lock:
                if self._source is None:
                    self._source = self._source_factory(self)
                source = self._source
                while not self._done and (index is None or index >= len(parts)):
                    try:
                        part = await source.__anext__()
                    except StopAsyncIteration:
                        self._done = True
                        break
                    parts.append(part)

    async def _iterate(self) -> AsyncGenerator[Part, None]:
        index = 0
        while True:
            part = await self._part_at(index)
            if part is None:
                return
            yield part
            index += 1

    @property
    def full_stream(self) -> AsyncIterator[Part]:
        """Every part of the slice, in order: ``start``, ``start-step``, ..., ``finish``.

        A paused slice ends with ``finish`` whose reason is ``awaiting-approval`` or
        ``awaiting-tool-result``; an aborted one with ``abort``.
        """
        return self._iterate()

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """The assistant text deltas only."""

        async def texts() -> AsyncGenerator[str, None]:
            async for part in self._iterate():
                if isinstance(part, TextDeltaPart):
                    yield part.text

        return texts()

    @property
    def partial_output_stream(self) -> AsyncIterator[Any]:
        """Partial structured outputs as the answer streams (:func:`~harness_core.agent.output.partial_outputs`)."""
        return partial_outputs(self._iterate())

    @property
    def output(self) -> Awaitable[Any]:
        """Await: the validated structured output (:attr:`GenerateResult.output`; raises the same way)."""
        return self._get(lambda r: r.output)

    @property
    def parts(self) -> tuple[Part, ...]:
        """The parts received so far (all of them once the slice has finished)."""
        return tuple(self._parts)

    @property
    def done(self) -> bool:
        """True once the slice has finished (its last part was produced)."""
        return self._done

    async def consume(self) -> GenerateResult:
        """Run the slice to its end and return the collected :class:`GenerateResult`."""
        await self._fill(None)
        if self._collected is None:
            collected = collect_parts(self._parts, tools_context=self._tools_context)
            if self._output is not None:
                # The answer is the last step with text (a runtime may close the turn with an empty step).
                answer = next((s.text for s in reversed(collected.steps) if s.text.strip()), "")
                structured = StructuredOutput.check(self._output, answer, collected.finish_reason)
                collected = attrs.evolve(collected, structured=structured)
            self._collected = collected
        return self._collected

    async def aclose(self) -> None:
        """Finish the slice now: abort it if it has not finished, and release its resources."""
        if not self._done and self._source is not None:
            self.abort("the result was closed before the end of the stream")
            await self.consume()
        if self._source is not None:
            await self._source.aclose()

    async def __aenter__(self) -> StreamResult:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- awaitable summaries ------------------------------------------------------------

    async def _get(self, getter: Callable[[GenerateResult], T]) -> T:
        return getter(await self.consume())

    @property
    def text(self) -> Awaitable[str]:
        """Await: the last step's text."""
        return self._get(lambda r: r.text)

    @property
    def reasoning_text(self) -> Awaitable[str]:
        """Await: the last step's reasoning text."""
        return self._get(lambda r: r.reasoning_text)

    @property
    def tool_calls(self) -> Awaitable[tuple[ToolCallPart, ...]]:
        """Await: the last step's tool calls."""
        return self._get(lambda r: r.tool_calls)

    @property
    def tool_results(self) -> Awaitable[tuple[ToolResultPart, ...]]:
        """Await: the last step's final tool results."""
        return self._get(lambda r: r.tool_results)

    @property
    def steps(self) -> Awaitable[tuple[StepResult, ...]]:
        """Await: every step of the slice."""
        return self._get(lambda r: r.steps)

    @property
    def usage(self) -> Awaitable[Usage]:
        """Await: the slice's total usage."""
        return self._get(lambda r: r.usage)

    @property
    def total_usage(self) -> Awaitable[Usage]:
        """Await: alias of :attr:`usage`."""
        return self._get(lambda r: r.usage)

    @property
    def finish_reason(self) -> Awaitable[FinishReason]:
        """Await: why the slice ended."""
        return self._get(lambda r: r.finish_reason)

    @property
    def approval_requests(self) -> Awaitable[tuple[ToolApprovalRequestPart, ...]]:
        """Await: the slice's ``tool-approval-request`` parts."""
        return self._get(lambda r: r.approval_requests)

    @property
    def pending_tool_calls(self) -> Awaitable[tuple[ToolCallPart, ...]]:
        """Await: host tool calls still waiting for a result when the slice paused."""
        return self._get(lambda r: r.pending_tool_calls)

    def __repr__(self) -> str:
        return f"<StreamResult session={self.session.session_id!r} parts={len(self._parts)} done={self._done}>"
