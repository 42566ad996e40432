"""Rich host tool results as Codex dynamic tool call content items.

Protocol source: the generated ``DynamicToolCallResponse`` (``_protocol.py``, from the
pinned CLI's schema): ``contentItems`` is a list of ``{"type": "inputText", "text"}``,
``{"type": "inputImage", "imageUrl"}`` and ``{"type": "inputAudio", "audioUrl"}``. Text
and images (as ``data:<mime>;base64,`` URLs) are sent; every other item (audio included:
what Codex does with it was not verified against its model request) is replaced by a
placeholder line, with a warning (logged, and on the ``tool-result`` part).
"""

from __future__ import annotations

from typing import Any

from harness_core import ToolOutput

__all__ = ["RESULT_CONTENT", "content_items_for"]

RESULT_CONTENT = frozenset({"text", "image"})
"""The kinds of rich result items Codex receives as ``contentItems``."""


def content_items_for(output: ToolOutput) -> list[dict[str, Any]]:
    """The ``contentItems`` of a host tool's result: one ``inputText`` for a plain result;
    a rich result's text and ``inputImage`` items in order (placeholders for the rest)."""
    if not output.items:
        return [{"type": "inputText", "text": output.content}]
    rendered = output.render(RESULT_CONTENT, "Codex")
    return [{"type": "inputImage", "imageUrl": f"data:{item.media_type};base64,{item.data}"} if item.kind == "image"
            else {"type": "inputText", "text": item.text or ""} for item in rendered.items]
