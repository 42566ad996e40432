"""Projection of Claude Code's SDK messages into harness-core stream parts.

:func:`project` implements ``harness_project_event`` for :class:`ClaudeCodeEvent`\\ s:

* ``StreamEvent`` (partial messages, always on): ``message_start`` -> ``start-step``;
  text and thinking blocks -> ``text-*`` / ``reasoning-*`` deltas; a built-in's
  ``tool_use`` block -> ``tool-input-start`` / ``-delta`` / ``-end``;
  ``message_stop`` -> ``finish-step`` with the step's usage.
* ``AssistantMessage``: each built-in ``tool_use`` -> ``tool-call`` (provider-executed,
  with ``nativeToolName`` when the names differ); a tool nobody declared (a native this
  adapter does not know, an external MCP tool) -> a dynamic provider-executed
  ``tool-call``; text not already streamed -> ``text-*``. Claude Code's synthetic API
  error message (``error`` set) projects to nothing: the turn's ``TurnEnd`` carries the
  error, and the agent reports it once as an ``error`` part.
* ``UserMessage`` tool results of built-ins -> ``tool-result``, ``tool-error``, or
  ``tool-output-denied`` when the host denied the call.
* ``SystemMessage``: ``compact_boundary`` -> a dynamic provider-executed ``compaction``
  tool call and result; ``permission_denied`` (Claude Code refused a call) makes the call's
  result a ``tool-output-denied``; ``api_retry`` and unknown subtypes -> ``raw``.

Host tool calls (``mcp__harness__<name>``) are reported by the agent when it handles the
:class:`~harness_core.HostToolCall`, so they are skipped here, except calls the runtime
answered before the host saw them. Messages of subagents (``parent_tool_use_id`` set) are
skipped: their tool calls still reach the host's approval pipeline one by one.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Final

from harness_core import ProjectionContext
from harness_core.parts.models import (
    COMPACTION_TOOL,
    FinishReason,
    FinishStepPart,
    Part,
    RawPart,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    StartStepPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    ToolOutputDeniedPart,
    ToolResultPart,
    Usage,
    with_native_tool_name,
)

from ._builtins import builtin_for_native
from ._events import ClaudeCodeEvent, ReadOnlyTurnView
from ._settings import HARNESS_ID, HOST_PREFIX

__all__ = [
    "HARNESS_ID",
    "API_ERROR_TYPES",
    "ToolIdentity",
    "finish_reason",
    "identify_tool",
    "project",
    "result_text",
    "usage_from",
]

_STATE: Final = "claude-code.projection"

_STOP_REASONS: Final[Mapping[str, FinishReason]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool-calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content-filter",
    "pause_turn": "other",
}

API_ERROR_TYPES: Final[Mapping[str, str]] = {
    "authentication_failed": "authentication",
    "billing_error": "billing",
    "rate_limit": "rate-limit",
    "invalid_request": "invalid-request",
    "server_error": "server",
    "max_output_tokens": "length",
    "unknown": "api",
}
"""Claude Code's ``AssistantMessage.error`` values -> harness error types."""

_QUIET_SYSTEM: Final = frozenset(
    {
        "init", "status", "thinking_tokens", "session_state_changed", "task_started",
        "task_progress", "task_notification", "task_updated", "hook_started", "hook_progress",
        "hook_response", "files_persisted",
    }
)


def finish_reason(stop_reason: object) -> FinishReason:
    """Map an Anthropic ``stop_reason`` to a finish reason (``unknown`` when unrecognized)."""
    return _STOP_REASONS.get(stop_reason, "unknown") if isinstance(stop_reason, str) else "unknown"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(raw: object, *, cost_usd: float | None = None) -> Usage:
    """Build a :class:`~harness_core.parts.models.Usage` from an Anthropic-style usage mapping.

    ``input_tokens`` / ``output_tokens`` are copied, ``cache_read_input_tokens`` becomes
    ``cached_input_tokens``, ``cache_creation_input_tokens`` is kept, thinking tokens
    (``output_tokens_details.thinking_tokens``) become ``reasoning_tokens``;
    ``total_tokens`` is input plus output. Missing counts stay ``None``.
    """
    data = raw if isinstance(raw, Mapping) else {}
    details = data.get("output_tokens_details")
    thinking = _int(details.get("thinking_tokens")) if isinstance(details, Mapping) else None
    input_tokens, output_tokens = _int(data.get("input_tokens")), _int(data.get("output_tokens"))
    total = None if input_tokens is None and output_tokens is None else (input_tokens or 0) + (output_tokens or 0)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=total,
        cached_input_tokens=_int(data.get("cache_read_input_tokens")),
        cache_creation_input_tokens=_int(data.get("cache_creation_input_tokens")),
        reasoning_tokens=thinking or None,
        cost_usd=cost_usd,
    )


def result_text(content: object) -> str:
    """The text of a tool result's ``content`` (a string or a list of content blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text"
        ]
        return "\n".join(texts)
    return str(content)


def _strip_error_tag(text: str) -> str:
    stripped = text.strip()
    start, end = "<tool_use_error>", "</tool_use_error>"
    if stripped.startswith(start) and stripped.endswith(end):
        return stripped[len(start) : -len(end)].strip()
    return text


@dataclasses.dataclass(frozen=True)
class ToolIdentity:
    """How a native tool name is presented to the host.

    Attributes:
        tool_name: the harness-facing name (common name, native name or host tool name).
        native_tool_name: the runtime's name when it differs from ``tool_name``.
        host: the call is a host tool call (through the in-process MCP server).
        dynamic: the tool is outside the typed tool set (undeclared native, external MCP).
    """

    tool_name: str
    native_tool_name: str | None
    host: bool
    dynamic: bool

    def metadata(self) -> dict[str, dict[str, Any]] | None:
        """``provider_metadata`` carrying ``nativeToolName`` when the names differ."""
        return with_native_tool_name(None, HARNESS_ID, self.tool_name, self.native_tool_name)


def identify_tool(native_name: str, host_prefix: str = HOST_PREFIX) -> ToolIdentity:
    """Classify a tool name as Claude Code uses it (``Bash``, ``mcp__harness__weather``...)."""
    if native_name.startswith(host_prefix) and len(native_name) > len(host_prefix):
        return ToolIdentity(native_name[len(host_prefix) :], native_name, host=True, dynamic=False)
    builtin = builtin_for_native(native_name)
    if builtin is not None:
        native = native_name if native_name != builtin.name else None
        return ToolIdentity(builtin.name, native, host=False, dynamic=False)
    return ToolIdentity(native_name, None, host=False, dynamic=True)


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _jsonable(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"kind": type(value).__name__, **{
            field.name: _jsonable(getattr(value, field.name)) for field in dataclasses.fields(value)
        }}
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return repr(value)


class _Projector:
    """Per-turn projection state, kept in ``ProjectionContext.state``."""

    def __init__(self) -> None:
        self.streamed_messages: set[str] = set()
        self.message_id: str | None = None
        self.blocks: dict[int, tuple[str, str]] = {}
        self.step_usage: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.calls: dict[str, tuple[ToolIdentity, Any]] = {}
        self.runtime_denials: dict[str, str] = {}


def _projector(context: ProjectionContext) -> _Projector:
    state = context.state.get(_STATE)
    if not isinstance(state, _Projector):
        state = _Projector()
        context.state[_STATE] = state
    return state


def project(event: ClaudeCodeEvent, context: ProjectionContext) -> list[Part]:
    """The stream parts one Claude Code event becomes (see the module docstring)."""
    from claude_agent_sdk import (
        AssistantMessage,
        ResultMessage,
        StreamEvent,
        SystemMessage,
        UserMessage,
    )

    message = event.message
    view = event.view
    prefix = view.host_prefix if view is not None else HOST_PREFIX
    state = _projector(context)
    if isinstance(message, StreamEvent):
        if message.parent_tool_use_id is not None:
            return []
        return _stream_event(message.event, state, prefix, view, context)
    if isinstance(message, AssistantMessage):
        if message.parent_tool_use_id is not None:
            return []
        return _assistant(message, state, prefix, view, context)
    if isinstance(message, UserMessage):
        if message.parent_tool_use_id is not None:
            return []
        return _user(message, state, view)
    if isinstance(message, ResultMessage):
        return []
    if isinstance(message, SystemMessage):
        return _system(message, state)
    return [RawPart(raw_value=_jsonable(message))]


def _system(message: Any, state: _Projector) -> list[Part]:
    subtype = message.subtype
    data = _map(message.data)
    if subtype == "permission_denied" and isinstance(data.get("tool_use_id"), str):
        # Claude Code refused the call (its own rules, or the host's answer): the tool
        # result that follows becomes a tool-output-denied part with this reason.
        state.runtime_denials[data["tool_use_id"]] = str(data.get("message") or data.get("decision_reason") or "")
        return []
    if subtype == "compact_boundary":
        meta = _map(data.get("compact_metadata"))
        call_id = f"compaction-{data.get('uuid') or 'boundary'}"
        trigger = meta.get("trigger") or "auto"
        output = {
            "trigger": trigger,
            "preTokens": _int(meta.get("pre_tokens")),
            "postTokens": _int(meta.get("post_tokens")),
        }
        return [
            ToolCallPart(tool_call_id=call_id, tool_name=COMPACTION_TOOL, input={"trigger": trigger},
                         provider_executed=True, dynamic=True),
            ToolResultPart(tool_call_id=call_id, tool_name=COMPACTION_TOOL, input={"trigger": trigger},
                           output={k: v for k, v in output.items() if v is not None},
                           provider_executed=True, dynamic=True),
        ]
    if subtype in _QUIET_SYSTEM:
        return []
    return [RawPart(raw_value=_jsonable(message))]


def _stream_event(event: Mapping[str, Any], state: _Projector, prefix: str, view: ReadOnlyTurnView | None,
                  context: ProjectionContext) -> list[Part]:
    kind = event.get("type")
    if kind == "message_start":
        raw = _map(event.get("message"))
        state.message_id = str(raw.get("id") or context.new_id("message"))
        state.streamed_messages.add(state.message_id)
        state.blocks = {}
        state.step_usage = dict(raw.get("usage") or {})
        state.stop_reason = None
        return [StartStepPart()]
    index = event.get("index")
    if kind == "content_block_start" and isinstance(index, int):
        block = _map(event.get("content_block"))
        block_type = block.get("type")
        if block_type in ("text", "thinking", "redacted_thinking"):
            part_id = f"{state.message_id or 'message'}:{index}"
            state.blocks[index] = (str(block_type), part_id)
            if block_type == "text":
                return [TextStartPart(id=part_id)]
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
    if kind == "content_block_delta" and isinstance(index, int):
        delta = _map(event.get("delta"))
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
                             for k, pid in state.blocks.values() if k in ("text", "thinking", "redacted_thinking")]
        state.blocks = {}
        parts.append(FinishStepPart(finish_reason=finish_reason(state.stop_reason), usage=usage_from(state.step_usage)))
        return parts
    return []


def _assistant(message: Any, state: _Projector, prefix: str, view: ReadOnlyTurnView | None,
               context: ProjectionContext) -> list[Part]:
    from claude_agent_sdk import TextBlock, ThinkingBlock, ToolUseBlock

    if message.error is not None:
        # An API error Claude Code gave up on: the turn's TurnEnd carries it (the agent
        # turns that into the ``error`` part), so it is not reported twice.
        return []
    streamed = message.message_id is not None and message.message_id in state.streamed_messages
    parts: list[Part] = []
    for block in message.content:
        if isinstance(block, ToolUseBlock):
            identity = identify_tool(block.name, prefix)
            call_id = view.original_id(block.id) if view is not None else block.id
            state.calls[block.id] = (identity, block.input)
            open_input = next((i for i, (kind, pid) in state.blocks.items() if kind == "tool_use" and pid == block.id),
                              None)
            if open_input is not None:
                # Claude Code sends the complete call before the stream's content_block_stop:
                # close the input stream first, so tool-input-end precedes tool-call.
                del state.blocks[open_input]
                parts.append(ToolInputEndPart(id=block.id))
            if identity.host or (view is not None and block.id in view.replayed):
                continue
            parts.append(ToolCallPart(
                tool_call_id=call_id, tool_name=identity.tool_name, input=block.input,
                provider_executed=True, dynamic=identity.dynamic or None, provider_metadata=identity.metadata(),
            ))
        elif streamed:
            continue
        elif isinstance(block, TextBlock) and block.text:
            part_id = context.new_id("text")
            parts += [TextStartPart(id=part_id), TextDeltaPart(id=part_id, text=block.text), TextEndPart(id=part_id)]
        elif isinstance(block, ThinkingBlock) and block.thinking:
            part_id = context.new_id("reasoning")
            parts += [ReasoningStartPart(id=part_id), ReasoningDeltaPart(id=part_id, text=block.thinking),
                      ReasoningEndPart(id=part_id)]
    return parts


def _user(message: Any, state: _Projector, view: ReadOnlyTurnView | None) -> list[Part]:
    from claude_agent_sdk import ToolResultBlock

    if not isinstance(message.content, list):
        return []
    parts: list[Part] = []
    for block in message.content:
        if not isinstance(block, ToolResultBlock):
            continue
        known = state.calls.get(block.tool_use_id)
        if known is None:
            continue
        identity, call_input = known
        call_id = view.original_id(block.tool_use_id) if view is not None else block.tool_use_id
        text = result_text(block.content)
        if identity.host:
            if view is not None and block.tool_use_id in view.host_calls:
                continue
            # The runtime answered a host call the host never saw (an MCP error).
            parts.append(ToolCallPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                                      invalid=True, error=text, provider_metadata=identity.metadata()))
            parts.append(ToolErrorPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                                       error=_strip_error_tag(text), provider_metadata=identity.metadata()))
            continue
        dynamic = identity.dynamic or None
        denial = view.denied.get(block.tool_use_id) if view is not None else None
        if denial is None:
            denial = state.runtime_denials.get(block.tool_use_id)
        if denial is not None:
            parts.append(ToolOutputDeniedPart(tool_call_id=call_id, tool_name=identity.tool_name,
                                              reason=denial or _strip_error_tag(text) or None, provider_executed=True))
        elif block.is_error:
            parts.append(ToolErrorPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                                       error=_strip_error_tag(text), provider_executed=True, dynamic=dynamic,
                                       provider_metadata=identity.metadata()))
        else:
            parts.append(ToolResultPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                                        output=text, provider_executed=True, dynamic=dynamic,
                                        provider_metadata=identity.metadata()))
    return parts


def dumps_input(value: object) -> str:
    """Canonical JSON of a tool input, for comparing calls."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)

