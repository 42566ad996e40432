"""The built-in tools: ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``glob`` and ``ls``.

Each is an ordinary :class:`~harness_core.tools.definition.HarnessTool` made with
:func:`~harness_core.tools.definition.define_harness_tool` whose ``execute`` works on the workspace of
its :class:`~harness_core.tools.definition.ToolContext` (``metadata["harness_builtin.workspace"]``, or
the context's sandbox). The built-in harness runs them itself and declares them to the
core as :class:`~harness_core.tools.definition.BuiltinTool` (see :func:`builtin_declarations`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness_core import BuiltinTool, HarnessTool, ToolKind, ToolResources

from ._common import SETTINGS_KEY, WORKSPACE_KEY, ToolError
from .files import EDIT, READ, WRITE
from .search import GLOB, GREP, LS, glob_to_regex
from .shell import BASH, format_command_result
from .skills import SKILL_TOOL, SKILLS_KEY, skill_tool_description

__all__ = [
    "BASH",
    "BUILTIN_KINDS",
    "BUILTIN_TOOLS",
    "EDIT",
    "GLOB",
    "GREP",
    "LS",
    "READ",
    "SKILLS_KEY",
    "SKILL_TOOL",
    "SETTINGS_KEY",
    "WORKSPACE_KEY",
    "WRITE",
    "ToolError",
    "builtin_declarations",
    "format_command_result",
    "glob_to_regex",
    "skill_tool_description",
]

BUILTIN_TOOLS: Final[Mapping[str, HarnessTool]] = {
    tool.name: tool for tool in (READ, WRITE, EDIT, BASH, GREP, GLOB, LS, SKILL_TOOL)
}
"""The built-in tools by name, in the order they are offered to the model."""

BUILTIN_KINDS: Final[Mapping[str, ToolKind]] = {
    "read": ToolKind.READ_ONLY,
    "write": ToolKind.EDIT,
    "edit": ToolKind.EDIT,
    "bash": ToolKind.BASH,
    "grep": ToolKind.READ_ONLY,
    "glob": ToolKind.READ_ONLY,
    "ls": ToolKind.READ_ONLY,
    "skill": ToolKind.READ_ONLY,
}
"""Each built-in's kind, which decides its treatment under a permission mode."""


def _extractor(tool: HarnessTool) -> Any:
    def resources(native_input: Mapping[str, Any]) -> ToolResources:
        return tool.resources_for(native_input) or ToolResources()

    return resources


def builtin_declarations() -> list[BuiltinTool]:
    """The built-ins as the core sees them (``harness_declare_builtins("builtin")``):
    common name equal to the native name, kind, input schema and ``resources`` extractor."""
    return [
        BuiltinTool(
            name=name,
            native_name=name,
            kind=BUILTIN_KINDS[name],
            description=tool.description,
            input_schema=tool.json_schema,
            resources=_extractor(tool),
        )
        for name, tool in BUILTIN_TOOLS.items()
    ]
