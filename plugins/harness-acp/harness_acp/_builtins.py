"""An ACP agent's built-in tools, declared by ACP tool ``kind``.

ACP does not name an agent's tools; every ``tool_call`` carries a ``kind`` (``read``,
``edit``, ``delete``, ``move``, ``search``, ``execute``, ``think``, ``fetch``,
``switch_mode``, ``other``), a human ``title`` and the agent's ``rawInput``. The adapter
declares one built-in per kind that has a cross-harness common name, with the kind as
its native name: ``read``, ``edit``, ``bash`` (``execute``), ``grep`` (``search``),
``glob`` (a ``search`` whose input or title is a file-name pattern) and ``webSearch``
(``fetch``); ``delete`` and ``move`` are declared under their own names (kind edit).
Calls of any other kind become dynamic provider-executed tools named by their title.

Inputs are the agent's ``rawInput`` with the common keys filled in: ``command`` (a
string, for ``execute``) and ``path`` (the first location, for file tools), so that
permission rules match them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness_core import BuiltinTool, ToolKind, ToolResources

__all__ = ["BUILTINS", "BY_KIND", "BY_NAME"]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _paths(native_input: Mapping[str, Any]) -> ToolResources:
    data = native_input if isinstance(native_input, Mapping) else {}
    paths = [p for p in (data.get("path"), data.get("file_path")) if isinstance(p, str) and p]
    return ToolResources(paths=tuple(dict.fromkeys(paths)))


def _command(native_input: Mapping[str, Any]) -> ToolResources:
    data = native_input if isinstance(native_input, Mapping) else {}
    return ToolResources(command=_text(data.get("command")))


def _object(**properties: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": kind} for name, kind in properties.items()}}


_RO, _EDIT, _BASH = ToolKind.READ_ONLY, ToolKind.EDIT, ToolKind.BASH

BUILTINS: Final[tuple[BuiltinTool, ...]] = (
    BuiltinTool(name="read", native_name="read", kind=_RO, description="Read a file (ACP kind read).",
                input_schema=_object(path="string"), resources=_paths),
    BuiltinTool(name="edit", native_name="edit", kind=_EDIT, description="Create or change a file (ACP kind edit).",
                input_schema=_object(path="string"), resources=_paths),
    BuiltinTool(name="delete", native_name="delete", kind=_EDIT, description="Delete a file (ACP kind delete).",
                input_schema=_object(path="string"), resources=_paths),
    BuiltinTool(name="move", native_name="move", kind=_EDIT, description="Move a file (ACP kind move).",
                input_schema=_object(path="string"), resources=_paths),
    BuiltinTool(name="bash", native_name="execute", kind=_BASH, description="Run a shell command (ACP kind execute).",
                input_schema=_object(command="string"), resources=_command),
    BuiltinTool(name="grep", native_name="search", kind=_RO, description="Search file contents (ACP kind search).",
                input_schema=_object(pattern="string", path="string"), resources=_paths),
    BuiltinTool(name="glob", native_name="search-files", kind=_RO,
                description="Find files by name pattern (ACP kind search with a glob).",
                input_schema=_object(pattern="string", path="string"), resources=_paths),
    BuiltinTool(name="webSearch", native_name="fetch", kind=_RO, description="Fetch or search the web (ACP kind fetch).",
                input_schema=_object(query="string", url="string")),
)
"""The declared built-ins (``harness_declare_builtins("acp")``)."""

BY_NAME: Final[Mapping[str, BuiltinTool]] = {tool.name: tool for tool in BUILTINS}
"""Built-ins by harness-facing name."""

BY_KIND: Final[Mapping[str, BuiltinTool]] = {
    "read": BY_NAME["read"], "edit": BY_NAME["edit"], "delete": BY_NAME["delete"], "move": BY_NAME["move"],
    "execute": BY_NAME["bash"], "search": BY_NAME["grep"], "fetch": BY_NAME["webSearch"],
}
"""Built-ins by ACP tool kind (``search`` resolves to ``grep`` or ``glob``, see :func:`harness_acp._tools.identify`)."""
