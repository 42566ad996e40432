"""Tool outputs: what a tool call returns to the runtime, normalized and bounded.

Every result a host tool produces goes through :func:`normalize_output`, which accepts
text, a :class:`ToolOutput`, a ``{"content": ..., "isError": ...}`` mapping or any JSON
value, cuts text over :data:`MAX_OUTPUT_CHARS` characters with a visible marker, and
replaces bytes that are not UTF-8 and lone surrogates so serialization never breaks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

import attrs

__all__ = ["MAX_OUTPUT_CHARS", "ToolOutput", "normalize_output", "sanitize_text", "truncate_text"]

MAX_OUTPUT_CHARS: Final = 100_000
"""Results longer than this many characters are cut before they reach the model."""

_SURROGATES: Final = re.compile("[\ud800-\udfff]")


def sanitize_text(text: str | bytes | bytearray) -> str:
    """Return ``text`` as a string that always encodes to UTF-8.

    Bytes are decoded as UTF-8 with undecodable bytes replaced by U+FFFD; lone surrogates
    in a string (e.g. from ``surrogateescape`` decoding) are replaced by U+FFFD too.
    """
    if isinstance(text, bytes | bytearray):
        return bytes(text).decode("utf-8", errors="replace")
    if _SURROGATES.search(text) is None:
        return text
    return _SURROGATES.sub("\ufffd", text)


def truncate_text(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Cut ``text`` to at most ``limit`` characters plus a marker saying how much was cut.

    The cut falls on a character (code point) boundary; the marker is
    ``"\\n\\n[output truncated: N of M characters omitted]"``.
    """
    if len(text) <= limit:
        return text
    omitted = len(text) - limit
    return f"{text[:limit]}\n\n[output truncated: {omitted} of {len(text)} characters omitted]"


@attrs.frozen
class ToolOutput:
    """The result of a tool call as the runtime (and so the model) receives it.

    Attributes:
        content: the text the model sees.
        is_error: the call failed; the model sees an error result.
        value: the structured value the tool returned, when it was not plain text (kept
            for ``tool-result`` parts and ``to_model_output``); ``None`` otherwise.
    """

    content: str
    is_error: bool = False
    value: Any = attrs.field(default=None, eq=False)

    def to_json(self) -> dict[str, Any]:
        """The AI SDK-style mapping ``{"content": ..., "isError": ...}``."""
        return {"content": self.content, "isError": self.is_error}


def normalize_output(result: object, *, limit: int = MAX_OUTPUT_CHARS) -> ToolOutput:
    """Turn whatever a tool returned into a bounded, serializable :class:`ToolOutput`.

    Args:
        result: ``str`` or ``bytes`` (text), :class:`ToolOutput`, a mapping with exactly
            the keys ``content`` and optionally ``isError`` / ``is_error``, ``None``
            (empty text), or any other JSON-serializable value (sent as JSON text; the
            value is kept in :attr:`ToolOutput.value`).
        limit: maximum characters of content.

    Raises:
        TypeError: the value is not JSON-serializable (the message names its type).
    """
    if isinstance(result, ToolOutput):
        content, is_error, value = result.content, result.is_error, result.value
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
        if isinstance(raw, str | bytes | bytearray):
            content, value = sanitize_text(raw), None
        else:
            content, value = _to_json_text(raw), raw
    else:
        content, is_error, value = _to_json_text(result), False, result
    return ToolOutput(truncate_text(sanitize_text(content), limit), is_error, value)


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
