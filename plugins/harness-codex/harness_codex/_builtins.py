"""Codex 0.171.0's built-in tools, declared under common names where one exists.

=============  ==================  =========  =========================================
name           native              kind       notes
=============  ==================  =========  =========================================
``bash``       ``exec_command``    bash       ``commandExecution`` items
``edit``       ``apply_patch``     edit       a patch that updates or deletes files
``write``      ``apply_patch``     edit       a patch that only adds files
``webSearch``  ``web_search``      read-only  only with ``codex(web_search=True)``
``write_stdin`` ``write_stdin``    bash       input to a running ``exec_command``
``view_image`` ``view_image``      read-only
=============  ==================  =========  =========================================

``apply_patch`` is offered only for models Codex knows (``gpt-5.5``...); an unknown model
id gets ``exec_command`` alone (RUNTIMES.md §2).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Final

from harness_core import BuiltinTool, ToolKind, ToolResources

from ._settings import NATIVE_PATCH, NATIVE_SHELL

__all__ = ["BUILTINS", "BY_NAME", "patch_tool_name", "unwrap_command"]

_SHELL_PREFIXES: Final = (("/bin/bash", "-lc"), ("bash", "-lc"), ("/bin/sh", "-c"), ("sh", "-c"),
                          ("/bin/zsh", "-lc"), ("zsh", "-lc"))


def unwrap_command(command: str) -> str:
    """The model's command line from Codex's display form (``/bin/bash -lc 'echo hi'`` -> ``echo hi``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if len(words) == 3 and tuple(words[:2]) in _SHELL_PREFIXES:
        return words[2]
    return command


def _shell_resources(native_input: Mapping[str, Any]) -> ToolResources:
    command = native_input.get("command")
    return ToolResources(command=command if isinstance(command, str) else None)


def _patch_resources(native_input: Mapping[str, Any]) -> ToolResources:
    changes = native_input.get("changes")
    paths = [c["path"] for c in changes if isinstance(c, Mapping) and isinstance(c.get("path"), str)] \
        if isinstance(changes, list) else []
    return ToolResources(paths=paths)


def patch_tool_name(changes: Sequence[Mapping[str, Any]]) -> str:
    """``write`` when a patch only adds files, else ``edit``."""
    kinds = {str((c.get("kind") or {}).get("type")) for c in changes if isinstance(c.get("kind"), Mapping)}
    return "write" if changes and kinds == {"add"} else "edit"


BUILTINS: Final[tuple[BuiltinTool, ...]] = (
    BuiltinTool(name="bash", native_name=NATIVE_SHELL, kind=ToolKind.BASH,
                description="Run a shell command in the workspace.",
                input_schema={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
                resources=_shell_resources),
    BuiltinTool(name="edit", native_name=NATIVE_PATCH, kind=ToolKind.EDIT,
                description="Apply a patch that changes or deletes files.",
                input_schema={"type": "object", "properties": {"changes": {"type": "array"}}},
                resources=_patch_resources),
    BuiltinTool(name="write", native_name=NATIVE_PATCH, kind=ToolKind.EDIT, description="Apply a patch that adds files.",
                input_schema={"type": "object", "properties": {"changes": {"type": "array"}}},
                resources=_patch_resources),
    BuiltinTool(name="webSearch", native_name="web_search", kind=ToolKind.READ_ONLY,
                description="Search the web (provider-side)."),
    BuiltinTool(name="write_stdin", native_name="write_stdin", kind=ToolKind.BASH,
                description="Write to a running command's stdin."),
    BuiltinTool(name="view_image", native_name="view_image", kind=ToolKind.READ_ONLY,
                description="Attach a local image to the context."),
)
"""Every built-in the adapter declares for ``codex``."""

BY_NAME: Final[Mapping[str, BuiltinTool]] = {tool.name: tool for tool in BUILTINS}
