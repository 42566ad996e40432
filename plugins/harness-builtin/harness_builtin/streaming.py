"""Reading one model response: model events in, stream parts out.

:class:`ResponseStreamer` reads a :class:`~harness_builtin.models.base.ModelClient`'s
stream for one request into a :class:`ModelResponse` (text, reasoning blocks, raw tool
calls, the final :class:`~harness_builtin.models.base.ResponseDone`) and yields the parts
it projects to: text and reasoning start/delta/end, and tool input start/delta/end. Each
read runs through the turn's :class:`~harness_builtin.signals.TurnSignals` so an abort
cancels it.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import AsyncIterator

import anyio
import attrs

from harness_core import (
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
)

from .conversation import ReasoningBlock
from .models.base import (
    ModelClient,
    ModelError,
    ModelEvent,
    ModelRequest,
    ReasoningDelta,
    ReasoningDone,
    ResponseDone,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
)
from .repair import RawCall
from .signals import TurnSignals

__all__ = ["ModelResponse", "ResponseStreamer"]


@attrs.define
class ModelResponse:
    """One model response as it streamed in (``done`` is set once it finished)."""

    text: str = ""
    reasoning: list[ReasoningBlock] = attrs.Factory(list)
    calls: list[RawCall] = attrs.Factory(list)
    done: ResponseDone | None = None


class _Projection:
    """The open text / reasoning block and the tool arguments of one response."""

    def __init__(self, response: ModelResponse, streamer: ResponseStreamer, builtin_names: frozenset[str]) -> None:
        self.response = response
        self.streamer = streamer
        self.builtin_names = builtin_names
        self.text_id: str | None = None
        self.reasoning_id: str | None = None
        self.reasoning_text = ""
        self.arguments: dict[int, list[str]] = {}

    def close_text(self) -> list[Part]:
        if self.text_id is None:
            return []
        ended, self.text_id = self.text_id, None
        return [TextEndPart(id=ended)]

    def close_reasoning(self, signature: str | None = None, redacted: str | None = None) -> list[Part]:
        if self.reasoning_id is None and redacted is None:
            return []
        self.response.reasoning.append(ReasoningBlock(text=self.reasoning_text, signature=signature, redacted=redacted))
        self.reasoning_text = ""
        if self.reasoning_id is None:
            return []
        ended, self.reasoning_id = self.reasoning_id, None
        return [ReasoningEndPart(id=ended)]

    def parts(self, event: ModelEvent) -> list[Part]:
        """Record ``event`` in the response; the parts it projects to."""
        response = self.response
        parts: list[Part] = []
        if isinstance(event, TextDelta):
            parts.extend(self.close_reasoning())
            response.text += event.text
            if self.text_id is None:
                self.text_id = self.streamer.new_id("text")
                parts.append(TextStartPart(id=self.text_id))
            parts.append(TextDeltaPart(id=self.text_id, text=event.text))
        elif isinstance(event, ReasoningDelta):
            parts.extend(self.close_text())
            self.reasoning_text += event.text
            if self.reasoning_id is None:
                self.reasoning_id = self.streamer.new_id("reasoning")
                parts.append(ReasoningStartPart(id=self.reasoning_id))
            parts.append(ReasoningDeltaPart(id=self.reasoning_id, text=event.text))
        elif isinstance(event, ReasoningDone):
            parts.extend(self.close_reasoning(event.signature, event.redacted))
        elif isinstance(event, ToolCallStart):
            parts.extend(self.close_text())
            parts.extend(self.close_reasoning())
            response.calls.append(RawCall(event.call_id, event.name, ""))
            self.arguments[event.index] = []
            parts.append(ToolInputStartPart(
                id=event.call_id, tool_name=event.name,
                provider_executed=True if event.name in self.builtin_names else None,
            ))
        elif isinstance(event, ToolCallDelta):
            if event.index in self.arguments:
                self.arguments[event.index].append(event.delta)
                parts.append(ToolInputDeltaPart(id=response.calls[event.index].call_id, delta=event.delta))
        elif isinstance(event, ResponseDone):
            parts.extend(self.close_text())
            parts.extend(self.close_reasoning())
            response.done = event
            for index, call in enumerate(response.calls):
                response.calls[index] = RawCall(call.call_id, call.name, "".join(self.arguments.get(index, ())))
                parts.append(ToolInputEndPart(id=call.call_id))
        return parts


class ResponseStreamer:
    """Streams model responses for one turn (part ids are unique within the turn).

    Args:
        client: the model client.
        signals: the turn's signals; every read is guarded by them.
    """

    def __init__(self, client: ModelClient, signals: TurnSignals) -> None:
        self._client = client
        self._signals = signals
        self._ids = itertools.count()

    def new_id(self, prefix: str) -> str:
        """A part id unique within the turn: ``{prefix}-{n}``."""
        return f"{prefix}-{next(self._ids)}"

    async def stream(self, request: ModelRequest, response: ModelResponse, *,
                     builtin_names: frozenset[str] = frozenset()) -> AsyncIterator[Part]:
        """Read one response into ``response`` and yield its parts (tool input parts of
        calls to ``builtin_names`` are ``provider_executed``).

        Raises:
            ModelError: the model call failed, or its stream ended without finishing.
            Aborted: the turn was aborted.
        """
        projection = _Projection(response, self, builtin_names)
        iterator = self._client.stream(request).__aiter__()
        exhausted = False
        try:
            while True:
                try:
                    event = await self._signals.guard(iterator.__anext__())
                except StopAsyncIteration:
                    exhausted = True
                    break
                for part in projection.parts(event):
                    yield part
        finally:
            # An async generator that ran to its end has nothing left to close.
            if not (exhausted and inspect.isasyncgen(iterator)):
                with anyio.CancelScope(shield=True):
                    aclose = getattr(iterator, "aclose", None)
                    if aclose is not None:
                        await aclose()
        if response.done is None:
            raise ModelError("incomplete-response", f"model {self._client.name!r} ended its stream without finishing")

    async def collect(self, request: ModelRequest) -> ModelResponse:
        """Read one response without projecting it (e.g. a summary).

        Raises:
            ModelError: as :meth:`stream`.
            Aborted: the turn was aborted.
        """
        response = ModelResponse()
        async for _ in self.stream(request, response):
            pass
        return response
