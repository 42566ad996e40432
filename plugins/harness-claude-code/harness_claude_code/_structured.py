"""Structured output on Claude Code: the ``StructuredOutput`` tool's input as the answer text.

With ``--json-schema`` (``ClaudeAgentOptions.output_format``) Claude Code offers the model a
``StructuredOutput`` tool whose input schema is the output schema; it validates the call
(asking the model again when it does not match) and ends the turn after a valid one. The
core's contract is that the answer is the text of the turn's last step, so the projection
streams that tool's input deltas as text parts (partial outputs work) and keeps its
``tool-call`` / result parts out of the stream: the answer is not a tool call to the host.
Source: the CLI's behaviour against a scripted model (CLI 2.1.332).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from harness_core import (
    Part,
    ProjectionContext,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
    ToolCallPart,
    ToolErrorPart,
    ToolInputDeltaPart,
    ToolInputEndPart,
    ToolInputStartPart,
    ToolResultPart,
)

__all__ = ["STRUCTURED_TOOL", "answer_as_text"]

STRUCTURED_TOOL: Final = "StructuredOutput"
"""Claude Code's structured-output tool."""

_KEY: Final = "claude-code.structured-output"


def answer_as_text(parts: Sequence[Part], context: ProjectionContext) -> list[Part]:
    """``parts`` with the ``StructuredOutput`` call's input as text and its call/result dropped."""
    ids = context.state.setdefault(_KEY, set())
    out: list[Part] = []
    for part in parts:
        if isinstance(part, ToolInputStartPart) and part.tool_name == STRUCTURED_TOOL:
            ids.add(part.id)
            out.append(TextStartPart(id=part.id))
        elif isinstance(part, ToolInputDeltaPart) and part.id in ids:
            out.append(TextDeltaPart(id=part.id, text=part.delta))
        elif isinstance(part, ToolInputEndPart) and part.id in ids:
            out.append(TextEndPart(id=part.id))
        elif isinstance(part, ToolCallPart | ToolResultPart | ToolErrorPart) and part.tool_name == STRUCTURED_TOOL:
            continue
        else:
            out.append(part)
    return out
