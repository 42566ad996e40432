"""The :class:`~harness_core.TurnEnd` a Claude Code ``ResultMessage`` becomes.

A successful result ends the turn with its finish reason (``stop`` for ``end_turn`` and
for a result that stopped at tool calls); an error result with ``finish_reason="error"``
(``length`` for ``error_max_turns``) and an ``error_type``: the API error Claude Code gave
up on (``server``, ``rate-limit``, ``authentication``...) when one came before it, else the
result's subtype (``max-turns``, ``max-budget``, ``execution``, ``structured-output``,
``runtime``). Source: ``claude-agent-sdk``'s ``ResultMessage`` and ``AssistantMessage.error``.
"""

from __future__ import annotations

from typing import Any, Final

from harness_core import TurnEnd, Usage

from ._anthropic import API_ERROR_TYPES, finish_reason, usage_from

__all__ = ["api_error", "result_turn_end"]

_RESULT_ERRORS: Final = {
    "error_max_turns": "max-turns",
    "error_max_budget_usd": "max-budget",
    "error_during_execution": "execution",
    "error_max_structured_output_retries": "structured-output",
}


def api_error(message: Any) -> tuple[str, str] | None:
    """``(text, error_type)`` of a top-level ``AssistantMessage`` carrying an API error, else ``None``."""
    from claude_agent_sdk import TextBlock

    if message.error is None or message.parent_tool_use_id is not None:
        return None
    text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
    return text or f"Claude Code API error: {message.error}", API_ERROR_TYPES.get(message.error, "api")


def result_turn_end(result: Any, *, cost_usd: float | None, aborted: bool,
                    last_api_error: tuple[str, str] | None) -> TurnEnd:
    """The turn's end for ``result`` (a ``ResultMessage``); ``cost_usd`` is this turn's share."""
    usage = usage_from(result.usage, cost_usd=cost_usd) if result.usage is not None else Usage(cost_usd=cost_usd)
    if aborted:
        return TurnEnd(finish_reason="aborted", usage=usage)
    if not result.is_error:
        reason = finish_reason(result.stop_reason)
        return TurnEnd(finish_reason="stop" if reason in ("unknown", "tool-calls") else reason, usage=usage)
    if last_api_error is not None:
        text, error_type = last_api_error
        return TurnEnd(finish_reason="error", usage=usage, error=text, error_type=error_type)
    errors = [e for e in (result.errors or []) if isinstance(e, str)]
    text = "; ".join(errors) or (result.result or "").strip() or result.subtype
    error_type = _RESULT_ERRORS.get(result.subtype, "runtime")
    return TurnEnd(finish_reason="length" if error_type == "max-turns" else "error",
                   usage=usage, error=f"Claude Code: {text}", error_type=error_type)
