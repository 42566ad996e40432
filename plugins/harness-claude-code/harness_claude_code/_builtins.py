"""Claude Code's built-in tools as harness-core :class:`~harness_core.BuiltinTool` declarations.

The seven tools with a cross-harness common name are declared under it (``read`` is
Claude Code's ``Read``, ``bash`` its ``Bash``...); every other native keeps its own name
(``WebFetch``, ``NotebookEdit``, ``TodoWrite``, ``Task``...). Each declaration has a kind
(read-only, edit or bash) and a ``resources`` extractor that reads the paths and the
command out of Claude Code's native input, so permission rules can match them.

Names follow Claude Code 2.x (the CLI bundled with ``claude-agent-sdk`` 0.2.x). The CLI
silently ignores names it does not know, so declaring a native an older or newer CLI
lacks is harmless; a tool the CLI offers that is not declared here is still projected,
as a dynamic provider-executed tool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from harness_core import BuiltinTool, ToolKind, ToolResources

__all__ = [
    "BUILTINS",
    "BY_NAME",
    "BY_NATIVE",
    "NATIVE_ALIASES",
    "builtin_for_native",
    "native_names",
]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _mapping(native_input: object) -> Mapping[str, Any]:
    return native_input if isinstance(native_input, Mapping) else {}


def _path_field(*fields: str, default: str | None = None) -> Callable[[Mapping[str, Any]], ToolResources]:
    """An extractor returning the first non-empty string among ``fields`` as the path."""

    def extract(native_input: Mapping[str, Any]) -> ToolResources:
        data = _mapping(native_input)
        for name in fields:
            path = _text(data.get(name))
            if path is not None:
                return ToolResources(paths=(path,))
        return ToolResources(paths=(default,) if default is not None else ())

    return extract


def _command(native_input: Mapping[str, Any]) -> ToolResources:
    return ToolResources(command=_text(_mapping(native_input).get("command")))


def _nothing(native_input: Mapping[str, Any]) -> ToolResources:
    return ToolResources()


def _object(properties: Mapping[str, Mapping[str, Any]], *required: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return schema


_STRING: Final = {"type": "string"}
_INTEGER: Final = {"type": "integer"}
_BOOLEAN: Final = {"type": "boolean"}


def _declare() -> tuple[BuiltinTool, ...]:
    read_only, edit, bash = ToolKind.READ_ONLY, ToolKind.EDIT, ToolKind.BASH
    file_path = _path_field("file_path")
    search_path = _path_field("path", default=".")
    return (
        BuiltinTool(
            name="read", native_name="Read", kind=read_only,
            description="Read a file (text, image, PDF or notebook) by absolute path.",
            input_schema=_object({"file_path": _STRING, "offset": _INTEGER, "limit": _INTEGER}, "file_path"),
            resources=file_path,
        ),
        BuiltinTool(
            name="write", native_name="Write", kind=edit,
            description="Create or overwrite a file by absolute path.",
            input_schema=_object({"file_path": _STRING, "content": _STRING}, "file_path", "content"),
            resources=file_path,
        ),
        BuiltinTool(
            name="edit", native_name="Edit", kind=edit,
            description="Replace a string in a file.",
            input_schema=_object(
                {"file_path": _STRING, "old_string": _STRING, "new_string": _STRING, "replace_all": _BOOLEAN},
                "file_path", "old_string", "new_string",
            ),
            resources=file_path,
        ),
        BuiltinTool(
            name="bash", native_name="Bash", kind=bash,
            description="Run a shell command in the workspace.",
            input_schema=_object(
                {"command": _STRING, "description": _STRING, "timeout": _INTEGER, "run_in_background": _BOOLEAN},
                "command",
            ),
            resources=_command,
        ),
        BuiltinTool(
            name="grep", native_name="Grep", kind=read_only,
            description="Search file contents with a regular expression (ripgrep).",
            input_schema=_object({"pattern": _STRING, "path": _STRING, "glob": _STRING}, "pattern"),
            resources=search_path,
        ),
        BuiltinTool(
            name="glob", native_name="Glob", kind=read_only,
            description="Find files by glob pattern.",
            input_schema=_object({"pattern": _STRING, "path": _STRING}, "pattern"),
            resources=search_path,
        ),
        BuiltinTool(
            name="webSearch", native_name="WebSearch", kind=read_only,
            description="Search the web.",
            input_schema=_object({"query": _STRING}, "query"),
            resources=_nothing,
        ),
        BuiltinTool(
            name="WebFetch", native_name="WebFetch", kind=read_only,
            description="Fetch a URL and process its content.",
            input_schema=_object({"url": _STRING, "prompt": _STRING}, "url"),
            resources=_nothing,
        ),
        BuiltinTool(
            name="NotebookEdit", native_name="NotebookEdit", kind=edit,
            description="Edit a Jupyter notebook cell.",
            input_schema=_object({"notebook_path": _STRING, "new_source": _STRING}, "notebook_path"),
            resources=_path_field("notebook_path"),
        ),
        BuiltinTool(
            name="MultiEdit", native_name="MultiEdit", kind=edit,
            description="Several edits to one file (older Claude Code versions).",
            resources=file_path,
        ),
        BuiltinTool(
            name="LS", native_name="LS", kind=read_only,
            description="List a directory (older Claude Code versions).",
            resources=_path_field("path", default="."),
        ),
        BuiltinTool(
            name="TodoWrite", native_name="TodoWrite", kind=read_only,
            description="Update the session's todo list (no workspace effect).",
            resources=_nothing,
        ),
        BuiltinTool(
            name="Task", native_name="Task", kind=read_only,
            description="Run a subagent; its own tool calls are approved one by one.",
            resources=_nothing,
        ),
        BuiltinTool(name="TaskCreate", native_name="TaskCreate", kind=read_only,
                    description="Add a task to the session's task list.", resources=_nothing),
        BuiltinTool(name="TaskGet", native_name="TaskGet", kind=read_only,
                    description="Read a task of the session's task list.", resources=_nothing),
        BuiltinTool(name="TaskList", native_name="TaskList", kind=read_only,
                    description="List the session's tasks.", resources=_nothing),
        BuiltinTool(name="TaskUpdate", native_name="TaskUpdate", kind=read_only,
                    description="Update a task of the session's task list.", resources=_nothing),
        BuiltinTool(name="TaskOutput", native_name="TaskOutput", kind=read_only,
                    description="Read a background task's output.", resources=_nothing),
        BuiltinTool(name="BashOutput", native_name="BashOutput", kind=read_only,
                    description="Read a background shell's output (older versions).", resources=_nothing),
        BuiltinTool(name="TaskStop", native_name="TaskStop", kind=bash,
                    description="Stop a background task or shell.", resources=_nothing),
        BuiltinTool(name="KillShell", native_name="KillShell", kind=bash,
                    description="Kill a background shell (older versions).", resources=_nothing),
        BuiltinTool(name="ExitPlanMode", native_name="ExitPlanMode", kind=read_only,
                    description="Leave plan mode with a plan.", resources=_nothing),
        BuiltinTool(name="ToolSearch", native_name="ToolSearch", kind=read_only,
                    description="Find deferred tools by keyword (when tool search is on).", resources=_nothing),
        BuiltinTool(name="Skill", native_name="Skill", kind=edit,
                    description="Run an installed skill.", resources=_nothing),
    )


BUILTINS: Final[tuple[BuiltinTool, ...]] = _declare()
"""Every built-in this adapter declares, common names first."""

BY_NAME: Final[Mapping[str, BuiltinTool]] = {tool.name: tool for tool in BUILTINS}
"""Declarations by harness-facing name (``bash``, ``WebFetch``...)."""

NATIVE_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {"Task": ("Agent",)}
"""Other names the CLI uses for a declared native: Claude Code 2.x calls the subagent tool
``Agent`` on the wire and in tool calls while ``init`` reports it as ``Task``."""

BY_NATIVE: Final[Mapping[str, BuiltinTool]] = {
    **{tool.native_name: tool for tool in BUILTINS},
    **{alias: BY_NAME[name] for name, aliases in NATIVE_ALIASES.items() for alias in aliases},
}
"""Declarations by every native name the CLI may use (aliases included)."""


def builtin_for_native(native_name: str) -> BuiltinTool | None:
    """The declaration for a native tool name (``Bash``, ``Agent``...), or ``None``."""
    return BY_NATIVE.get(native_name)


def native_names(names: Iterable[str]) -> list[str]:
    """Every native name (aliases included) of the declared built-ins ``names``, in order.

    Raises:
        KeyError: a name is not a declared built-in.
    """
    natives: list[str] = []
    for name in names:
        tool = BY_NAME[name]
        natives.append(tool.native_name)
        natives.extend(NATIVE_ALIASES.get(tool.native_name, ()))
    return natives
