"""Resolve a script's tool names against what a request offered."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness_core.testing._errors import ToolNotOfferedError

__all__ = ["COMMON_TOOL_NAMES", "adapt_arguments", "is_common_tool_name", "resolve_tool_name"]

COMMON_TOOL_NAMES: Mapping[str, tuple[str, ...]] = {
    "bash": ("bash", "Bash", "exec_command", "shell_command", "shell"),
    "read": ("read", "Read", "read_file", "view"),
    "write": ("write", "Write", "write_file", "create_file"),
    "edit": ("edit", "Edit", "edit_file", "str_replace"),
    "grep": ("grep", "Grep", "grep_files", "search"),
    "glob": ("glob", "Glob", "find", "glob_files"),
    "ls": ("ls", "LS", "list_dir", "list_directory"),
    "webSearch": ("webSearch", "WebSearch", "web_search"),
    "webFetch": ("webFetch", "WebFetch", "web_fetch"),
}
"""Common tool name -> the names runtimes give that tool, in preference order.

Claude Code calls them ``Bash``, ``Read``, ``Write``...; Codex ``exec_command``
(older builds ``shell``); pi and the built-in harness ``bash``, ``read``...
"""

# Argument names that mean the same thing across runtimes' schemas.
_SYNONYMS: tuple[frozenset[str], ...] = (
    frozenset({"path", "file_path", "filePath", "filename"}),
    frozenset({"command", "cmd"}),
    frozenset({"old_string", "oldText", "old_str"}),
    frozenset({"new_string", "newText", "new_str"}),
    frozenset({"content", "contents"}),
    frozenset({"pattern", "glob", "regex"}),
)


def _fold(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def _group_of(name: str) -> tuple[str, ...] | None:
    folded = _fold(name)
    for common, aliases in COMMON_TOOL_NAMES.items():
        if folded == _fold(common) or any(folded == _fold(alias) for alias in aliases):
            return aliases
    return None


def is_common_tool_name(name: str) -> bool:
    """True when ``name`` is a common tool name or any runtime's name for one (``Bash``, ``exec_command``)."""
    return _group_of(name) is not None


def resolve_tool_name(name: str, offered: Iterable[str]) -> str:
    """Return the offered tool name that ``name`` designates.

    Order: an exact offered name always wins; then, when ``name`` is a common
    name or any runtime's name for one (see :data:`COMMON_TOOL_NAMES`), the first
    alias the request offered; then a unique case-insensitive match.

    Raises :class:`ToolNotOfferedError` (naming ``name`` and the offered list)
    when nothing matches.
    """
    names = list(offered)
    if name in names:
        return name
    aliases = _group_of(name)
    if aliases is not None:
        for alias in aliases:
            if alias in names:
                return alias
        folded_aliases = {_fold(alias) for alias in aliases}
        for candidate in names:
            if _fold(candidate) in folded_aliases:
                return candidate
    matches = [candidate for candidate in names if candidate.lower() == name.lower()]
    if len(matches) == 1:
        return matches[0]
    raise ToolNotOfferedError(name, names)


def adapt_arguments(
    arguments: Mapping[str, Any], schema: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Rename argument keys to the synonyms the tool's JSON Schema declares.

    Used for calls to the built-in tools of :data:`COMMON_TOOL_NAMES`, so one
    script suits every runtime: ``{"path": ...}`` becomes
    ``{"file_path": ...}`` for Claude Code's ``Write``, ``{"command": ...}``
    becomes ``{"cmd": ...}`` for Codex's ``exec_command``, and a string
    ``command`` becomes ``["bash", "-lc", command]`` when the schema wants an
    array. Keys the schema knows, and keys without exactly one declared
    synonym, are kept as they are. Without a schema the arguments are unchanged.
    """
    if schema is None or not isinstance(schema.get("properties"), Mapping):
        return dict(arguments)
    properties: Mapping[str, Any] = schema["properties"]
    adapted: dict[str, Any] = {}
    for key, value in arguments.items():
        name = key if key in properties else _declared_synonym(key, properties, arguments)
        spec = properties.get(name)
        wants_array = isinstance(spec, Mapping) and spec.get("type") == "array"
        if name == "command" and isinstance(value, str) and wants_array:
            value = ["bash", "-lc", value]
        adapted[name] = value
    return adapted


def _declared_synonym(key: str, properties: Mapping[str, Any], given: Mapping[str, Any]) -> str:
    """The one schema property meaning the same as ``key`` (and not given too), else ``key``."""
    for group in _SYNONYMS:
        if key in group:
            declared = [other for other in group if other in properties and other not in given]
            return declared[0] if len(declared) == 1 else key
    return key
