"""pi's native events (:mod:`harness_pi._events`) as harness-core stream parts.

* assistant ``message_start`` -> ``start-step``; ``message_update`` ``text_*`` /
  ``thinking_*`` -> ``text-*`` / ``reasoning-*`` (ids ``m<n>:<contentIndex>``); assistant
  ``message_end`` -> ``finish-step`` with the message's usage and stop reason;
* :class:`PiToolCall` -> a provider-executed ``tool-call`` under the harness-facing name
  (``find`` is ``glob``, with ``providerMetadata.pi.nativeToolName``); tools pi offers
  that are not declared built-ins (other extensions', MCP servers') are ``dynamic``;
* :class:`PiToolProgress` -> a preliminary ``tool-result`` (a running command's output so far);
* :class:`PiToolResult` -> ``tool-result`` / ``tool-error`` (provider-executed);
* :class:`PiRefusedHostCall` -> the host tool's ``tool-call`` and a ``tool-output-denied``
  whose reason says the tool is inactive and quotes what pi told the model;
* :class:`PiCompaction` -> a dynamic provider-executed ``compaction`` call and result
  whose output carries the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness_core import (
    COMPACTION_TOOL,
    FinishReason,
    FinishStepPart,
    Part,
    ProjectionContext,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
)

from ._builtins import BY_NATIVE
from ._events import PiEvent, PiRecord, PiRefusedHostCall, PiToolCall, PiToolProgress, PiToolResult
from ._settings import HARNESS_ID

__all__ = ["COMPACTION_TOOL", "finish_reason", "project", "usage_from"]


_STATE: Final = "harness_pi.message"
_STOP: Final[Mapping[str, FinishReason]] = {
    "stop": "stop", "toolUse": "tool-calls", "length": "length", "error": "error", "aborted": "aborted",
}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(raw: object) -> Usage:
    """harness-core usage from pi's ``{input, output, cacheRead, cacheWrite, totalTokens, cost}``.

    pi's ``input`` excludes cache reads and writes; ``input_tokens`` here includes them.
    """
    if not isinstance(raw, Mapping):
        return Usage()
    fresh, read, written = _int(raw.get("input")), _int(raw.get("cacheRead")), _int(raw.get("cacheWrite"))
    cost = raw.get("cost")
    total_cost = cost.get("total") if isinstance(cost, Mapping) else None
    return Usage(
        input_tokens=None if fresh is None else fresh + (read or 0) + (written or 0),
        output_tokens=_int(raw.get("output")),
        total_tokens=_int(raw.get("totalTokens")),
        cached_input_tokens=read,
        cache_creation_input_tokens=written,
        reasoning_tokens=_int(raw.get("reasoning")),
        cost_usd=float(total_cost) if isinstance(total_cost, int | float) and not isinstance(total_cost, bool) else None,
    )


def finish_reason(stop_reason: object) -> FinishReason:
    """pi's ``stopReason`` as a finish reason (``toolUse`` is ``tool-calls``)."""
    return _STOP.get(stop_reason, "other") if isinstance(stop_reason, str) else "unknown"


def _identity(native_name: str) -> tuple[str, bool, dict[str, dict[str, Any]] | None]:
    builtin = BY_NATIVE.get(native_name)
    if builtin is None:
        return native_name, True, None
    metadata = {HARNESS_ID: {"nativeToolName": native_name}} if builtin.name != native_name else None
    return builtin.name, False, metadata


def _message(record: Mapping[str, Any], context: ProjectionContext) -> list[Part]:
    kind = record.get("type")
    message = record.get("message")
    if kind == "message_start":
        context.state[_STATE] = context.new_id("m")
        return [StartStepPart()]
    prefix = str(context.state.get(_STATE, "m"))
    if kind == "message_end":
        data = message if isinstance(message, Mapping) else {}
        return [FinishStepPart(finish_reason=finish_reason(data.get("stopReason")), usage=usage_from(data.get("usage")))]
    update = record.get("assistantMessageEvent")
    if kind != "message_update" or not isinstance(update, Mapping):
        return []
    step = str(update.get("type", ""))
    part_id = f"{prefix}:{update.get('contentIndex', 0)}"
    delta = update.get("delta")
    if step == "text_start":
        return [TextStartPart(id=part_id)]
    if step == "text_delta" and isinstance(delta, str) and delta:
        return [TextDeltaPart(id=part_id, text=delta)]
    if step == "text_end":
        return [TextEndPart(id=part_id)]
    if step == "thinking_start":
        return [ReasoningStartPart(id=part_id)]
    if step == "thinking_delta" and isinstance(delta, str) and delta:
        return [ReasoningDeltaPart(id=part_id, text=delta)]
    if step == "thinking_end":
        return [ReasoningEndPart(id=part_id)]
    return []


def project(event: PiEvent, context: ProjectionContext) -> list[Part]:
    """The parts for one native pi event (see the module docs)."""
    if isinstance(event, PiRecord):
        return _message(event.record, context)
    if isinstance(event, PiToolCall):
        name, dynamic, metadata = _identity(event.native_name)
        return [ToolCallPart(tool_call_id=event.call_id, tool_name=name, input=event.input, provider_executed=True,
                             dynamic=dynamic or None, provider_metadata=metadata)]
    if isinstance(event, PiToolProgress):
        name, dynamic, metadata = _identity(event.native_name)
        return [ToolResultPart(tool_call_id=event.call_id, tool_name=name, input=event.input, output=event.output,
                               provider_executed=True, dynamic=dynamic or None, preliminary=True,
                               provider_metadata=metadata)]
    if isinstance(event, PiToolResult):
        name, dynamic, metadata = _identity(event.native_name)
        if event.is_error:
            return [ToolErrorPart(tool_call_id=event.call_id, tool_name=name, input=event.input, error=event.output,
                                  provider_executed=True, dynamic=dynamic or None, provider_metadata=metadata)]
        return [ToolResultPart(tool_call_id=event.call_id, tool_name=name, input=event.input, output=event.output,
                               provider_executed=True, dynamic=dynamic or None, provider_metadata=metadata)]
    if isinstance(event, PiRefusedHostCall):
        reason = (f"tool {event.tool_name!r} is inactive in this session and was never registered in pi, "
                  f"which refused the call itself and told the model: {event.told}")
        return [ToolCallPart(tool_call_id=event.call_id, tool_name=event.tool_name, input=event.input),
                ToolOutputDeniedPart(tool_call_id=event.call_id, tool_name=event.tool_name, reason=reason)]
    trigger = {"trigger": event.reason}  # a PiCompaction
    output: dict[str, Any] = {"summary": event.summary, "trigger": event.reason}
    if event.tokens_before is not None:
        output["tokensBefore"] = event.tokens_before
    return [
        ToolCallPart(tool_call_id=event.compaction_id, tool_name=COMPACTION_TOOL, input=trigger,
                     provider_executed=True, dynamic=True),
        ToolResultPart(tool_call_id=event.compaction_id, tool_name=COMPACTION_TOOL, input=trigger,
                       output=output, provider_executed=True, dynamic=True),
    ]
