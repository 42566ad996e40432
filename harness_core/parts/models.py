"""Stream parts: the normalized events of a harness turn.

Names and fields follow the AI SDK's stream protocol (``fullStream`` parts), so that its UI
clients can consume them: a part serializes with :meth:`Part.to_json` to camelCase keys,
e.g. ``{"type": "tool-call", "toolCallId": "c1", "toolName": "bash", "input": {...},
"providerExecuted": true}``. Python code reads the snake_case attributes.

Built-in calls carry ``provider_executed=True`` and, when the runtime's name differs from
the harness-facing one, ``provider_metadata[harness_id]["nativeToolName"]``. Opaque
workspace mutations and context compaction are dynamic, provider-executed tool parts
named :data:`FILE_CHANGE_TOOL` and :data:`COMPACTION_TOOL`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeAlias

import pydantic
from pydantic.alias_generators import to_camel

__all__ = [
    "COMPACTION_TOOL",
    "FILE_CHANGE_TOOL",
    "AbortPart",
    "ErrorPart",
    "FinishPart",
    "FinishReason",
    "FinishStepPart",
    "Part",
    "RawPart",
    "ReasoningDeltaPart",
    "ReasoningEndPart",
    "ReasoningStartPart",
    "StartPart",
    "StartStepPart",
    "StreamPart",
    "TextDeltaPart",
    "TextEndPart",
    "TextStartPart",
    "ToolApprovalRequestPart",
    "ToolApprovalResponsePart",
    "ToolCallPart",
    "ToolErrorPart",
    "ToolInputDeltaPart",
    "ToolInputEndPart",
    "ToolInputStartPart",
    "ToolOutputDeniedPart",
    "ToolResultPart",
    "Usage",
    "parse_part",
    "with_native_tool_name",
]

FILE_CHANGE_TOOL: Final = "fileChange"
"""Dynamic tool name for opaque workspace file mutations."""
COMPACTION_TOOL: Final = "compaction"
"""Dynamic tool name for context compaction."""

FinishReason: TypeAlias = Literal[
    "stop", "length", "content-filter", "tool-calls", "error", "other", "unknown",
    "awaiting-approval", "awaiting-tool-result", "aborted",
]
"""Why a step or turn ended. The AI SDK values, plus the harness pauses
``awaiting-approval`` and ``awaiting-tool-result`` and ``aborted``."""

ProviderMetadata: TypeAlias = dict[str, dict[str, Any]]


class _Model(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid"
    )


class Usage(_Model):
    """Token usage of a step or a turn. Missing counts are ``None``.

    Attributes:
        input_tokens / output_tokens / total_tokens: token counts.
        cached_input_tokens: input tokens served from the prompt cache (read).
        cache_creation_input_tokens: input tokens written to the prompt cache.
        reasoning_tokens: output tokens spent on reasoning.
        cost_usd: the runtime's cost estimate in US dollars, when it reports one.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        # Usage is frozen: adding nothing gives the other operand itself (no new model).
        mine, theirs = self.__dict__, other.__dict__
        if all(v is None for v in theirs.values()):
            return self
        if all(v is None for v in mine.values()):
            return other

        total: dict[str, Any] = {}
        for name in _USAGE_FIELDS:
            a, b = mine[name], theirs[name]
            total[name] = b if a is None else a if b is None else a + b
        return Usage(**total)


_USAGE_FIELDS: Final = tuple(Usage.model_fields)


class Part(_Model):
    """Base class of every stream part; ``type`` is the AI SDK part type."""

    type: str

    def to_json(self) -> dict[str, Any]:
        """The part as a JSON-compatible dict in the AI SDK's shape (camelCase keys,
        ``None`` fields left out); use :func:`json.dumps` on it for text."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class StartPart(Part):
    """A turn (result slice) starts."""

    type: Literal["start"] = "start"


class StartStepPart(Part):
    """A model step starts."""

    type: Literal["start-step"] = "start-step"


class TextStartPart(Part):
    """A text block starts; ``id`` ties its deltas together."""

    type: Literal["text-start"] = "text-start"
    id: str
    provider_metadata: ProviderMetadata | None = None


class TextDeltaPart(Part):
    """A chunk of assistant text."""

    type: Literal["text-delta"] = "text-delta"
    id: str
    text: str


class TextEndPart(Part):
    """A text block ends."""

    type: Literal["text-end"] = "text-end"
    id: str


class ReasoningStartPart(Part):
    """A reasoning (thinking) block starts."""

    type: Literal["reasoning-start"] = "reasoning-start"
    id: str
    provider_metadata: ProviderMetadata | None = None


class ReasoningDeltaPart(Part):
    """A chunk of reasoning text."""

    type: Literal["reasoning-delta"] = "reasoning-delta"
    id: str
    text: str


class ReasoningEndPart(Part):
    """A reasoning block ends."""

    type: Literal["reasoning-end"] = "reasoning-end"
    id: str


class ToolInputStartPart(Part):
    """The model starts streaming a tool call's input."""

    type: Literal["tool-input-start"] = "tool-input-start"
    id: str
    tool_name: str
    provider_executed: bool | None = None
    dynamic: bool | None = None


class ToolInputDeltaPart(Part):
    """A chunk of a tool call's JSON input text."""

    type: Literal["tool-input-delta"] = "tool-input-delta"
    id: str
    delta: str


class ToolInputEndPart(Part):
    """A tool call's input is complete."""

    type: Literal["tool-input-end"] = "tool-input-end"
    id: str


class ToolCallPart(Part):
    """A complete tool call.

    ``provider_executed`` is true for built-ins the runtime runs; ``dynamic`` for tools
    outside the typed tool set; ``provider_metadata[harness_id]["nativeToolName"]`` names
    the runtime's tool when it differs from ``tool_name``.
    """

    type: Literal["tool-call"] = "tool-call"
    tool_call_id: str
    tool_name: str
    input: Any = None
    provider_executed: bool | None = None
    dynamic: bool | None = None
    invalid: bool | None = None
    error: str | None = None
    provider_metadata: ProviderMetadata | None = None


class ToolResultPart(Part):
    """A tool call's result; ``preliminary`` results precede the final one.

    ``warnings`` lists what did not reach the model as the part shows it: a rich result's
    image or other item the runtime cannot carry, replaced by a placeholder line (see
    :mod:`harness_core.tools.content`); ``None`` when everything was passed on.
    """

    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    tool_name: str
    input: Any = None
    output: Any = None
    provider_executed: bool | None = None
    dynamic: bool | None = None
    preliminary: bool | None = None
    provider_metadata: ProviderMetadata | None = None
    warnings: tuple[str, ...] | None = None


class ToolErrorPart(Part):
    """A tool call failed; ``error`` is the message the model received."""

    type: Literal["tool-error"] = "tool-error"
    tool_call_id: str
    tool_name: str
    input: Any = None
    error: str
    provider_executed: bool | None = None
    dynamic: bool | None = None
    provider_metadata: ProviderMetadata | None = None


class ToolApprovalRequestPart(Part):
    """A call waits for a person's decision; the turn pauses after this part.

    ``is_automatic`` (JSON ``isAutomatic``) is ``True`` when no person is asked: a policy
    (a ``denied`` ``tool_approval``, a rules file, the permission mode) decided the call
    and a :class:`ToolApprovalResponsePart` with the same flag follows at once; the turn
    does not pause. ``None`` for a request a person answers.
    """

    type: Literal["tool-approval-request"] = "tool-approval-request"
    approval_id: str
    tool_call: ToolCallPart
    is_automatic: bool | None = None


class ToolApprovalResponsePart(Part):
    """The decision for an approval request (echoed when the turn continues).

    ``is_automatic`` (JSON ``isAutomatic``) is ``True`` when a policy decided without a
    person (see :class:`ToolApprovalRequestPart`); ``None`` for a person's answer.
    """

    type: Literal["tool-approval-response"] = "tool-approval-response"
    approval_id: str
    approved: bool
    reason: str | None = None
    provider_executed: bool | None = None
    is_automatic: bool | None = None


class ToolOutputDeniedPart(Part):
    """A call was denied (an ``execution-denied`` result); it never executed."""

    type: Literal["tool-output-denied"] = "tool-output-denied"
    tool_call_id: str
    tool_name: str
    reason: str | None = None
    provider_executed: bool | None = None


class FinishStepPart(Part):
    """A model step ends."""

    type: Literal["finish-step"] = "finish-step"
    finish_reason: FinishReason = "stop"
    usage: Usage = Usage()
    provider_metadata: ProviderMetadata | None = None


class FinishPart(Part):
    """The result slice ends (the turn finished or paused)."""

    type: Literal["finish"] = "finish"
    finish_reason: FinishReason = "stop"
    total_usage: Usage = Usage()


class ErrorPart(Part):
    """An error ended the turn, or a runtime reported one; ``error`` is a message."""

    type: Literal["error"] = "error"
    error: str
    error_type: str | None = None


class AbortPart(Part):
    """The turn was aborted (cancelled)."""

    type: Literal["abort"] = "abort"
    reason: str | None = None


class RawPart(Part):
    """A native runtime event no projection understood, passed through."""

    type: Literal["raw"] = "raw"
    raw_value: Any = None


StreamPart: TypeAlias = Annotated[
    StartPart | StartStepPart | TextStartPart | TextDeltaPart | TextEndPart
    | ReasoningStartPart | ReasoningDeltaPart | ReasoningEndPart
    | ToolInputStartPart | ToolInputDeltaPart | ToolInputEndPart
    | ToolCallPart | ToolResultPart | ToolErrorPart
    | ToolApprovalRequestPart | ToolApprovalResponsePart | ToolOutputDeniedPart
    | FinishStepPart | FinishPart | ErrorPart | AbortPart | RawPart,
    pydantic.Field(discriminator="type"),
]
"""Any stream part, discriminated by ``type``."""

@functools.cache
def _part_adapter() -> pydantic.TypeAdapter[StreamPart]:
    """The validator of :data:`StreamPart`, built on first use (building it builds every part model)."""
    return pydantic.TypeAdapter(StreamPart)


def parse_part(data: Mapping[str, Any]) -> Part:
    """Parse AI SDK-style JSON data (camelCase or snake_case keys) into a part.

    Raises:
        pydantic.ValidationError: naming the bad field.
    """
    return _part_adapter().validate_python(data)


def with_native_tool_name(
    provider_metadata: Mapping[str, Mapping[str, Any]] | None,
    harness_id: str,
    tool_name: str,
    native_tool_name: str | None,
) -> ProviderMetadata | None:
    """Add ``nativeToolName`` under ``harness_id`` when it differs from ``tool_name``.

    Existing metadata (other harnesses, other keys) is preserved; returns ``None`` when
    there is nothing to carry.
    """
    merged: ProviderMetadata = {k: dict(v) for k, v in (provider_metadata or {}).items()}
    if native_tool_name and native_tool_name != tool_name:
        merged.setdefault(harness_id, {})["nativeToolName"] = native_tool_name
    return merged or None
