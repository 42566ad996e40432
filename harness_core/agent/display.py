"""Display paths: the session workspace prefix stripped from what the consumer is shown.

The AI SDK's ``HarnessAgent`` shows paths relative to the session's work directory in every
part (tool-call inputs, results deep inside them, ``fileChange`` paths, the tool call of an
approval request). :func:`display_part` does the same on a finished part, as the last step
before it leaves the slice (:class:`~harness_core.agent.emitter.StreamEmitter`), so tools,
runtimes, approval policies and rules keep seeing the resolved absolute paths and decide
exactly as before. ``HarnessAgent(display_paths="absolute")`` turns it off.

The rule, for every string inside a part's ``input``, ``output``, ``error`` (and the nested
``tool_call`` of an approval request), at any depth of dicts and lists: the root itself
becomes ``"."``, and every occurrence of ``<root>/`` that starts a path is removed
(``/ws/src/a.ts`` becomes ``src/a.ts``; ``"cat /ws/a.txt"`` becomes ``"cat a.txt"``). A
sibling such as ``/ws-old``, and a path that only contains the root (``/mnt/ws/a``), are
left alone. Keys, ids, names and metadata are never changed.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any, Literal, TypeAlias

from harness_core.parts.models import (
    Part,
    ToolApprovalRequestPart,
    ToolCallPart,
    ToolErrorPart,
    ToolResultPart,
)

__all__ = ["DisplayPaths", "display_part", "display_value"]

DisplayPaths: TypeAlias = Literal["relative", "absolute"]
"""``relative`` (default): strip the workspace prefix in parts; ``absolute``: show paths as run."""

_FIELDS = ("input", "output", "error")


def display_value(value: Any, root: str) -> Any:
    """``value`` with the workspace ``root`` stripped from its strings (see the module docs).

    Args:
        value: a JSON-like value (str, dict, list, tuple, scalars); other objects pass through.
        root: the absolute workspace root, without a trailing separator.

    Returns:
        ``value`` itself when nothing in it changes; else a copy (a ``dict`` for a mapping,
        the same type for a list or tuple) with the changed strings.
    """
    return _shown(value, root, root + os.sep)


def _shown(value: Any, root: str, prefix: str) -> Any:
    if isinstance(value, str):
        if value == root:
            return "."
        if prefix not in value:
            return value
        shown = _prefix_pattern(prefix).sub("", value)
        return value if shown == value else shown
    if isinstance(value, dict):
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            new = _shown(item, root, prefix)
            if new is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list | tuple):
        items = [_shown(v, root, prefix) for v in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value


@lru_cache(maxsize=64)
def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    # "<root>/" only where a path starts: not after a path character ("/mnt/ws/a" stays)
    return re.compile(r"(?<![\w./~-])" + re.escape(prefix))


_SHOWN = (ToolCallPart, ToolResultPart, ToolErrorPart, ToolApprovalRequestPart)
_FIELDS_OF: dict[type[Part], tuple[str, ...]] = {}


def _fields_of(kind: type[Part]) -> tuple[str, ...]:
    fields = _FIELDS_OF.get(kind)
    if fields is None:
        fields = _FIELDS_OF[kind] = tuple(f for f in _FIELDS if f in kind.model_fields)
    return fields


def display_part(part: Part, root: str | None) -> Part:
    """``part`` as the consumer sees it: display paths under ``root`` (``None``: unchanged)."""
    if root is None or not isinstance(part, _SHOWN):
        return part
    root = root.rstrip(os.sep) or os.sep
    if root == os.sep:
        return part
    if isinstance(part, ToolApprovalRequestPart):
        shown = display_part(part.tool_call, root)
        return part.model_copy(update={"tool_call": shown}) if shown is not part.tool_call else part
    update = {}
    prefix = root + os.sep
    for field in _fields_of(type(part)):
        old = getattr(part, field)
        new = _shown(old, root, prefix)
        if new is not old:
            update[field] = new
    return part.model_copy(update=update) if update else part
