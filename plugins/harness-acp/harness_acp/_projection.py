"""Projection of ACP ``session/update`` payloads into harness-core stream parts.

:func:`project` implements ``harness_project_event`` for :class:`~harness_acp.AcpEvent`:

* ``agent_message_chunk`` -> ``text-start`` / ``text-delta`` (one block until another
  kind of part comes); ``agent_thought_chunk`` -> ``reasoning-*`` the same way; non-text
  content blocks (images, resources) -> ``raw``;
* ``plan`` -> a ``raw`` part ``{"type": "plan", "entries": [...]}`` (each entry's
  ``content``, ``priority``, ``status``);
* ``current_mode_update`` and unknown updates -> ``raw``; ``available_commands_update``,
  ``config_option_update``, ``session_info_update``, ``usage_update`` (reported in the
  turn's usage) and ``user_message_chunk`` (replayed history) -> nothing;
* an event's ready-made ``parts`` (tool calls, results, file changes, built by the turn,
  which knows which calls the host handles itself) pass through after any open block is
  closed.
"""

from __future__ import annotations

from typing import Any, Final

from harness_core import (
    Part,
    ProjectionContext,
    RawPart,
    ReasoningDeltaPart,
    ReasoningEndPart,
    ReasoningStartPart,
    TextDeltaPart,
    TextEndPart,
    TextStartPart,
)

from ._events import AcpEvent

__all__ = ["project"]

_STATE: Final = "acp.projection"
_QUIET: Final = frozenset({
    "available_commands_update", "config_option_update", "session_info_update", "usage_update",
    "user_message_chunk",
})


def _close(context: ProjectionContext) -> list[Part]:
    open_block = context.state.pop(_STATE, None)
    if open_block is None:
        return []
    kind, block_id = open_block
    return [TextEndPart(id=block_id) if kind == "text" else ReasoningEndPart(id=block_id)]


def _chunk(kind: str, text: str, context: ProjectionContext) -> list[Part]:
    parts: list[Part] = []
    open_block = context.state.get(_STATE)
    if open_block is None or open_block[0] != kind:
        parts.extend(_close(context))
        block_id = context.new_id(kind)
        context.state[_STATE] = (kind, block_id)
        parts.append(TextStartPart(id=block_id) if kind == "text" else ReasoningStartPart(id=block_id))
    else:
        block_id = open_block[1]
    if text:
        parts.append(TextDeltaPart(id=block_id, text=text) if kind == "text" else ReasoningDeltaPart(id=block_id, text=text))
    return parts


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", by_alias=True, exclude_none=True) if callable(dump) else value


def project(event: AcpEvent, context: ProjectionContext) -> list[Part]:
    """The stream parts one ACP event becomes (see the module docstring)."""
    if event.parts or event.close:
        return [*_close(context), *event.parts]
    update = event.update
    if update is None:
        return []
    kind = getattr(update, "session_update", None)
    if kind in ("agent_message_chunk", "agent_thought_chunk"):
        content = getattr(update, "content", None)
        text = getattr(content, "text", None)
        if getattr(content, "type", None) == "text" and isinstance(text, str):
            return _chunk("text" if kind == "agent_message_chunk" else "reasoning", text, context)
        return [*_close(context), RawPart(raw_value={"type": kind, "content": _dump(content)})]
    if kind in _QUIET:
        return []
    if kind == "plan":
        entries = [_dump(entry) for entry in getattr(update, "entries", []) or []]
        return [*_close(context), RawPart(raw_value={"type": "plan", "entries": entries})]
    return [*_close(context), RawPart(raw_value=_dump(update))]
