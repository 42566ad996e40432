"""The format-neutral view of one model request."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from harness_core.testing._tools import resolve_tool_name

__all__ = [
    "Conversation",
    "ImageView",
    "Message",
    "ModelRequest",
    "OfferedTool",
    "ToolCallView",
    "ToolResultView",
    "WireFormat",
    "content_images",
    "content_text",
    "normalize_messages",
]

WireFormat = Literal["anthropic", "chat", "responses"]
"""The three wire formats: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses."""


@dataclass(frozen=True)
class ToolCallView:
    """A tool call found in the conversation history.

    ``arguments`` is the parsed JSON object when the wire carried JSON, else the
    raw string (custom tools' ``input``, malformed arguments). ``namespace`` is
    set for Responses namespaced calls, whose ``name`` is then the inner name.
    """

    id: str
    name: str
    arguments: Any
    namespace: str | None = None


@dataclass(frozen=True)
class ImageView:
    """An image found in a tool result: its MIME type and base64 data, whatever the wire
    called it (an Anthropic ``image`` block, a Responses ``input_image``, a Chat
    ``image_url`` part with a ``data:`` URL)."""

    media_type: str
    data: str


@dataclass(frozen=True)
class ToolResultView:
    """A tool result found in the conversation: the call id, its text, its error flag and
    its images (``()`` when it carried text only)."""

    call_id: str
    text: str
    is_error: bool = False
    images: tuple[ImageView, ...] = ()


@dataclass(frozen=True)
class Message:
    """One conversation message.

    ``role`` is ``"user"``, ``"assistant"`` or ``"tool"`` (tool results, whatever
    the wire called them); system and developer text lives in
    :attr:`ModelRequest.system` instead. Adjacent assistant messages (and
    adjacent tool messages) are merged into one.
    """

    role: Literal["user", "assistant", "tool"]
    text: str = ""
    tool_calls: tuple[ToolCallView, ...] = ()
    tool_results: tuple[ToolResultView, ...] = ()
    images: tuple[ImageView, ...] = ()
    """Base64 images of a user message (Chat Completions clients such as pi put a tool
    result's images in the user message that follows it)."""


@dataclass(frozen=True)
class OfferedTool:
    """A tool the request offered to the model.

    ``name`` is the flat name a script uses: the wire name, or
    ``<namespace>__<inner name>`` for a tool inside a Responses
    ``{"type": "namespace"}`` group, whose ``native_name`` is then the inner name.
    ``kind`` is ``"custom"`` for freeform tools (Responses ``{"type": "custom"}``),
    else ``"function"``. ``input_schema`` is the JSON Schema, when one was sent.
    """

    name: str
    kind: Literal["function", "custom"] = "function"
    namespace: str | None = None
    native_name: str = ""
    input_schema: Mapping[str, Any] | None = None

    @property
    def wire_name(self) -> str:
        """The name to put on the wire (the inner name for namespaced tools)."""
        return self.native_name or self.name


@dataclass(frozen=True)
class Conversation:
    """What a wire parser extracts from a request body."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[OfferedTool, ...]
    has_tools: bool


@dataclass(frozen=True)
class ModelRequest:
    """A parsed, format-neutral view of one model request.

    ``index`` counts model calls on the server (0-based, every POST to a model
    endpoint). ``turn_index`` is the script position this request asks for: the
    number of assistant turns already in ``messages`` (a trailing assistant
    message, a prefill, is not counted). ``is_side_request`` is true when the
    request offered no tools at all (titles, compaction, summaries). ``body`` is
    the raw parsed JSON body.
    """

    format: WireFormat
    model: str
    stream: bool
    system: str
    messages: tuple[Message, ...]
    tools: tuple[OfferedTool, ...]
    index: int
    body: Mapping[str, Any] = field(repr=False)
    has_tools: bool = True

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The offered tools' flat names, in request order."""
        return tuple(tool.name for tool in self.tools)

    @property
    def is_side_request(self) -> bool:
        """True when the request offered no tools."""
        return not self.has_tools

    @property
    def turn_index(self) -> int:
        """Completed assistant turns in the conversation; see the class docstring."""
        count = sum(1 for message in self.messages if message.role == "assistant")
        if self.messages and self.messages[-1].role == "assistant":
            count -= 1
        return count

    @property
    def tool_results(self) -> tuple[ToolResultView, ...]:
        """Every tool result in the conversation, oldest first."""
        return tuple(r for message in self.messages for r in message.tool_results)

    @property
    def tool_result_count(self) -> int:
        """How many tool results the request carries."""
        return len(self.tool_results)

    @property
    def last_tool_result(self) -> str | None:
        """The text of the newest tool result, or ``None`` when there is none."""
        results = self.tool_results
        return results[-1].text if results else None

    @property
    def last_user_text(self) -> str | None:
        """The text of the newest user message, or ``None``."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.text
        return None

    def resolve_tool(self, name: str) -> str:
        """Resolve an exact or common tool name (``bash``, ``write``...) to an offered name.

        Raises :class:`ToolNotOfferedError` when nothing offered matches.
        """
        return resolve_tool_name(name, self.tool_names)


def content_text(content: Any) -> str:
    """Join the text of a wire ``content`` value: a string or a list of text-like parts.

    Parts of type ``text``, ``input_text`` and ``output_text`` contribute their
    ``text``; other parts (images, files) are skipped. Texts join with ``"\\n"``.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, Mapping)
            and isinstance(part.get("text"), str)
            and part.get("type", "text") in ("text", "input_text", "output_text")
        ):
            texts.append(part["text"])
    return "\n".join(texts)


def _data_url(url: object) -> ImageView | None:
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        return None
    media_type, _, data = url[5:].partition(";base64,")
    return ImageView(media_type, data)


def _image(part: Mapping[str, Any]) -> ImageView | None:
    kind = part.get("type")
    if kind == "image":  # Anthropic: {"source": {"type": "base64", "media_type", "data"}}
        source = part.get("source")
        if isinstance(source, Mapping) and source.get("type") == "base64":
            return ImageView(str(source.get("media_type", "")), str(source.get("data", "")))
        return None
    if kind == "input_image":  # Responses: {"image_url": "data:...;base64,..."}
        return _data_url(part.get("image_url"))
    if kind == "image_url":  # Chat: {"image_url": {"url": "data:..."}}
        url = part.get("image_url")
        return _data_url(url.get("url") if isinstance(url, Mapping) else url)
    return None


def content_images(content: Any) -> tuple[ImageView, ...]:
    """The base64 images of a wire ``content`` list (see :class:`ImageView`); images given
    by a remote URL are not counted."""
    if not isinstance(content, list):
        return ()
    images = (_image(part) for part in content if isinstance(part, Mapping))
    return tuple(image for image in images if image is not None)


def normalize_messages(messages: Iterable[Message]) -> tuple[Message, ...]:
    """Merge adjacent assistant messages, and adjacent tool messages, into one each."""
    merged: list[Message] = []
    for message in messages:
        if merged and message.role in ("assistant", "tool") and merged[-1].role == message.role:
            previous = merged[-1]
            text = "\n".join(t for t in (previous.text, message.text) if t)
            merged[-1] = Message(
                role=message.role,
                text=text,
                tool_calls=previous.tool_calls + message.tool_calls,
                tool_results=previous.tool_results + message.tool_results,
            )
        else:
            merged.append(message)
    return tuple(merged)


def join_system(parts: Sequence[str]) -> str:
    """Join non-empty system texts with a blank line."""
    return "\n\n".join(part for part in parts if part)
