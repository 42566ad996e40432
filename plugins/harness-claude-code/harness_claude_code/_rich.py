"""Rich host tool results as MCP content for Claude Code.

Claude Code sends an MCP tool result's ``text`` and ``image`` content on to its model
(``image`` as an Anthropic ``image`` block in the ``tool_result``; checked against the
real CLI). Every other item of a rich result (:attr:`harness_core.ToolOutput.items`) is
replaced by a placeholder text block, with a logged warning.
"""

from __future__ import annotations

from typing import Any

from harness_core import ToolOutput

__all__ = ["RESULT_CONTENT", "mcp_blocks"]

RESULT_CONTENT = frozenset({"text", "image"})
"""The rich result items Claude Code passes to its model from an MCP tool result."""


def mcp_blocks(output: ToolOutput) -> tuple[list[dict[str, Any]] | None, str]:
    """A host result as MCP content: ``(blocks, text)``.

    For a rich result, ``blocks`` are MCP ``text`` and ``image`` blocks (``{"type":
    "image", "data", "mimeType"}``), each other item a text placeholder; ``text`` is the
    same as one string. For a plain result, ``(None, output.content)``.
    """
    if not output.items:
        return None, output.content
    rendered = output.render(RESULT_CONTENT, "Claude Code")
    blocks = [{"type": "image", "data": item.data, "mimeType": item.media_type} if item.kind == "image"
              else {"type": "text", "text": item.text or ""} for item in rendered.items]
    return blocks, rendered.text
