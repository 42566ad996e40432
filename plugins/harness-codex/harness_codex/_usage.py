"""Token usage and error kinds of a Codex turn (app-server ``thread/tokenUsage/updated``, ``TurnError``)."""

from __future__ import annotations

from typing import Any

from harness_core import Usage

from . import _protocol as p

__all__ = ["error_type", "usage_between"]


def usage_between(before: p.TokenUsageBreakdown | None, after: p.TokenUsageBreakdown) -> Usage:
    """Token usage from the thread totals before and after (``thread/tokenUsage/updated``)."""
    if before is not None and after.totalTokens < before.totalTokens:
        before = None  # the totals restarted (a new process resumed the thread): count from zero

    def delta(name: str) -> int:
        return int(getattr(after, name) or 0) - int(getattr(before, name) or 0 if before is not None else 0)

    return Usage(input_tokens=delta("inputTokens"), output_tokens=delta("outputTokens"),
                 total_tokens=delta("totalTokens"), cached_input_tokens=delta("cachedInputTokens"),
                 reasoning_tokens=delta("reasoningOutputTokens"))


def error_type(error: p.TurnError) -> str | None:
    info = error.codexErrorInfo
    if info is None:
        return "model-error"
    value: Any = info if isinstance(info, str | dict) else info.model_dump(mode="json")
    name = value if isinstance(value, str) else next(iter(value), None) if isinstance(value, dict) else None
    return {"unauthorized": "authentication", "usageLimitExceeded": "rate-limit", "rateLimitExceeded": "rate-limit",
            "contextWindowExceeded": "context-length"}.get(str(name), "model-error")
