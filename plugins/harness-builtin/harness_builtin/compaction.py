"""Compaction: summarizing older turns so a long conversation fits its token budget.

:func:`split_for_compaction` keeps the most recent messages verbatim (never starting the
kept part with tool results whose calls would be cut off) and returns the older ones;
:func:`summary_request` asks the model, without tools, for a summary of them; the session
then replaces them with one ``summary`` user message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .conversation import AssistantMessage, Message, ToolResultsMessage, UserMessage
from .models.base import ModelRequest

__all__ = ["SUMMARY_PREFIX", "render_transcript", "split_for_compaction", "summary_request"]

SUMMARY_PREFIX = "Summary of the earlier conversation (older turns were compacted):\n"
_RESULT_CHARS = 2000

_SUMMARY_SYSTEM = (
    "You summarize the earlier part of a coding agent's conversation so the agent can go on "
    "without it. Keep the user's goals and constraints, decisions made, files read or changed "
    "(with paths), commands run and their outcomes, errors still open, and what remains to do. "
    "Be concise and factual; write the summary only."
)


def split_for_compaction(messages: Sequence[Message], keep: int) -> tuple[list[Message], list[Message]]:
    """``(older, kept)``: the last ``keep`` messages are kept (more when the cut would
    separate tool results from their calls); ``older`` may be empty."""
    cut = max(0, len(messages) - keep)
    while cut > 0 and isinstance(messages[cut], ToolResultsMessage):
        cut -= 1
    return list(messages[:cut]), list(messages[cut:])


def render_transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text for the summarizer (long tool results cut)."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            label = {"prompt": "User", "repair": "Harness note", "summary": "Earlier summary"}[message.kind]
            lines.append(f"{label}: {message.text}")
        elif isinstance(message, AssistantMessage):
            if message.text:
                lines.append(f"Assistant: {message.text}")
            lines.extend(
                f"Assistant called {call.name}({json.dumps(call.arguments, ensure_ascii=False)})"
                for call in message.tool_calls
            )
        else:
            for result in message.results:
                text = result.content if len(result.content) <= _RESULT_CHARS else result.content[:_RESULT_CHARS] + "..."
                status = "error" if result.is_error else "result"
                lines.append(f"Tool {result.name} {status}: {text}")
    return "\n".join(lines)


def summary_request(older: Sequence[Message], max_output_tokens: int = 2048) -> ModelRequest:
    """The tool-less model request that summarizes ``older``."""
    prompt = (
        "Summarize this conversation between a user and a coding agent:\n\n"
        + render_transcript(older)
    )
    return ModelRequest(
        system=_SUMMARY_SYSTEM,
        messages=[UserMessage(text=prompt)],
        tools=(),
        max_output_tokens=max_output_tokens,
    )
