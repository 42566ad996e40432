"""Tool names: common names, the runtimes' native names, and which rules apply to which call.

A rule names a tool by its common name (``read``, ``write``, ``edit``, ``bash``, ``grep``,
``glob``, ``webSearch``), by a runtime's native name (mapped to the common name where one
exists: Claude Code ``Read``/``Bash``..., Codex ``exec_command``/``shell``/``apply_patch``,
pi ``find``/``ls``), by a host tool name, by an MCP tool name ``mcp__server__tool`` or by an
MCP server prefix ``mcp__server``. ``*`` is a wildcard.

Tool families follow Claude Code's permission rules: a ``read`` rule also holds for the
searches (``grep``, ``glob``), and an ``edit`` rule also holds for ``write`` (every tool
that changes a file); a ``write`` or ``grep`` rule holds for that tool only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = [
    "COMMAND_TOOLS",
    "COMMON_NAMES",
    "NATIVE_ALIASES",
    "NO_SPECIFIER_TOOLS",
    "PATH_TOOLS",
    "SEARCH_TOOLS",
    "canonical_tool",
    "rule_keys_for_call",
]

COMMON_NAMES: Final = frozenset({"read", "write", "edit", "bash", "grep", "glob", "webSearch"})
"""The cross-harness common built-in names."""

NATIVE_ALIASES: Final[dict[str, str]] = {
    # Claude Code
    "Read": "read",
    "NotebookRead": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Bash": "bash",
    "Grep": "grep",
    "Glob": "glob",
    "LS": "glob",
    "WebSearch": "webSearch",
    # Codex
    "exec_command": "bash",
    "shell": "bash",
    "local_shell": "bash",
    "container.exec": "bash",
    "apply_patch": "edit",
    "web_search": "webSearch",
    # pi
    "find": "glob",
    "ls": "glob",
}
"""Native built-in names mapped to their common names (names not listed map to themselves)."""

PATH_TOOLS: Final = frozenset({"read", "write", "edit", "grep", "glob"})
"""Common tools whose rule specifier is a path pattern."""

SEARCH_TOOLS: Final = frozenset({"grep", "glob"})
"""Common tools whose paths are search roots: everything below them may be revealed."""

COMMAND_TOOLS: Final = frozenset({"bash"})
"""Common tools whose rule specifier is a command pattern."""

NO_SPECIFIER_TOOLS: Final = frozenset({"webSearch"})
"""Common tools that touch no path or command: their rules take no specifier."""

_FAMILIES: Final[dict[str, tuple[str, ...]]] = {
    "grep": ("grep", "read"),
    "glob": ("glob", "read"),
    "write": ("write", "edit"),
}


def canonical_tool(name: str) -> str:
    """The common name for a built-in ``name`` (native or common), else ``name`` itself."""
    return NATIVE_ALIASES.get(name, name)


def rule_keys_for_call(canonical_names: Iterable[str]) -> frozenset[str]:
    """The canonical rule tool names that apply to a built-in call known by these names.

    Example: a ``grep`` call is decided by ``grep`` and ``read`` rules; a ``write`` call by
    ``write`` and ``edit`` rules.
    """
    keys: set[str] = set()
    for name in canonical_names:
        keys.update(_FAMILIES.get(name, (name,)))
    return frozenset(keys)
