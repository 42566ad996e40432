"""Which files an ACP agent may write through ``fs/write_text_file`` while approvals are on.

ACP lets an agent write through its client at any time; a well-behaved agent first asks
``session/request_permission`` about an ``edit`` call located at the file. With built-in
approvals the core must decide every write, so a write is served only for a path an
approved permission request of the running turn named (its ``locations``, or a path in its
``rawInput``); any other write is refused before the file is touched (fail closed), even
one the permission mode would allow, since the core was never asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

__all__ = ["WriteGrants", "call_paths", "may_write"]

_PATH_KEYS: Final = ("path", "file_path", "filePath", "abs_path", "notebook_path")


def call_paths(tool_call: Any) -> list[str]:
    """The file paths an ACP tool call names: its ``locations`` and ``rawInput`` path fields."""
    paths = [str(loc.path) for loc in getattr(tool_call, "locations", None) or () if getattr(loc, "path", None)]
    raw = getattr(tool_call, "raw_input", None)
    if isinstance(raw, Mapping):
        paths += [value for key in _PATH_KEYS if isinstance(value := raw.get(key), str) and value]
    return paths


class WriteGrants:
    """The paths approved permission requests of one turn named."""

    def __init__(self) -> None:
        self._paths: list[str] = []

    def grant(self, tool_call: Any) -> None:
        """Record the paths of an approved call."""
        self._paths += call_paths(tool_call)

    def allows(self, target: Path, resolve: Callable[[str], Path]) -> bool:
        """True when ``target`` (resolved) is a path an approved call named (resolved the same way)."""
        for path in self._paths:
            try:
                if resolve(path) == target:
                    return True
            except (OSError, ValueError, TypeError):
                continue
        return False


def may_write(approvals: bool, turn: Any, target: Path, resolve: Callable[[str], Path]) -> bool:
    """Whether the session serves a write to ``target``: always without approvals; with them,
    only while a turn runs whose approved calls named it (no turn: refused)."""
    if not approvals:
        return True
    return turn is not None and not turn.done and turn.write_grants.allows(target, resolve)
