"""Collected results of a harness turn: :class:`GenerateResult` and its :class:`StepResult` steps.

:func:`collect_parts` builds one from the parts of a result slice (or several slices). The
shapes follow the AI SDK's ``generateText`` result: ``text``, ``tool_calls`` and
``tool_results`` describe the **last step**; :attr:`GenerateResult.steps` holds every step
and :attr:`GenerateResult.parts` every part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from harness_core.parts.models import (
    AbortPart,
    ErrorPart,
    FinishPart,
    FinishReason,
    FinishStepPart,
    Part,
    RawPart,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
)

if TYPE_CHECKING:
    from harness_core.agent.output import StructuredOutput

__all__ = ["GenerateResult", "StepResult", "collect_parts"]


@attrs.frozen(kw_only=True)
class StepResult:
    """One model step of a result slice (from ``start-step`` to ``finish-step``).

    Attributes:
        index: 0-based position in the slice.
        text: the step's assistant text (all text deltas joined).
        reasoning_text: the step's reasoning text.
        tool_calls: ``tool-call`` parts (built-in and host).
        tool_results: final (non-preliminary) ``tool-result`` parts.
        tool_errors: ``tool-error`` parts.
        denied: ``tool-output-denied`` parts (execution-denied results).
        approval_requests: ``tool-approval-request`` parts.
        finish_reason: the step's finish reason.
        usage: the step's token usage.
        parts: every part of the step, in order.
        tools_context: the tools context map the slice ran with (host-only).
    """

    index: int
    text: str
    reasoning_text: str
    tool_calls: tuple[ToolCallPart, ...]
    tool_results: tuple[ToolResultPart, ...]
    tool_errors: tuple[ToolErrorPart, ...]
    denied: tuple[ToolOutputDeniedPart, ...]
    approval_requests: tuple[ToolApprovalRequestPart, ...]
    finish_reason: FinishReason
    usage: Usage
    parts: tuple[Part, ...]
    tools_context: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class GenerateResult:
    """A collected result slice.

    Attributes:
        text: the last step's text (AI SDK semantics; see :attr:`steps` for the others).
        reasoning_text: the last step's reasoning text.
        tool_calls / tool_results / tool_errors: the last step's.
        steps: every step of the slice.
        approval_requests: every ``tool-approval-request`` of the slice but automatic ones (the calls waiting
            for a decision when :attr:`finish_reason` is ``awaiting-approval``).
        pending_tool_calls: host tool calls of the slice still waiting for a result (the
            client-side calls when :attr:`finish_reason` is ``awaiting-tool-result``).
        finish_reason: ``stop``, ``length``, ``error``, ``awaiting-approval``,
            ``awaiting-tool-result``, ``aborted``...
        usage: the slice's total token usage (the ``finish`` part's ``total_usage``).
        error: the message of the last ``error`` part, or ``None``.
        parts: every part, in order.
        tools_context: the tools context map the slice ran with (after ``prepare_call``);
            host-only, never sent to the runtime or written into suspended state.
        structured: the structured output check, when ``output=`` was set (see :attr:`output`).
    """

    text: str
    reasoning_text: str
    tool_calls: tuple[ToolCallPart, ...]
    tool_results: tuple[ToolResultPart, ...]
    tool_errors: tuple[ToolErrorPart, ...]
    steps: tuple[StepResult, ...]
    approval_requests: tuple[ToolApprovalRequestPart, ...]
    pending_tool_calls: tuple[ToolCallPart, ...]
    finish_reason: FinishReason
    usage: Usage
    error: str | None
    parts: tuple[Part, ...]
    tools_context: Mapping[str, Any] = attrs.field(factory=dict)
    structured: StructuredOutput | None = None

    @property
    def output(self) -> Any:
        """The validated structured output (a model instance or a ``dict``), or ``None``
        without ``output=``. Raises :class:`~harness_core.agent.output.OutputValidationError`
        when the final answer is missing, not JSON or not matching the schema."""
        return None if self.structured is None else self.structured.get()

    @property
    def total_usage(self) -> Usage:
        """Alias of :attr:`usage` (the AI SDK's ``totalUsage``)."""
        return self.usage

    @property
    def all_tool_calls(self) -> tuple[ToolCallPart, ...]:
        """Every ``tool-call`` part of every step."""
        return tuple(call for step in self.steps for call in step.tool_calls)

    @property
    def all_tool_results(self) -> tuple[ToolResultPart, ...]:
        """Every final ``tool-result`` part of every step."""
        return tuple(result for step in self.steps for result in step.tool_results)

    @property
    def all_text(self) -> str:
        """The text of every step, joined in order."""
        return "".join(step.text for step in self.steps)


_PASSIVE: frozenset[type[Part]] = frozenset({
    ToolInputStartPart, ToolInputDeltaPart, ToolInputEndPart, TextStartPart, TextEndPart, ReasoningStartPart,
    ReasoningEndPart, StartPart, ToolApprovalResponsePart, RawPart,
})
"""Part types (exactly) that only sit in a step's parts: no field of a result reads them."""


def _step(index: int, parts: list[Part], tools_context: Mapping[str, Any]) -> StepResult:
    # One pass over the step's parts (a result is collected once per slice, over every part).
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCallPart] = []
    results: list[ToolResultPart] = []
    errors: list[ToolErrorPart] = []
    denied: list[ToolOutputDeniedPart] = []
    requests: list[ToolApprovalRequestPart] = []
    finish: FinishStepPart | None = None
    for p in parts:
        if type(p) in _PASSIVE:
            continue
        if isinstance(p, TextDeltaPart):
            texts.append(p.text)
        elif isinstance(p, ToolResultPart):
            if not p.preliminary:
                results.append(p)
        elif isinstance(p, ToolCallPart):
            calls.append(p)
        elif isinstance(p, FinishStepPart):
            finish = p
        elif isinstance(p, ReasoningDeltaPart):
            reasoning.append(p.text)
        elif isinstance(p, ToolErrorPart):
            errors.append(p)
        elif isinstance(p, ToolOutputDeniedPart):
            denied.append(p)
        elif isinstance(p, ToolApprovalRequestPart) and not p.is_automatic:
            requests.append(p)
    return StepResult(
        index=index,
        text="".join(texts),
        reasoning_text="".join(reasoning),
        tool_calls=tuple(calls),
        tool_results=tuple(results),
        tool_errors=tuple(errors),
        denied=tuple(denied),
        approval_requests=tuple(requests),
        finish_reason=finish.finish_reason if finish is not None else "unknown",
        usage=finish.usage if finish is not None else Usage(),
        parts=tuple(parts),
        tools_context=tools_context,
    )


def collect_parts(parts: Sequence[Part], *, tools_context: Mapping[str, Any] | None = None) -> GenerateResult:
    """Build a :class:`GenerateResult` from the parts of one result slice.

    Steps are delimited by ``start-step`` / ``finish-step`` parts; parts outside any step
    (``start``, ``finish``, ``abort``, ``error`` after the last step) are only in
    :attr:`GenerateResult.parts`.
    """
    context = dict(tools_context or {})
    steps: list[StepResult] = []
    current: list[Part] | None = None
    finish: FinishPart | None = None
    aborted = False
    error: str | None = None
    calls: list[ToolCallPart] = []
    answered: set[str] = set()
    asked: set[str] = set()
    requests: list[ToolApprovalRequestPart] = []
    for part in parts:
        if type(part) in _PASSIVE:
            if current is not None:
                current.append(part)
            continue
        if isinstance(part, StartStepPart):
            if current is not None:
                steps.append(_step(len(steps), current, context))
            current = [part]
            continue
        if isinstance(part, FinishStepPart):
            (current if current is not None else []).append(part)
            steps.append(_step(len(steps), current or [part], context))
            current = None
            continue
        if current is not None:
            current.append(part)
        if isinstance(part, ToolResultPart):
            if not part.preliminary:
                answered.add(part.tool_call_id)
        elif isinstance(part, ToolCallPart):
            if not part.provider_executed:
                calls.append(part)
        elif isinstance(part, ToolErrorPart | ToolOutputDeniedPart):
            answered.add(part.tool_call_id)
        elif isinstance(part, ToolApprovalRequestPart):
            asked.add(part.tool_call.tool_call_id)
            if not part.is_automatic:
                requests.append(part)
        elif isinstance(part, FinishPart):
            finish = part
        elif isinstance(part, AbortPart):
            aborted = True
        elif isinstance(part, ErrorPart):
            error = part.error
    if current is not None:
        steps.append(_step(len(steps), current, context))
    finish_reason: FinishReason = (
        "aborted" if aborted else finish.finish_reason if finish is not None else "unknown"
    )
    usage = finish.total_usage if finish is not None else sum((s.usage for s in steps), Usage())
    last = steps[-1] if steps else None
    pending = tuple(
        p for p in calls if p.tool_call_id not in answered and p.tool_call_id not in asked
    ) if finish_reason in ("awaiting-tool-result", "awaiting-approval") else ()
    return GenerateResult(
        text=last.text if last else "",
        reasoning_text=last.reasoning_text if last else "",
        tool_calls=last.tool_calls if last else (),
        tool_results=last.tool_results if last else (),
        tool_errors=last.tool_errors if last else (),
        steps=tuple(steps),
        approval_requests=tuple(requests),
        pending_tool_calls=pending,
        finish_reason=finish_reason,
        usage=usage,
        error=error,
        parts=tuple(parts),
        tools_context=context,
    )
