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
    """
    if isinstance(value, str):
        if value == root:
            return "."
        prefix = root + os.sep
        return _prefix_pattern(prefix).sub("", value) if prefix in value else value
    if isinstance(value, dict):
        return {k: display_value(v, root) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(display_value(v, root) for v in value)
    return value


@lru_cache(maxsize=64)
def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    # "<root>/" only where a path starts: not after a path character ("/mnt/ws/a" stays)
    return re.compile(r"(?<![\w./~-])" + re.escape(prefix))


def display_part(part: Part, root: str | None) -> Part:
    """``part`` as the consumer sees it: display paths under ``root`` (``None``: unchanged)."""
    if root is None:
        return part
    root = root.rstrip(os.sep) or os.sep
    if root == os.sep:
        return part
    if isinstance(part, ToolApprovalRequestPart):
        shown = display_part(part.tool_call, root)
        return part.model_copy(update={"tool_call": shown}) if shown is not part.tool_call else part
    if not isinstance(part, ToolCallPart | ToolResultPart | ToolErrorPart):
        return part
    update = {}
    for field in _FIELDS:
        if field in type(part).model_fields:
            old = getattr(part, field)
            new = display_value(old, root)
            if new != old:
                update[field] = new
    return part.model_copy(update=update) if update else part
