"""The model-client contract of the built-in harness.

A :class:`ModelClient` streams one model response for a :class:`ModelRequest` as
:data:`ModelEvent` values: text and reasoning deltas, tool calls (start, argument
deltas), and a final :class:`ResponseDone` with the finish reason and usage. Failures are
raised as :class:`ModelError`, whose message says what happened and what to do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import attrs

from harness_core import FinishReason, HarnessError, Usage

from ..conversation import Message

__all__ = [
    "ModelClient",
    "ModelError",
    "ModelEvent",
    "ModelRequest",
    "ReasoningDelta",
    "ReasoningDone",
    "ResponseDone",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallStart",
    "ToolSpec",
]


@attrs.frozen
class ToolSpec:
    """A tool offered to the model: name, description, JSON Schema of its input."""

    name: str
    description: str
    input_schema: dict[str, Any]


@attrs.frozen(kw_only=True)
class ModelRequest:
    """One model call.

    Attributes:
        system: the system prompt.
        messages: the conversation so far.
        tools: the tools offered (may be empty: a tool-less request, e.g. a summary).
        max_output_tokens: the most tokens the response may produce.
    """

    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    max_output_tokens: int = 8192


@attrs.frozen
class TextDelta:
    """A chunk of response text."""

    text: str


@attrs.frozen
class ReasoningDelta:
    """A chunk of reasoning (thinking) text."""

    text: str


@attrs.frozen
class ReasoningDone:
    """A reasoning block ended; Anthropic's signature or redacted data, when present."""

    signature: str | None = None
    redacted: str | None = None


@attrs.frozen
class ToolCallStart:
    """The model starts a tool call; ``index`` ties the argument deltas to it."""

    index: int
    call_id: str
    name: str


@attrs.frozen
class ToolCallDelta:
    """A chunk of a tool call's JSON arguments."""

    index: int
    delta: str


@attrs.frozen
class ResponseDone:
    """The response is complete.

    Attributes:
        finish_reason: normalized: ``stop``, ``tool-calls``, ``length``,
            ``content-filter`` or ``other``.
        usage: tokens of this call.
        raw_finish_reason: the provider's own value.
    """

    finish_reason: FinishReason
    usage: Usage = attrs.field(factory=Usage)
    raw_finish_reason: str | None = None


ModelEvent: TypeAlias = TextDelta | ReasoningDelta | ReasoningDone | ToolCallStart | ToolCallDelta | ResponseDone
"""What :meth:`ModelClient.stream` yields."""


class ModelError(HarnessError):
    """A model call failed.

    Attributes:
        error_type: ``authentication``, ``permission``, ``not-found``, ``rate-limit``,
            ``bad-request``, ``overloaded``, ``server-error``, ``connection``,
            ``timeout``, ``incomplete-response`` or ``configuration``.
        provider: ``anthropic``, ``openai``, ``scripted``...
        status: the HTTP status, when there was one.
        hint: what to do about it (also part of the message).
    """

    def __init__(self, error_type: str, message: str, *, provider: str = "", status: int | None = None,
                 hint: str = "") -> None:
        self.error_type = error_type
        self.provider = provider
        self.status = status
        self.hint = hint
        text = message if not hint else f"{message}. {hint}"
        super().__init__(text)


@runtime_checkable
class ModelClient(Protocol):
    """Streams model responses.

    Attributes:
        name: ``provider:model`` as the user named it (shown in errors and usage).
    """

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response, ending with exactly one :class:`ResponseDone`.

        Raises:
            ModelError: the call failed (after the SDK's retries).
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
