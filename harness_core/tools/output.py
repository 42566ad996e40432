"""Tool outputs: what a tool call returns to the runtime, normalized and bounded.

Every result a host tool produces goes through :func:`normalize_output`, which accepts
text, a :class:`ToolOutput`, a ``{"content": ..., "isError": ...}`` mapping or any JSON
value, cuts text over :data:`MAX_OUTPUT_CHARS` characters with a visible marker, and
replaces bytes that are not UTF-8 and lone surrogates so serialization never breaks.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

import attrs

from harness_core.tools.content import (
    ContentItem,
    RenderedContent,
    content_items,
    fallback_text,
    items_from_blocks,
    render_content,
)

__all__ = ["MAX_OUTPUT_CHARS", "ToolOutput", "normalize_output", "sanitize_text", "truncate_text"]

MAX_OUTPUT_CHARS: Final = 100_000
"""Results longer than this many characters are cut before they reach the model."""

_SURROGATES: Final = re.compile("[\ud800-\udfff]")


def sanitize_text(text: str | bytes | bytearray) -> str:
    """Return ``text`` as a string that always encodes to UTF-8.

    Bytes are decoded as UTF-8 with undecodable bytes replaced by U+FFFD. In a string,
    a well-formed pair of surrogate code points (UTF-16 decoded code unit by code unit)
    is joined into the character it encodes, and every lone surrogate (e.g. from
    ``surrogateescape`` decoding) is replaced by U+FFFD.

    Raises:
        TypeError: ``text`` is neither ``str`` nor bytes (the message names its type).
    """
    if isinstance(text, bytes | bytearray):
        return bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise TypeError(f"tool output text must be str or bytes, got {type(text).__name__}")
    if _SURROGATES.search(text) is None:
        return text
    # Through UTF-16: valid pairs become one character, lone halves become U+FFFD.
    return text.encode("utf-16-le", errors="surrogatepass").decode("utf-16-le", errors="replace")


# Code points that belong to the character before them: a cut just before one would split a
# visible character (an accent from its letter, an emoji from its modifier).
_JOINERS: Final = frozenset("\u200c\u200d\ufe0e\ufe0f")
_MAX_BACKOFF: Final = 32


def _attaches_to_previous(char: str) -> bool:
    return (
        char in _JOINERS
        or unicodedata.combining(char) != 0
        or "\U0001f3fb" <= char <= "\U0001f3ff"  # emoji skin-tone modifiers
        or "\U000e0020" <= char <= "\U000e007f"  # emoji tag sequences (flags)
    )


def truncate_text(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Cut ``text`` to at most ``limit`` characters plus a marker saying how much was cut.

    Args:
        text: the text to bound.
        limit: the maximum number of characters (code points) kept.

    Returns:
        ``text`` unchanged when it has at most ``limit`` characters; otherwise its first
        characters followed by ``"\\n\\n[output truncated: N of M characters omitted]"``
        where M is ``len(text)`` and N the number of characters dropped. The cut falls on a
        code point boundary and, when possible, not inside a combining sequence (an accent
        stays with its letter, a zero-width joiner with its emoji), so N may slightly
        exceed ``len(text) - limit``.
    """
    if limit < 0:
        raise ValueError(f"truncation limit must be >= 0, got {limit}")
    if len(text) <= limit:
        return text

    def splits_a_character(at: int) -> bool:
        return at > 0 and (_attaches_to_previous(text[at]) or text[at - 1] == "\u200d")

    cut = limit
    while splits_a_character(cut) and limit - cut < _MAX_BACKOFF:
        cut -= 1
    if splits_a_character(cut):
        cut = limit  # an absurdly long combining run: a plain code point cut will do
    omitted = len(text) - cut
    return f"{text[:cut]}\n\n[output truncated: {omitted} of {len(text)} characters omitted]"


@attrs.frozen
class ToolOutput:
    """The result of a tool call as the runtime (and so the model) receives it.

    ``content`` is passed through :func:`sanitize_text` on construction (bytes are decoded,
    lone surrogates replaced), so every ``ToolOutput`` serializes to UTF-8; it is not
    truncated here (:func:`normalize_output` bounds it).

    Attributes:
        content: the text the model sees.
        is_error: the call failed; the model sees an error result.
        value: the structured value the tool returned, when it was not plain text (kept
            for ``tool-result`` parts and ``to_model_output``); ``None`` otherwise.
        exception: host-only, keyword-only: the exception behind an error result (the
            tool raised or timed out and ``on_error="return-to-model"`` turned it into
            this result), so ``on_tool_execution_end`` can report it. Never serialized
            (not in :meth:`to_json`), not compared, and the agent strips it before the
            result reaches the runtime.
    """

    content: str = attrs.field(converter=sanitize_text)
    is_error: bool = False
    value: Any = attrs.field(default=None, eq=False)
    exception: BaseException | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        """The AI SDK-style mapping ``{"content": ..., "isError": ...}``."""
        return {"content": self.content, "isError": self.is_error}

    @property
    def items(self) -> tuple[ContentItem, ...]:
        """A rich result's content items (text, image, other; see
        :mod:`harness_core.tools.content`), ``()`` for plain text or a JSON value."""
        return content_items(self)

    def render(self, accepts: frozenset[str], runtime: str, *, log: bool = True) -> RenderedContent:
        """The result as a runtime that carries the item kinds ``accepts`` (``{"text",
        "image"}``) receives it: those items, a placeholder text item for each other one, the
        same as one text, and a warning per replaced item (logged unless ``log`` is false).
        A plain result is one text item. ``runtime`` names the runtime in the warnings."""
        return render_content(self, accepts, runtime, log=log)


def normalize_output(result: object, *, limit: int = MAX_OUTPUT_CHARS) -> ToolOutput:
    """Turn whatever a tool returned into a bounded, serializable :class:`ToolOutput`.

    Args:
        result: ``str`` or ``bytes`` (text), :class:`ToolOutput` (its ``exception`` is
            kept), a mapping with exactly
            the keys ``content`` and optionally ``isError`` / ``is_error`` (a list of
            typed content blocks, see :mod:`harness_core.tools.content`, keeps the
            blocks in ``value`` and reads as their text with a placeholder line per
            image or other item; any other content is sent as JSON text), ``None``
            (empty text), or any other JSON-serializable value (sent as JSON text; the
            value is kept in :attr:`ToolOutput.value`).
        limit: maximum characters of content.

    Raises:
        TypeError: the value is not JSON-serializable (the message names its type).
    """
    exception: BaseException | None = None
    if isinstance(result, ToolOutput):
        content, is_error, value, exception = result.content, result.is_error, result.value, result.exception
    elif isinstance(result, str | bytes | bytearray):
        content, is_error, value = sanitize_text(result), False, None
    elif result is None:
        content, is_error, value = "", False, None
    elif (
        isinstance(result, Mapping)
        and "content" in result
        and set(result) <= {"content", "isError", "is_error"}
    ):
        raw = result["content"]
        is_error = bool(result.get("isError", result.get("is_error", False)))
        items = items_from_blocks(raw)
        if isinstance(raw, str | bytes | bytearray):
            content, value = sanitize_text(raw), None
        elif items is not None:  # typed content blocks: their text, a placeholder per other item
            content, value = fallback_text(items), raw
        else:
            content, value = _to_json_text(raw), raw
    else:
        content, is_error, value = _to_json_text(result), False, result
    return ToolOutput(truncate_text(sanitize_text(content), limit), is_error, value, exception=exception)


def _to_json_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"tool result of type {type(value).__name__} is not JSON-serializable: {exc}"
        ) from None


def _json_default(value: object) -> Any:
    # pydantic models and attrs classes are common tool results.
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if attrs.has(type(value)):
        return attrs.asdict(value)  # type: ignore[arg-type]
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
