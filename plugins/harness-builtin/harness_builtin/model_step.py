"""The model step of a built-in turn: one model call and what its response asks for.

:meth:`ModelStep.run` sends the history and the offered tools, streams the response's
parts, and checks its tool calls (:func:`~harness_builtin.repair.check_call`):

- a response with a call that cannot be used is withheld: invalid ``tool-call`` parts, a
  repair note to the model, and repair mode (read-only tools only) until a response is
  usable or ``max_repairs`` is exceeded (the turn ends with ``unusable-response``);
- a response without calls ends the turn with its finish reason;
- otherwise its calls become the session's pending step (see
  :class:`~harness_builtin.tool_step.ToolStep`), unless they would exceed
  ``max_tool_calls`` (they get "not run" results and the turn ends with ``length``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import attrs

from harness_core import FinishStepPart, StartStepPart

from .call_parts import invalid_call_parts, result_parts
from .conversation import AssistantMessage, ToolCallRecord, UserMessage
from .ending import limit_end, turn_end
from .environment import HARNESS_ID, TurnEnvironment
from .live import LiveConversation
from .models.base import ModelRequest, ResponseDone
from .offer import ToolOffer
from .repair import CallProblem, RawCall, check_call, repair_note
from .state import CallState, PendingStep
from .streaming import ModelResponse, ResponseStreamer
from .turn_features import FINAL_ANSWER, FinalAnswerText

__all__ = ["ModelStep", "StepResult"]

_WITHHELD = "[my previous response had tool calls that could not be used; they were not run]"


@attrs.define
class StepResult:
    """What a model step decided.

    Attributes:
        end: the turn's last events (ending with its ``TurnEnd``) when the step ends the
            turn, else None (a pending step was started, or a repair follows).
        validated: the validated input of each call of the pending step, by call id.
    """

    end: list[object] | None = None
    validated: dict[str, Any] = attrs.Factory(dict)


class ModelStep:
    """Runs model steps for one turn.

    Args:
        conversation: the live conversation (history, pending step, counters).
        offer: the tools and system prompt.
        environment: the limits and whether built-in calls need approval.
        streamer: the turn's response streamer.
    """

    def __init__(self, conversation: LiveConversation, offer: ToolOffer, environment: TurnEnvironment,
                 streamer: ResponseStreamer) -> None:
        self._conversation = conversation
        self._offer = offer
        self._env = environment
        self._streamer = streamer

    async def run(self, result: StepResult) -> AsyncIterator[object]:
        """One model step; yields its parts and records its decision in ``result``.

        Raises:
            ModelError: the model call failed.
            Aborted: the turn was aborted.
        """
        conversation, offer = self._conversation, self._offer
        counters = conversation.counters
        tools = offer.offered(repair_mode=counters.repair_mode)
        request = ModelRequest(
            system=offer.system(), messages=list(conversation.messages), tools=tools,
            max_output_tokens=self._env.limits.max_output_tokens,
        )
        counters.steps += 1
        if offer.mcp is not None:
            for notice in offer.mcp.take_notices():  # MCP servers that failed or stopped
                yield notice
        yield StartStepPart()
        response = ModelResponse()
        final_text = FinalAnswerText()
        async for part in self._streamer.stream(request, response, builtin_names=offer.runtime_names):
            yield final_text.project(part)
        done = response.done
        assert done is not None
        conversation.add_usage(done.usage)
        conversation.context_tokens = (done.usage.input_tokens or 0) + (done.usage.output_tokens or 0)
        checked, problems = self._check(response, [spec.name for spec in tools])
        if problems:
            async for event in self._unusable(response, done, problems, result):
                yield event
            return
        counters.repairs = 0
        counters.repair_mode = False
        answer = next((raw for raw, _ in checked if raw.name == FINAL_ANSWER), None)
        if answer is not None:  # structured output: the answer ends the turn (turn_features.py)
            conversation.append(AssistantMessage(text=answer.arguments, reasoning=tuple(response.reasoning)))
            yield FinishStepPart(finish_reason="stop", usage=done.usage)
            result.end = [turn_end(counters, "stop")]
            return
        conversation.append(AssistantMessage(
            text=response.text,
            reasoning=tuple(response.reasoning),
            tool_calls=tuple(ToolCallRecord(id=raw.call_id, name=raw.name, arguments=value) for raw, value in checked),
        ))
        if not checked:
            yield FinishStepPart(finish_reason=done.finish_reason, usage=done.usage)
            result.end = [turn_end(counters, done.finish_reason)]
            return
        async for event in self._start_calls(checked, done, result):
            yield event

    def _check(self, response: ModelResponse, offered: list[str]) -> tuple[list[tuple[RawCall, Any]], list[CallProblem]]:
        """The response's usable calls with their validated input, and its problems."""
        offer = self._offer
        # Inactive built-ins and host tools are not offered, but a call to one is refused
        # (a built-in here, a host tool by the core), not repaired.
        inactive = [*offer.inactive(), *offer.withheld()]
        host_schemas = offer.checked_schemas()
        checked: list[tuple[RawCall, Any]] = []
        problems: list[CallProblem] = []
        for raw in response.calls:
            value, problem = check_call(
                raw, builtins=offer.tools, host_schemas=host_schemas, offered=offered, refusable=inactive,
            )
            if problem is None:
                checked.append((raw, value))
            else:
                problems.append(problem)
        return checked, problems

    async def _unusable(self, response: ModelResponse, done: ResponseDone, problems: list[CallProblem],
                        result: StepResult) -> AsyncIterator[object]:
        """An unusable response: its invalid calls, then a repair, or the end of the turn
        when ``max_repairs`` is exceeded."""
        offer, limits = self._offer, self._env.limits
        for part in invalid_call_parts(response.calls, problems, builtin_names=offer.runtime_names,
                                       host_names=offer.host_schemas()):
            yield part
        yield FinishStepPart(finish_reason=done.finish_reason, usage=done.usage,
                             provider_metadata={HARNESS_ID: {"repair": [p.problem for p in problems]}})
        if not self._withhold(response, problems):
            details = "; ".join(f"{p.name!r}: {p.problem}" for p in problems)
            result.end = [turn_end(
                self._conversation.counters, "error",
                f"the model's response could not be used after {limits.max_repairs} repair turn(s): {details}",
                "unusable-response",
            )]

    async def _start_calls(self, checked: list[tuple[RawCall, Any]], done: ResponseDone,
                           result: StepResult) -> AsyncIterator[object]:
        """Make the usable calls the pending step, unless they exceed ``max_tool_calls``
        (then they get "not run" results and the turn ends)."""
        conversation = self._conversation
        counters = conversation.counters
        calls = [self._call_state(raw, value) for raw, value in checked]
        result.validated = {raw.call_id: value for raw, value in checked}
        conversation.begin_step(PendingStep(calls=calls, usage=done.usage, finish_reason=done.finish_reason))
        limit = self._env.limits.max_tool_calls
        if counters.tool_calls + len(calls) <= limit:
            counters.tool_calls += len(calls)
            return
        message = (
            f"the turn stopped: the model asked for {len(calls)} more tool call(s) after {counters.tool_calls}, "
            f"over max_tool_calls={limit}; send another prompt to go on, or raise max_tool_calls"
        )
        for call in calls:
            call.status, call.content, call.is_error = "done", f"Not run: {message}", True
        for part in result_parts(calls):
            yield part
        conversation.close_pending("")
        yield FinishStepPart(finish_reason=done.finish_reason, usage=done.usage)
        result.end = limit_end(counters, message, "max-tool-calls")

    def _withhold(self, response: ModelResponse, problems: list[CallProblem]) -> bool:
        """Keep an unusable response out of the history's tool calls; when repairs are
        left, add the repair note and enter repair mode. Whether a repair follows."""
        conversation, limits = self._conversation, self._env.limits
        counters = conversation.counters
        counters.repairs += 1
        conversation.append(AssistantMessage(
            text=response.text or _WITHHELD, reasoning=tuple(response.reasoning), withheld=True,
        ))
        if counters.repairs > limits.max_repairs:
            counters.repair_mode = False
            return False
        counters.repair_mode = True
        conversation.append(UserMessage(
            text=repair_note(problems, sorted(self._offer.read_only_names())), kind="repair",
        ))
        return True

    def _call_state(self, raw: RawCall, value: dict[str, Any]) -> CallState:
        if raw.name in self._offer.tools or self._offer.is_mcp(raw.name):
            if not self._offer.allows(raw.name):
                what = "inactive MCP tool" if self._offer.is_mcp(raw.name) else "inactive built-in"
                return CallState(call_id=raw.call_id, name=raw.name, arguments=value, kind="builtin",
                                 status="refused",
                                 reason=f"tool {raw.name!r} is not available in this session ({what})")
            status = "approval" if self._env.builtin_approvals else "approved"
            return CallState(call_id=raw.call_id, name=raw.name, arguments=value, kind="builtin", status=status,
                             approval_id=f"approval-{raw.call_id}" if status == "approval" else None)
        return CallState(call_id=raw.call_id, name=raw.name, arguments=value, kind="host", status="waiting")
