"""Values of the Anthropic Messages API as Claude Code reports them.

Stop reasons become harness finish reasons (:func:`finish_reason`), usage mappings become
:class:`~harness_core.Usage` (:func:`usage_from`), ``AssistantMessage.error`` kinds become
harness error types (:data:`API_ERROR_TYPES`), and a tool result's ``content`` becomes
text (:func:`result_text`, :func:`strip_error_tag`). Source: the Anthropic Messages API
(``stop_reason``, ``usage``) and ``claude-agent-sdk``'s message types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from harness_core import FinishReason, Usage

__all__ = ["API_ERROR_TYPES", "finish_reason", "int_or_none", "result_text", "strip_error_tag", "usage_from"]

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


def finish_reason(stop_reason: object) -> FinishReason:
    """Map an Anthropic ``stop_reason`` to a finish reason (``unknown`` when unrecognized)."""
    return _STOP_REASONS.get(stop_reason, "unknown") if isinstance(stop_reason, str) else "unknown"


def int_or_none(value: object) -> int | None:
    """``value`` when it is an int (not a bool), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(raw: object, *, cost_usd: float | None = None) -> Usage:
    """Build a :class:`~harness_core.Usage` from an Anthropic-style usage mapping.

    ``input_tokens`` / ``output_tokens`` are copied, ``cache_read_input_tokens`` becomes
    ``cached_input_tokens``, ``cache_creation_input_tokens`` is kept, thinking tokens
    (``output_tokens_details.thinking_tokens``) become ``reasoning_tokens``;
    ``total_tokens`` is input plus output. Missing counts stay ``None``; ``cost_usd`` is in
    US dollars.
    """
    data = raw if isinstance(raw, Mapping) else {}
    details = data.get("output_tokens_details")
    thinking = int_or_none(details.get("thinking_tokens")) if isinstance(details, Mapping) else None
    input_tokens, output_tokens = int_or_none(data.get("input_tokens")), int_or_none(data.get("output_tokens"))
    total = None if input_tokens is None and output_tokens is None else (input_tokens or 0) + (output_tokens or 0)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=total,
        cached_input_tokens=int_or_none(data.get("cache_read_input_tokens")),
        cache_creation_input_tokens=int_or_none(data.get("cache_creation_input_tokens")),
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


def strip_error_tag(text: str) -> str:
    """``text`` without Claude Code's ``<tool_use_error>...</tool_use_error>`` wrapper."""
    stripped = text.strip()
    start, end = "<tool_use_error>", "</tool_use_error>"
    if stripped.startswith(start) and stripped.endswith(end):
        return stripped[len(start) : -len(end)].strip()
    return text
