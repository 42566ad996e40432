"""An in-process scripted model: the scripted model servers' scripts, without HTTP.

:class:`ScriptedModelClient` answers from a :class:`harness_core.testing.Script` (or a
list of turns, or a responder callable) exactly as the HTTP servers in
:mod:`harness_core.testing` choose turns: by the number of assistant messages already in
the conversation, with tool-less requests getting the side answer. It is what the
benchmark uses to measure the harness's own overhead, and what unit tests use where the
wire does not matter. Fault injection needs the HTTP servers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from harness_core import FinishReason, Usage

from ..conversation import (
    AssistantMessage,
    Message,
    TokenEstimator,
    ToolResultsMessage,
    UserMessage,
)
from .base import (
    ModelEvent,
    ModelRequest,
    ReasoningDelta,
    ReasoningDone,
    ResponseDone,
    TextDelta,
    ToolCallDelta,
    ToolCallStart,
)

__all__ = ["ScriptedModelClient"]


class ScriptedModelClient:
    """A :class:`~harness_builtin.models.base.ModelClient` that answers from a script.

    Args:
        script: a :class:`harness_core.testing.Script`, a sequence of turns
            (:class:`harness_core.testing.ModelTurn` or text), or a responder
            ``(harness_core.testing.ModelRequest) -> ModelTurn | str | None``.
        name: the model name shown in usage and errors.
        record_requests: keep every request in :attr:`requests` (default). Each request
            holds the history as sent, so a long run keeps memory quadratic in its length;
            benchmarks of long runs pass ``False`` (the list stays empty).

    Tool calls name offered tools or common names (``bash``, ``read``...), resolved like
    the HTTP servers do; a name that matches nothing offered is sent as written, so tests
    can script calls to unknown tools.

    Attributes:
        requests: every :class:`~harness_builtin.models.base.ModelRequest` received.
    """

    provider = "scripted"

    def __init__(self, script: Any = (), *, name: str = "scripted:fake-model", record_requests: bool = True) -> None:
        from harness_core.testing import Script, coerce_script

        self.script: Script = coerce_script(script)
        self.name = name
        self.requests: list[ModelRequest] = []
        self._record = record_requests
        self._received = 0
        self._estimator = TokenEstimator()
        self._counted: tuple[int, int, object, object] = (0, 0, None, None)
        """Running count of assistant messages: (messages seen, count, first, last seen)."""

    def _assistant_count(self, messages: Sequence[Message]) -> int:
        """Assistant messages in ``messages``, scanning only those appended since the last
        request (a history that was replaced, e.g. compacted, is counted afresh)."""
        seen, count, first, last = self._counted
        if not (seen and len(messages) >= seen and messages[0] is first and messages[seen - 1] is last):
            seen, count = 0, 0
        count += sum(1 for m in messages[seen:] if isinstance(m, AssistantMessage))
        if messages:
            self._counted = (len(messages), count, messages[0], messages[-1])
        return count

    def _view(self, request: ModelRequest) -> Any:
        from harness_core.testing import Message as ViewMessage
        from harness_core.testing import ModelRequest as ViewRequest
        from harness_core.testing import OfferedTool, ToolCallView, ToolResultView

        messages: list[Any] = []
        for message in request.messages:
            if isinstance(message, UserMessage):
                messages.append(ViewMessage(role="user", text=message.text))
            elif isinstance(message, AssistantMessage):
                calls = tuple(ToolCallView(c.id, c.name, c.arguments) for c in message.tool_calls)
                messages.append(ViewMessage(role="assistant", text=message.text, tool_calls=calls))
            elif isinstance(message, ToolResultsMessage):
                results = tuple(ToolResultView(r.call_id, r.content, r.is_error) for r in message.results)
                messages.append(ViewMessage(role="tool", tool_results=results))
        return ViewRequest(
            format="anthropic",
            model=self.name.split(":", 1)[-1],
            stream=True,
            system=request.system,
            messages=tuple(messages),
            tools=tuple(OfferedTool(t.name, input_schema=t.input_schema) for t in request.tools),
            index=self._received - 1,
            body={},
            has_tools=bool(request.tools),
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Answer with the scripted turn (see the class docs)."""
        from harness_core.testing import ModelTurn, ToolNotOfferedError, resolve_tool_name

        self._received += 1
        if self._record:
            self.requests.append(request)
        messages = request.messages
        turn_index = self._assistant_count(messages)
        if messages and isinstance(messages[-1], AssistantMessage):
            turn_index -= 1
        turn: ModelTurn | None = None
        respond: Callable[[Any], Any] | None = self.script.respond
        if respond is not None:
            answer = respond(self._view(request))
            turn = ModelTurn(answer) if isinstance(answer, str) else answer
        if turn is None:
            if not request.tools and self.script.toolless == "side":
                turn = ModelTurn(self.script.side_answer)
            elif turn_index < len(self.script.turns):
                turn = self.script.turns[turn_index]
            else:
                turn = ModelTurn(self.script.final_text)
        if turn.reasoning:
            yield ReasoningDelta(turn.reasoning)
            yield ReasoningDone()
        if turn.text:
            yield TextDelta(turn.text)
        offered = [t.name for t in request.tools]
        written = len(turn.text or "") + len(turn.reasoning or "")
        for number, spec in enumerate(turn.tool_calls):
            try:
                name = resolve_tool_name(spec.name, offered)
            except ToolNotOfferedError:
                name = spec.name
            arguments = spec.arguments if isinstance(spec.arguments, str) else json.dumps(spec.arguments)
            written += len(arguments)
            yield ToolCallStart(number, spec.id or f"call_t{turn_index}_{number}", name)
            yield ToolCallDelta(number, arguments)
        scripted = turn.usage
        usage_in = (scripted.input_tokens if scripted and scripted.input_tokens is not None
                    else self._estimator.estimate(request.messages, request.system))
        usage_out = scripted.output_tokens if scripted and scripted.output_tokens is not None else max(1, written // 4)
        usage = Usage(input_tokens=usage_in, output_tokens=usage_out, total_tokens=usage_in + usage_out)
        reason: FinishReason = "tool-calls" if turn.tool_calls else "stop"
        yield ResponseDone(reason, usage, "tool_use" if turn.tool_calls else "end_turn")

    async def aclose(self) -> None:
        """Nothing to release."""
