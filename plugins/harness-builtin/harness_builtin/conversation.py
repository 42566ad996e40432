"""The built-in harness's conversation: provider-neutral messages, stored as JSON.

A session's history is a list of :data:`Message` values. Model clients translate it into
their wire format (Anthropic Messages, OpenAI Chat Completions); sessions persist it with
:func:`dump_messages` / :func:`load_messages` so a conversation can be resumed or a paused
turn continued in another process.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeAlias

import pydantic

from harness_core import HarnessConfigurationError

__all__ = [
    "AssistantMessage",
    "Message",
    "ReasoningBlock",
    "ResultItem",
    "ToolCallRecord",
    "ToolResultRecord",
    "TokenEstimator",
    "ToolResultsMessage",
    "UserMessage",
    "dump_messages",
    "estimate_tokens",
    "load_messages",
    "message_size",
]


class _Record(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid")


class ToolCallRecord(_Record):
    """A tool call the model made: call id, tool name, arguments (a JSON object)."""

    id: str
    name: str
    arguments: dict[str, Any] = pydantic.Field(default_factory=dict)


class ReasoningBlock(_Record):
    """Reasoning the model showed; ``signature`` / ``redacted`` are Anthropic's opaque
    values, needed to send thinking back in tool loops."""

    text: str = ""
    signature: str | None = None
    redacted: str | None = None


class UserMessage(_Record):
    """A user message.

    ``kind`` says where it came from: the user's ``prompt``, a ``repair`` note telling the
    model what was wrong with its last response, or a ``summary`` of compacted history.
    """

    role: Literal["user"] = "user"
    text: str
    kind: Literal["prompt", "repair", "summary"] = "prompt"


class AssistantMessage(_Record):
    """A model response: text, reasoning and tool calls.

    ``withheld`` marks a response that could not be used: its tool calls were dropped and
    never replayed; only its text (or a placeholder) stays in the history.
    """

    role: Literal["assistant"] = "assistant"
    text: str = ""
    reasoning: tuple[ReasoningBlock, ...] = ()
    tool_calls: tuple[ToolCallRecord, ...] = ()
    withheld: bool = False


class ResultItem(_Record):
    """One item of a rich tool result as the conversation keeps it: ``text`` (``text``) or
    ``image`` (base64 ``data``, ``media_type``)."""

    type: Literal["text", "image"]
    text: str | None = None
    data: str | None = None
    media_type: str | None = None


class ToolResultRecord(_Record):
    """The result of one tool call, as the model sees it.

    ``content`` is its text; ``items`` the rich result's items in order (text and images),
    empty for a plain result. A client that takes only text sends ``content``.
    """

    call_id: str
    name: str
    content: str
    is_error: bool = False
    items: tuple[ResultItem, ...] = ()


class ToolResultsMessage(_Record):
    """The results of an assistant message's tool calls, in call order."""

    role: Literal["tool"] = "tool"
    results: tuple[ToolResultRecord, ...]


Message: TypeAlias = Annotated[
    UserMessage | AssistantMessage | ToolResultsMessage, pydantic.Field(discriminator="role")
]
"""One message of the conversation."""

_MESSAGES: pydantic.TypeAdapter[list[Message]] = pydantic.TypeAdapter(list[Message])


def dump_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The messages as JSON data."""
    data: list[dict[str, Any]] = _MESSAGES.dump_python(list(messages), mode="json")
    return data


def load_messages(data: object, *, where: str = "conversation") -> list[Message]:
    """Messages from JSON data written by :func:`dump_messages`.

    Raises:
        HarnessConfigurationError: malformed data, naming the first bad field.
    """
    try:
        return _MESSAGES.validate_python(data)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise HarnessConfigurationError(f"{where}: malformed message data at {loc}: {first['msg']}") from None


def message_size(message: Message) -> int:
    """The characters :func:`estimate_tokens` counts for one message (text, reasoning,
    tool names and JSON arguments, results plus 20 each)."""
    if isinstance(message, UserMessage):
        return len(message.text)
    if isinstance(message, AssistantMessage):
        size = len(message.text) + sum(len(r.text) for r in message.reasoning)
        return size + sum(len(c.name) + len(json.dumps(c.arguments)) for c in message.tool_calls)
    return sum(len(r.content) + 20 + sum(len(i.data or "") // 4 for i in r.items) for r in message.results)


def estimate_tokens(messages: Sequence[Message], system: str = "") -> int:
    """A rough token count: a quarter of the characters of the text, arguments and results."""
    return (len(system) + sum(message_size(m) for m in messages)) // 4 + 1


class TokenEstimator:
    """:func:`estimate_tokens` for a conversation that grows: messages already seen (the
    same objects at the same positions) are not measured again."""

    def __init__(self) -> None:
        self._seen: list[Message] = []
        self._sizes: list[int] = []
        self._total = 0

    def estimate(self, messages: Sequence[Message], system: str = "") -> int:
        """The estimate for ``messages`` (see :func:`estimate_tokens`). A history that only
        grew (same first and last-seen objects) costs only its new messages; any other is
        compared message by message."""
        seen = len(self._seen)
        if seen and len(messages) >= seen and messages[0] is self._seen[0] and messages[seen - 1] is self._seen[-1]:
            common = seen
        else:
            common = 0
            limit = min(seen, len(messages))
            while common < limit and self._seen[common] is messages[common]:
                common += 1
            del self._seen[common:], self._sizes[common:]
            self._total = sum(self._sizes)
        for message in messages[common:]:
            size = message_size(message)
            self._seen.append(message)
            self._sizes.append(size)
            self._total += size
        return (len(system) + self._total) // 4 + 1
