"""pi's built-in tools as harness-core :class:`~harness_core.BuiltinTool` declarations.

pi 1.x has seven built-ins: ``read``, ``bash``, ``edit`` and ``write`` (active by default)
and ``grep``, ``find`` and ``ls`` (the adapter activates them with ``--tools +grep,...``).
Six keep their name, which is already the common one; ``find`` is declared under the
common name ``glob``. Input schemas are the ones pi 1.6.0 sends to the model. A tool pi
offers that is not declared here (another extension's, an MCP server's) is projected as a
dynamic provider-executed tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness_core import BuiltinTool, ToolKind, ToolResources

__all__ = ["BUILTINS", "BY_NAME", "BY_NATIVE", "NATIVE_NAMES", "common_name"]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _path(default: str | None) -> Any:
    def extract(native_input: Mapping[str, Any]) -> ToolResources:
        path = _text(native_input.get("path")) if isinstance(native_input, Mapping) else None
        path = path or default
        return ToolResources(paths=(path,) if path else ())

    return extract


def _command(native_input: Mapping[str, Any]) -> ToolResources:
    command = _text(native_input.get("command")) if isinstance(native_input, Mapping) else None
    return ToolResources(command=command)


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _number(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


_EDIT_ITEM: Final = {
    "type": "object",
    "required": ["oldText", "newText"],
    "properties": {
        "oldText": _string("Exact text for one targeted replacement, unique in the original file."),
        "newText": _string("Replacement text for this targeted edit."),
    },
}

BUILTINS: Final[tuple[BuiltinTool, ...]] = (
    BuiltinTool(
        name="read", native_name="read", kind=ToolKind.READ_ONLY,
        description="Read a file (text or image), optionally from a line offset.",
        input_schema={"type": "object", "required": ["path"], "properties": {
            "path": _string("Path to the file to read (relative or absolute)"),
            "offset": _number("Line number to start reading from (1-indexed)"),
            "limit": _number("Maximum number of lines to read"),
        }},
        resources=_path(None),
    ),
    BuiltinTool(
        name="write", native_name="write", kind=ToolKind.EDIT,
        description="Create or overwrite a file.",
        input_schema={"type": "object", "required": ["path", "content"], "properties": {
            "path": _string("Path to the file to write (relative or absolute)"),
            "content": _string("Content to write to the file"),
        }},
        resources=_path(None),
    ),
    BuiltinTool(
        name="edit", native_name="edit", kind=ToolKind.EDIT,
        description="Edit a file with exact text replacements.",
        input_schema={"type": "object", "required": ["path", "edits"], "properties": {
            "path": _string("Path to the file to edit (relative or absolute)"),
            "edits": {"type": "array", "items": _EDIT_ITEM, "description": "One or more targeted replacements."},
        }},
        resources=_path(None),
    ),
    BuiltinTool(
        name="bash", native_name="bash", kind=ToolKind.BASH,
        description="Run a bash command in the working directory.",
        input_schema={"type": "object", "required": ["command"], "properties": {
            "command": _string("Shell command to execute"),
            "timeout": _number("Timeout in seconds (optional, no default timeout)"),
        }},
        resources=_command,
    ),
    BuiltinTool(
        name="grep", native_name="grep", kind=ToolKind.READ_ONLY,
        description="Search file contents for a pattern (respects .gitignore).",
        input_schema={"type": "object", "required": ["pattern"], "properties": {
            "pattern": _string("Search pattern (regex or literal string)"),
            "path": _string("Directory or file to search (default: current directory)"),
            "glob": _string("Filter files by glob pattern"),
            "ignoreCase": {"type": "boolean", "description": "Case-insensitive search"},
            "literal": {"type": "boolean", "description": "Treat pattern as a literal string"},
            "context": _number("Lines of context around each match"),
            "limit": _number("Maximum number of matches"),
        }},
        resources=_path("."),
    ),
    BuiltinTool(
        name="glob", native_name="find", kind=ToolKind.READ_ONLY,
        description="Find files by glob pattern (pi's find; respects .gitignore).",
        input_schema={"type": "object", "required": ["pattern"], "properties": {
            "pattern": _string("Glob pattern relative to the search directory"),
            "path": _string("Directory to search in (default: current directory)"),
            "limit": _number("Maximum number of results"),
        }},
        resources=_path("."),
    ),
    BuiltinTool(
        name="ls", native_name="ls", kind=ToolKind.READ_ONLY,
        description="List a directory.",
        input_schema={"type": "object", "properties": {
            "path": _string("Directory to list (default: current directory)"),
            "limit": _number("Maximum number of entries"),
        }},
        resources=_path("."),
    ),
)
"""The declarations, in pi's order."""

BY_NAME: Final[Mapping[str, BuiltinTool]] = {tool.name: tool for tool in BUILTINS}
"""Declarations by harness-facing name (``glob``...)."""

BY_NATIVE: Final[Mapping[str, BuiltinTool]] = {tool.native_name: tool for tool in BUILTINS}
"""Declarations by pi's name (``find``...)."""

NATIVE_NAMES: Final[tuple[str, ...]] = tuple(tool.native_name for tool in BUILTINS)
"""pi's names of the declared built-ins."""


def common_name(native_name: str) -> str:
    """The harness-facing name of a pi tool: ``find`` -> ``glob``; others unchanged."""
    builtin = BY_NATIVE.get(native_name)
    return builtin.name if builtin is not None else native_name
