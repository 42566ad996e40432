"""Rich host tool results as pi tool result content.

pi's tool results carry ``TextContent`` (``{"type": "text", "text"}``) and
``ImageContent`` (``{"type": "image", "data": base64, "mimeType"}``); the extension
returns them from the host tool's ``execute``. pi sends an image on to the model only
when the model declares image input: the adapter declares ``"input": ["text", "image"]``
for the model it defines in ``models.json`` (a ``base_url`` endpoint), and pi then
sends it as its API allows (Responses: ``input_image`` in the ``function_call_output``;
Chat Completions: a following user message with the image). With one of pi's own
providers the model's catalog entry decides, which the adapter cannot see, so it sends
text only there: images become placeholders. Every replaced item is logged and named in
the ``tool-result`` part's warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness_core import ToolOutput

__all__ = ["TEXT_ONLY", "WITH_IMAGES", "result_items", "result_text"]

TEXT_ONLY = frozenset({"text"})
"""What pi carries with one of its own providers (the model's image input is unknown)."""

WITH_IMAGES = frozenset({"text", "image"})
"""The kinds pi carries for a model that declares image input."""


def result_items(output: ToolOutput, accepts: frozenset[str]) -> tuple[list[dict[str, Any]] | None, str]:
    """``(items, text)`` for pi: its content blocks for a rich result (``None`` for a plain
    one) and the text with placeholders for what ``accepts`` lacks."""
    if not output.items:
        return None, output.content
    rendered = output.render(accepts or TEXT_ONLY, "pi")
    items = [{"type": "image", "data": item.data, "mimeType": item.media_type} if item.kind == "image"
             else {"type": "text", "text": item.text or ""} for item in rendered.items]
    return items, rendered.text


def result_text(result: object) -> str:
    """The text of a pi tool result (``{"content": [{"type": "text", "text"}, ...]}``); other
    content blocks are skipped, a non-mapping is its ``str``."""
    if isinstance(result, Mapping):
        content = result.get("content")
        if isinstance(content, list):
            return "".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping) and b.get("type") == "text")
    return "" if result is None else str(result)
