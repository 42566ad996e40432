"""Projection of Claude Code's partial-message stream events (``StreamEvent``).

Claude Code always runs with partial messages on; each ``StreamEvent.event`` is a raw
Anthropic Messages streaming event:

* ``message_start`` -> ``start-step``;
* text / thinking content blocks -> ``text-*`` / ``reasoning-*`` start, deltas and end;
* a built-in's ``tool_use`` block -> ``tool-input-start`` / ``-delta`` / ``-end``
  (host tool calls and calls of a re-run request are not streamed);
* ``message_delta`` -> the step's stop reason and usage; ``message_stop`` ->
  ``finish-step`` (closing any block left open).

Source: the Anthropic Messages streaming protocol (``content_block_*`` events).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core import (
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
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
)

from ._anthropic import finish_reason, usage_from
from ._events import ReadOnlyTurnView
from ._identity import identify_tool
from ._projection_state import ProjectionState

__all__ = ["project_stream_event"]

_TEXTUAL = ("text", "thinking", "redacted_thinking")


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def project_stream_event(event: Mapping[str, Any], state: ProjectionState, prefix: str,
                         view: ReadOnlyTurnView | None, context: ProjectionContext) -> list[Part]:
    """The parts one raw streaming event becomes (see the module docstring).

    ``prefix`` is the host tool prefix (``mcp__harness__``); ``view`` the turn's view, or
    ``None`` outside a turn.
    """
    kind = event.get("type")
    index = event.get("index")
    if kind == "message_start":
        raw = _map(event.get("message"))
        state.start_message(str(raw.get("id") or context.new_id("message")), dict(raw.get("usage") or {}))
        return [StartStepPart()]
    if kind == "content_block_start" and isinstance(index, int):
        return _block_start(_map(event.get("content_block")), index, state, prefix, view)
    if kind == "content_block_delta" and isinstance(index, int):
        return _block_delta(_map(event.get("delta")), index, state)
    if kind == "content_block_stop" and isinstance(index, int):
        known = state.blocks.pop(index, None)
        if known is None:
            return []
        block_kind, part_id = known
        if block_kind == "text":
            return [TextEndPart(id=part_id)]
        if block_kind in ("thinking", "redacted_thinking"):
            return [ReasoningEndPart(id=part_id)]
        if block_kind == "tool_use":
            return [ToolInputEndPart(id=part_id)]
        return []
    if kind == "message_delta":
        delta = _map(event.get("delta"))
        if delta.get("stop_reason") is not None:
            state.stop_reason = str(delta["stop_reason"])
        usage = event.get("usage")
        if isinstance(usage, Mapping):
            state.step_usage.update({k: v for k, v in usage.items() if v is not None})
        return []
    if kind == "message_stop":
        parts: list[Part] = [ReasoningEndPart(id=pid) if k.endswith("thinking") else TextEndPart(id=pid)
                             for k, pid in state.blocks.values() if k in _TEXTUAL]
        state.blocks = {}
        parts.append(FinishStepPart(finish_reason=finish_reason(state.stop_reason), usage=usage_from(state.step_usage)))
        return parts
    return []


def _block_start(block: Mapping[str, Any], index: int, state: ProjectionState, prefix: str,
                 view: ReadOnlyTurnView | None) -> list[Part]:
    block_type = block.get("type")
    if block_type in _TEXTUAL:
        part_id = f"{state.message_id or 'message'}:{index}"
        if block_type == "text":
            state.blocks[index] = ("text", part_id)
            return [TextStartPart(id=part_id)]
        state.blocks[index] = ("redacted_thinking" if block_type == "redacted_thinking" else "thinking", part_id)
        return [ReasoningStartPart(id=part_id)]
    if block_type == "tool_use":
        identity = identify_tool(str(block.get("name", "")), prefix)
        call_id = str(block.get("id", ""))
        if identity.host or (view is not None and view.replaying):
            state.blocks[index] = ("host_tool_use", call_id)
            return []
        state.blocks[index] = ("tool_use", call_id)
        return [ToolInputStartPart(id=call_id, tool_name=identity.tool_name, provider_executed=True,
                                   dynamic=identity.dynamic or None)]
    return []


def _block_delta(delta: Mapping[str, Any], index: int, state: ProjectionState) -> list[Part]:
    known = state.blocks.get(index)
    if known is None:
        return []
    block_kind, part_id = known
    delta_type = delta.get("type")
    if delta_type == "text_delta" and block_kind == "text":
        return [TextDeltaPart(id=part_id, text=str(delta.get("text", "")))]
    if delta_type == "thinking_delta" and block_kind == "thinking":
        return [ReasoningDeltaPart(id=part_id, text=str(delta.get("thinking", "")))]
    if delta_type == "input_json_delta" and block_kind == "tool_use":
        return [ToolInputDeltaPart(id=part_id, delta=str(delta.get("partial_json", "")))]
    return []
