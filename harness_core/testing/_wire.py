"""Shared pieces of the three wire encoders: events, resolved replies, usage, errors."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Literal

from harness_core.testing._errors import ScriptError
from harness_core.testing._request import Conversation, ModelRequest

__all__ = [
    "CREATED",
    "Codec",
    "Reply",
    "ResolvedCall",
    "ResolvedUsage",
    "SseEvent",
    "chunks",
    "default_error_message",
    "json_dumps",
]

CREATED = 1_700_000_000
"""The fixed ``created`` timestamp every answer carries, for deterministic bodies."""


def json_dumps(value: Any) -> str:
    """Serialize compactly, keeping non-ASCII text as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event; ``label`` names it for fault injection."""

    label: str
    data: str
    event: str | None = None

    def encode(self) -> bytes:
        """The event's bytes on the wire, blank-line terminated."""
        head = f"event: {self.event}\n" if self.event is not None else ""
        return f"{head}data: {self.data}\n\n".encode()

    @classmethod
    def typed(cls, payload: Mapping[str, Any]) -> SseEvent:
        """An event named after its payload's ``type`` (Anthropic, Responses)."""
        kind = str(payload["type"])
        return cls(label=kind, data=json_dumps(payload), event=kind)


@dataclass(frozen=True)
class ResolvedCall:
    """A scripted tool call bound to an offered tool.

    ``name`` is the wire name (the inner name for a namespaced tool),
    ``arguments`` the exact text to send: a JSON document for function tools, the
    raw input for custom tools.
    """

    id: str
    name: str
    arguments: str
    kind: Literal["function", "custom"] = "function"
    namespace: str | None = None

    def arguments_object(self) -> dict[str, Any]:
        """The arguments as a JSON object; raises :class:`ScriptError` when they are not one."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            value = None
        if not isinstance(value, dict):
            raise ScriptError(
                f"tool call {self.name!r}: a non-streaming answer needs JSON object arguments, "
                f"got {self.arguments!r}"
            )
        return value


@dataclass(frozen=True)
class ResolvedUsage:
    """Token counts with every default filled in."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    cache_creation_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Reply:
    """A turn ready to encode: the request it answers, text, reasoning, calls, usage."""

    request: ModelRequest
    text: str | None
    reasoning: str | None
    calls: tuple[ResolvedCall, ...]
    usage: ResolvedUsage

    @property
    def model(self) -> str:
        """The model id to echo."""
        return self.request.model

    @property
    def index(self) -> int:
        """The model-call index, used in response ids."""
        return self.request.index


@dataclass(frozen=True)
class Codec:
    """One wire format: parse a request, encode answers and errors.

    ``stream_error(reply, status, error_type, message, position)`` builds the
    in-stream error event sent after ``position`` events.
    """

    parse: Callable[[Mapping[str, Any]], Conversation]
    stream: Callable[[Reply, int], list[SseEvent]]
    body: Callable[[Reply], dict[str, Any]]
    error_body: Callable[[int, str | None, str], dict[str, Any]]
    stream_error: Callable[[Reply, int, str | None, str, int], SseEvent]
    call_id_prefix: str = "call"


def chunks(text: str, size: int) -> list[str]:
    """Split ``text`` into pieces of at most ``size`` characters (none for empty text)."""
    step = max(1, size)
    return [text[start : start + step] for start in range(0, len(text), step)]


def default_error_message(status: int) -> str:
    """A readable message for an injected HTTP status."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Overloaded" if status == 529 else "Error"
    return f"{phrase} (scripted fault)"
