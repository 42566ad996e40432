"""The spans of one turn, made from its stream parts (:mod:`harness_core.telemetry`).

:class:`TurnTrace` lives in the session's turn features for the whole turn, across its
result slices; :meth:`TurnTrace.observe` sees every part the emitter lets out and
:meth:`TurnTrace.slice_done` ends the turn span once the turn is over (it stays open while
the turn is paused or stopped). :meth:`TurnTrace.traceparent` is the W3C ``traceparent`` of
the turn span that a suspended turn's state carries; a continuation in another process
passes it back as ``parent``.
"""

from __future__ import annotations

import json
from typing import Any

from harness_core.parts.models import (
    FinishPart,
    FinishStepPart,
    Part,
    StartStepPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
)
from harness_core.telemetry import Telemetry

__all__ = ["TurnTrace"]


def _usage(usage: Usage, prefix: str = "gen_ai.usage") -> dict[str, int]:
    values = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    return {f"{prefix}.{key}": value for key, value in values.items() if value is not None}


class TurnTrace:
    """The open spans of one turn.

    Args:
        telemetry: the agent's settings.
        harness_id / session_id: set on every span.
        parent: a W3C ``traceparent`` the turn span continues (a continued suspended turn).
        continued: the span starts a continuation (``harness.turn.continued=True``).
    """

    def __init__(self, telemetry: Telemetry, *, harness_id: str, session_id: str, parent: str | None = None,
                 continued: bool = False) -> None:
        from opentelemetry import trace
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self._trace = trace
        self._propagator = TraceContextTextMapPropagator()
        self._telemetry = telemetry
        self._tracer = telemetry.get_tracer()
        self._common = {"harness.id": harness_id, "harness.session_id": session_id}
        context = self._propagator.extract({"traceparent": parent}) if parent else None
        attributes: dict[str, Any] = dict(self._common)
        if continued:
            attributes["harness.turn.continued"] = True
        self._turn = self._tracer.start_span("harness.turn", context=context, attributes=attributes)
        self._step: Any = None
        self._steps = 0
        self._tools: dict[str, Any] = {}
        self._approvals: dict[str, str] = {}  # approval id -> tool call id
        self._finish: FinishPart | None = None
        self.ended = False

    def _child_of(self, span: Any) -> Any:
        return self._trace.set_span_in_context(span)

    def _content(self, value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
        limit = self._telemetry.max_content_chars
        return text if len(text) <= limit else text[:limit] + "..."

    def observe(self, part: Part) -> None:
        """One part of the turn's stream (called by the emitter, in stream order)."""
        if isinstance(part, StartStepPart):
            self._end_step()
            self._steps += 1
            self._step = self._tracer.start_span("harness.step", context=self._child_of(self._turn),
                                                 attributes={**self._common, "harness.step.index": self._steps})
        elif isinstance(part, FinishStepPart):
            if self._step is not None:
                self._step.set_attributes({"harness.step.finish_reason": part.finish_reason, **_usage(part.usage)})
            self._end_step()
        elif isinstance(part, ToolCallPart):
            self._tool_call(part)
        elif isinstance(part, ToolApprovalRequestPart):
            self._approvals[part.approval_id] = part.tool_call.tool_call_id
        elif isinstance(part, ToolApprovalResponsePart):
            span = self._tools.get(self._approvals.get(part.approval_id, ""))
            if span is not None:
                decision = "approved" if part.approved else "denied"
                span.set_attributes({"harness.tool.decision": decision,
                                     "harness.tool.decision_automatic": bool(part.is_automatic)})
        elif isinstance(part, ToolResultPart | ToolErrorPart | ToolOutputDeniedPart):
            self._tool_end(part)
        elif isinstance(part, FinishPart):
            self._finish = part

    def _tool_call(self, part: ToolCallPart) -> None:
        parent = self._step if self._step is not None else self._turn
        attributes: dict[str, Any] = {**self._common, "harness.tool.name": part.tool_name,
                                      "harness.tool.call_id": part.tool_call_id,
                                      "harness.tool.executor": "runtime" if part.provider_executed else "host"}
        if self._telemetry.record_content:
            attributes["harness.tool.input"] = self._content(part.input)
        self._tools[part.tool_call_id] = self._tracer.start_span("harness.tool_call", context=self._child_of(parent),
                                                                 attributes=attributes)

    def _tool_end(self, part: ToolResultPart | ToolErrorPart | ToolOutputDeniedPart) -> None:
        if getattr(part, "preliminary", None):
            return
        span = self._tools.pop(part.tool_call_id, None)
        if span is None:
            return
        if isinstance(part, ToolResultPart):
            span.set_attribute("harness.tool.outcome", "result")
            if self._telemetry.record_content:
                span.set_attribute("harness.tool.output", self._content(part.output))
        elif isinstance(part, ToolErrorPart):
            span.set_attribute("harness.tool.outcome", "error")
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, "the tool call failed"))
        else:
            span.set_attributes({"harness.tool.outcome": "denied", "harness.tool.decision": "denied"})
        span.end()

    def _end_step(self) -> None:
        if self._step is not None:
            self._step.end()
            self._step = None

    def traceparent(self) -> str | None:
        """The turn span's W3C ``traceparent`` (for a suspended turn's state)."""
        carrier: dict[str, str] = {}
        self._propagator.inject(carrier, context=self._child_of(self._turn))
        return carrier.get("traceparent")

    def slice_done(self, turn_over: bool) -> None:
        """A result slice ended; with ``turn_over`` every span of the turn ends."""
        if not turn_over or self.ended:
            return
        self.ended = True
        self._end_step()
        for span in self._tools.values():
            span.set_attribute("harness.tool.outcome", "unfinished")
            span.end()
        self._tools.clear()
        finish = self._finish
        if finish is not None:
            self._turn.set_attributes({"harness.turn.finish_reason": finish.finish_reason,
                                       **_usage(finish.total_usage)})
            if finish.finish_reason == "error":
                self._turn.set_status(self._trace.Status(self._trace.StatusCode.ERROR, "the turn failed"))
        self._turn.end()

    def detach(self) -> None:
        """The turn was suspended into state: its spans end here (the continuation's span,
        in this or another process, has this one as parent)."""
        self._turn.set_attribute("harness.turn.suspended", True)
        self._finish = None
        self.slice_done(True)
