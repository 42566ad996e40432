"""The scripted runtime's native events and their projection into stream parts (the
adapter's own ``harness_project_event``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from harness_core.hook_contexts import ProjectionContext
from harness_core.parts.models import (
    COMPACTION_TOOL,
    FILE_CHANGE_TOOL,
    FinishStepPart,
    Part,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolResultPart,
    Usage,
    with_native_tool_name,
)

__all__ = [
    "STEP_USAGE",
    "NativeCompaction",
    "NativeFileChange",
    "NativeReasoning",
    "NativeStepEnd",
    "NativeText",
    "NativeToolResult",
    "NativeToolUse",
    "project_scripted_event",
]


@attrs.frozen
class NativeText:
    """Native event: assistant text."""

    text: str


@attrs.frozen
class NativeReasoning:
    """Native event: reasoning text."""

    text: str


@attrs.frozen
class NativeToolUse:
    """Native event: a built-in call (native name)."""

    call_id: str
    name: str
    input: Mapping[str, Any]
    provider_metadata: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


@attrs.frozen
class NativeToolResult:
    """Native event: a built-in call's result (native name)."""

    call_id: str
    name: str
    content: str
    is_error: bool


@attrs.frozen
class NativeFileChange:
    """Native event: an opaque workspace change."""

    change_id: str
    path: str
    kind: str


@attrs.frozen
class NativeCompaction:
    """Native event: the context was compacted."""

    compaction_id: str
    summary: str


@attrs.frozen
class NativeStepEnd:
    """Native event: a model step with tool calls ended."""

    usage: Usage


STEP_USAGE = Usage(input_tokens=10, output_tokens=5, total_tokens=15)
"""The usage every scripted model step reports."""


def _text_parts(kind: Literal["text", "reasoning"], text: str, context: ProjectionContext) -> list[Part]:
    block = context.new_id(kind)
    if kind == "text":
        return [TextStartPart(id=block), TextDeltaPart(id=block, text=text), TextEndPart(id=block)]
    return [ReasoningStartPart(id=block), ReasoningDeltaPart(id=block, text=text), ReasoningEndPart(id=block)]


def project_scripted_event(event: object, context: ProjectionContext) -> Sequence[Part] | None:
    """Parts for one native event of the scripted runtime (``None`` for other events)."""
    if isinstance(event, NativeText):
        return _text_parts("text", event.text, context)
    if isinstance(event, NativeReasoning):
        return _text_parts("reasoning", event.text, context)
    if isinstance(event, NativeToolUse | NativeToolResult):
        builtin = context.builtin_by_native(event.name)
        name = builtin.name if builtin is not None else event.name
        if isinstance(event, NativeToolUse):
            return [ToolCallPart(
                tool_call_id=event.call_id, tool_name=name, input=dict(event.input), provider_executed=True,
                dynamic=None if builtin is not None else True,
                provider_metadata=with_native_tool_name(event.provider_metadata, context.harness_id, name, event.name),
            )]
        if event.is_error:
            return [ToolErrorPart(tool_call_id=event.call_id, tool_name=name, error=event.content,
                                  provider_executed=True)]
        return [ToolResultPart(tool_call_id=event.call_id, tool_name=name, output=event.content,
                               provider_executed=True)]
    if isinstance(event, NativeFileChange):
        change = {"path": event.path, "kind": event.kind}
        return [
            ToolCallPart(tool_call_id=event.change_id, tool_name=FILE_CHANGE_TOOL, input=change,
                         provider_executed=True, dynamic=True),
            ToolResultPart(tool_call_id=event.change_id, tool_name=FILE_CHANGE_TOOL, input=change, output=change,
                           provider_executed=True, dynamic=True),
        ]
    if isinstance(event, NativeCompaction):
        return [
            ToolCallPart(tool_call_id=event.compaction_id, tool_name=COMPACTION_TOOL, input={},
                         provider_executed=True, dynamic=True),
            ToolResultPart(tool_call_id=event.compaction_id, tool_name=COMPACTION_TOOL, input={},
                           output={"summary": event.summary}, provider_executed=True, dynamic=True),
        ]
    if isinstance(event, NativeStepEnd):
        return [FinishStepPart(finish_reason="tool-calls", usage=event.usage)]
    return None
