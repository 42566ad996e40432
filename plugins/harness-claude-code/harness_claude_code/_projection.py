"""Projection of Claude Code's SDK messages into harness-core stream parts.

:func:`project` implements ``harness_project_event`` for :class:`ClaudeCodeEvent`\\ s:

* ``StreamEvent`` (partial messages, always on): see :mod:`._stream`.
* ``AssistantMessage``: each built-in ``tool_use`` -> ``tool-call`` (provider-executed,
  with ``nativeToolName`` when the names differ); a tool nobody declared (a native this
  adapter does not know, an external MCP tool) -> a dynamic provider-executed
  ``tool-call``; text not already streamed -> ``text-*``. Claude Code's synthetic API
  error message (``error`` set) projects to nothing: the turn's ``TurnEnd`` carries the
  error, and the agent reports it once as an ``error`` part.
* ``UserMessage`` tool results of built-ins -> ``tool-result`` or ``tool-error``
  (provider-executed), or ``tool-output-denied`` when Claude Code refused the call on its
  own (a ``permission_denied`` system message, or the "Permission to use ... has been
  denied." result of one of its permission rules).
* ``SystemMessage``: ``compact_boundary`` -> a dynamic provider-executed ``compaction``
  tool call and result; ``permission_denied`` (Claude Code refused a call) makes the call's
  result a ``tool-output-denied``; ``api_retry`` and unknown subtypes -> ``raw``.

Who emits which part (the adapter contract): under built-in approvals
(:attr:`TurnView.withhold_calls`) a built-in's ``tool-call`` part is held back until its
result arrives. If the host was asked about the call (a
:class:`~harness_core.BuiltinApprovalRequest`), the core emitted ``tool-call``, the
approval parts and, on a denial, ``tool-output-denied``; the projection then adds only the
final ``tool-result`` / ``tool-error`` of a call that ran, and nothing for a call the host
denied. If the host was never asked (Claude Code refused or allowed the call on its own),
the held ``tool-call`` is emitted just before the result or denial. Without approvals the
``tool-call`` part is emitted when the assistant message arrives.

Host tool calls (``mcp__harness__<name>``) are reported by the core when it handles the
:class:`~harness_core.HostToolCall`, so they are skipped here, except calls the runtime
answered before the host saw them (an MCP validation error). Messages of subagents
(``parent_tool_use_id`` set) are skipped, except the results of calls the host was asked
about (the core emitted their ``tool-call``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from harness_core import (
    COMPACTION_TOOL,
    Part,
    ProjectionContext,
    RawPart,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputEndPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)

from ._anthropic import int_or_none, result_text, strip_error_tag
from ._events import ClaudeCodeEvent, ReadOnlyTurnView
from ._identity import ToolIdentity, identify_tool
from ._projection_state import ProjectionState
from ._settings import HOST_PREFIX
from ._stream import project_stream_event

__all__ = ["project"]

_QUIET_SYSTEM = frozenset(
    {
        "init", "status", "thinking_tokens", "session_state_changed", "task_started",
        "task_progress", "task_notification", "task_updated", "hook_started", "hook_progress",
        "hook_response", "files_persisted",
    }
)


_RULE_DENIAL = re.compile(r"Permission to use \S+ .*has been denied\.?$", re.S)
"""The result text of a call Claude Code refused by one of its own permission rules (2.1.x)."""


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
    state = ProjectionState.of(context)
    if isinstance(message, StreamEvent):
        if message.parent_tool_use_id is not None:
            return []
        return project_stream_event(message.event, state, prefix, view, context)
    if isinstance(message, AssistantMessage):
        if message.parent_tool_use_id is not None:
            _note_subagent_calls(message, state, prefix)
            return []
        return _assistant(message, state, prefix, view, context)
    if isinstance(message, UserMessage):
        return _user(message, state, view, subagent=message.parent_tool_use_id is not None)
    if isinstance(message, ResultMessage):
        return []
    if isinstance(message, SystemMessage):
        return _system(message, state)
    return [RawPart(raw_value=_jsonable(message))]


def _system(message: Any, state: ProjectionState) -> list[Part]:
    subtype = message.subtype
    data = _map(message.data)
    if subtype == "permission_denied" and isinstance(data.get("tool_use_id"), str):
        # Claude Code refused the call (its own rules, or the host's answer): unless the
        # host denied it, the tool result that follows becomes tool-output-denied.
        state.runtime_denials[data["tool_use_id"]] = str(data.get("message") or data.get("decision_reason") or "")
        return []
    if subtype == "compact_boundary":
        meta = _map(data.get("compact_metadata"))
        call_id = f"compaction-{data.get('uuid') or 'boundary'}"
        trigger = meta.get("trigger") or "auto"
        output = {
            "trigger": trigger,
            "preTokens": int_or_none(meta.get("pre_tokens")),
            "postTokens": int_or_none(meta.get("post_tokens")),
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


def _note_subagent_calls(message: Any, state: ProjectionState, prefix: str) -> None:
    from claude_agent_sdk import ToolUseBlock

    for block in message.content:
        if isinstance(block, ToolUseBlock):
            state.calls[block.id] = (identify_tool(block.name, prefix), block.input)


def _assistant(message: Any, state: ProjectionState, prefix: str, view: ReadOnlyTurnView | None,
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
            state.calls[block.id] = (identity, block.input)
            if state.close_tool_input(block.id):
                # Claude Code sends the complete call before the stream's content_block_stop:
                # close the input stream first, so tool-input-end precedes tool-call.
                parts.append(ToolInputEndPart(id=block.id))
            if identity.host:
                continue
            call = _call_part(block.id, identity, block.input, view)
            if view is not None and view.withhold_calls:
                if not view.was_asked(block.id):
                    state.withheld[block.id] = call
            elif view is None or block.id not in view.replayed:
                parts.append(call)
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


def _call_part(tool_use_id: str, identity: ToolIdentity, call_input: Any,
               view: ReadOnlyTurnView | None) -> ToolCallPart:
    return ToolCallPart(
        tool_call_id=view.original_id(tool_use_id) if view is not None else tool_use_id,
        tool_name=identity.tool_name, input=call_input, provider_executed=True,
        dynamic=identity.dynamic or None, provider_metadata=identity.metadata(),
    )


def _user(message: Any, state: ProjectionState, view: ReadOnlyTurnView | None, *, subagent: bool) -> list[Part]:
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
        if subagent and (view is None or not view.was_asked(block.tool_use_id)):
            continue  # a subagent's call the host never heard of
        parts += _result_parts(block, identity, call_input, state, view)
    return parts


def _result_parts(block: Any, identity: ToolIdentity, call_input: Any, state: ProjectionState,
                  view: ReadOnlyTurnView | None) -> list[Part]:
    tool_use_id: str = block.tool_use_id
    call_id = view.original_id(tool_use_id) if view is not None else tool_use_id
    text = result_text(block.content)
    metadata = identity.metadata()
    if identity.host:
        if view is not None and tool_use_id in view.host_calls:
            return []
        if view is not None and identity.tool_name in view.withheld_host_tools:
            # An inactive host tool: the CLI never had it and refused the call itself.
            return [
                ToolCallPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                             provider_metadata=metadata),
                ToolOutputDeniedPart(tool_call_id=call_id, tool_name=identity.tool_name, reason=(
                    f"tool {identity.tool_name!r} is inactive in this session and was never offered to Claude Code, "
                    f"which refused the call itself and told the model: {strip_error_tag(text)}")),
            ]
        # The runtime answered a host call the host never saw (an MCP error).
        return [
            ToolCallPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                         invalid=True, error=text, provider_metadata=metadata),
            ToolErrorPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                          error=strip_error_tag(text), provider_metadata=metadata),
        ]
    withheld = state.withheld.pop(tool_use_id, None)
    if view is not None and tool_use_id in view.denied:
        return []  # the host denied it: the core emitted tool-output-denied
    parts: list[Part] = []
    if withheld is not None and (view is None or not view.was_asked(tool_use_id)):
        parts.append(withheld)  # Claude Code decided on its own: the core never saw the call
    dynamic = identity.dynamic or None
    denial = state.runtime_denials.get(tool_use_id) or (view.refusal(tool_use_id) if view is not None else None)
    if denial is None and block.is_error and _RULE_DENIAL.match(text.strip()):
        denial = text.strip()
    if denial is not None:
        parts.append(ToolOutputDeniedPart(tool_call_id=call_id, tool_name=identity.tool_name,
                                          reason=denial or strip_error_tag(text) or None, provider_executed=True))
    elif block.is_error:
        parts.append(ToolErrorPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                                   error=strip_error_tag(text), provider_executed=True, dynamic=dynamic,
                                   provider_metadata=metadata))
    else:
        parts.append(ToolResultPart(tool_call_id=call_id, tool_name=identity.tool_name, input=call_input,
                                    output=text, provider_executed=True, dynamic=dynamic, provider_metadata=metadata))
    return parts
