"""What pi itself holds pending, for :meth:`~._turn.PiTurn.pending_requests`.

* **pi running**: the requests its extension sent (``harness-pi/v1:gate`` and
  ``harness-pi/v1:host`` payloads ``{toolCallId, toolName, input}``), kept as they came;
* **a continued turn**: pi's own session file as pi wrote it when the turn was suspended
  (JSONL, format v3): the ``toolCall`` blocks (``{type, id, name, arguments}``) of assistant
  messages that no ``toolResult`` message answers (:func:`session_calls`).

Source: ``@earendil-works/pi-ai`` ``ToolCall`` / ``ToolResultMessage`` types, pi 1.6.0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness_core import ToolCall

from ._builtins import common_name

__all__ = ["held_call", "session_calls"]


def _message(line: str) -> Mapping[str, Any] | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "message" else None
    return message if isinstance(message, dict) else None


def session_calls(jsonl: str) -> dict[str, tuple[str, Any]]:
    """Open calls of pi's session text ``jsonl``: ``{call id: (pi's tool name, arguments)}``."""
    calls: dict[str, tuple[str, Any]] = {}
    for line in jsonl.splitlines():
        message = _message(line)
        if message is None:
            continue
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                    calls[block["id"]] = (str(block.get("name", "")), block.get("arguments"))
        elif message.get("role") == "toolResult":
            calls.pop(str(message.get("toolCallId")), None)
    return calls


def held_call(call_id: str, held: Mapping[str, tuple[str, Any]], *, builtin: bool) -> ToolCall | None:
    """The call ``call_id`` as pi's session holds it, under its harness-facing name, else ``None``."""
    found = held.get(call_id)
    if found is None:
        return None
    name, arguments = found
    return ToolCall(tool_call_id=call_id, tool_name=common_name(name) if builtin else name, input=arguments,
                    provider_executed=builtin, native_tool_name=name)
