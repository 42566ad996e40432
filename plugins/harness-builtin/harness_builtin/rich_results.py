"""Rich tool results in the built-in harness: what the conversation keeps of a result.

A host tool's ``{"content": [...]}`` result or an MCP result (text, image and other
items, see :mod:`harness_core.tools.content`) is stored as
:class:`~harness_builtin.conversation.ResultItem` values next to its text, so the model
client sends it as its API allows: the Anthropic client as ``tool_result`` content blocks
(text and base64 images), the OpenAI Chat client as text (its tool messages take text
only: an image becomes a placeholder line and a logged warning). What the session's
client cannot carry is replaced when the result is recorded, with one warning (logged,
and on the built-in call's ``tool-result`` part).
"""

from __future__ import annotations

from typing import Any

from harness_core import ToolOutput

from .conversation import ResultItem
from .models import ModelClient
from .state import CallState

__all__ = ["client_accepts", "record_output"]

TEXT_ONLY = frozenset({"text"})


def client_accepts(client: ModelClient) -> frozenset[str]:
    """The item kinds ``client`` sends in tool results (its ``tool_result_content``, else text only)."""
    kinds = getattr(client, "tool_result_content", None)
    return frozenset(kinds) | TEXT_ONLY if isinstance(kinds, frozenset) else TEXT_ONLY


def record_output(call: CallState, output: ToolOutput, client: ModelClient) -> None:
    """Store ``output`` on ``call``: ``content`` (the text; for a rich result, its text
    items with a placeholder per item the client cannot take), ``items`` (the items as
    sent, or ``None`` for a plain result), ``is_error`` and ``warnings``."""
    call.is_error = output.is_error
    if not output.items:
        call.content = output.content
        return
    rendered = output.render(client_accepts(client), f"model client {client.name!r}")
    call.content = rendered.text
    call.items = [_stored(item.kind, item.text, item.data, item.media_type) for item in rendered.items]
    call.warnings = list(rendered.warnings)


def _stored(kind: str, text: str | None, data: str | None, media_type: str | None) -> dict[str, Any]:
    if kind == "image":
        return ResultItem(type="image", data=data, media_type=media_type).model_dump(mode="json", exclude_none=True)
    return ResultItem(type="text", text=text or "").model_dump(mode="json", exclude_none=True)
