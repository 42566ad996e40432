"""The scripted runtime's built-in tools: what it declares, and how it runs the file tools
(``read``, ``write``, ``edit``, ``glob``) for real in the workspace."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness_core.tools.definition import BuiltinTool, ToolKind, ToolResources

__all__ = ["default_builtins", "inside", "kill_group", "run_file_tool"]


def _path_resources(native: Mapping[str, Any]) -> ToolResources:
    path = native.get("file_path") or native.get("path")
    return ToolResources(paths=(str(path),) if path else ())


def _command_resources(native: Mapping[str, Any]) -> ToolResources:
    command = native.get("command")
    return ToolResources(command=str(command) if command is not None else None)


def _glob_resources(native: Mapping[str, Any]) -> ToolResources:
    return ToolResources(paths=(str(native.get("path") or "."),))


def default_builtins() -> list[BuiltinTool]:
    """The built-ins a :class:`ScriptedAdapter` declares by default.

    ``read``/``Read``, ``write``/``Write``, ``edit``/``Edit``, ``bash``/``Bash`` (native
    names differ, like Claude Code's), ``glob``/``glob`` (same name) and ``NotebookEdit``
    (a native without a common name).
    """
    obj = {"type": "object"}
    return [
        BuiltinTool(name="read", native_name="Read", kind=ToolKind.READ_ONLY, description="Read a file.",
                    input_schema={**obj, "properties": {"file_path": {"type": "string"}}},
                    resources=_path_resources),
        BuiltinTool(name="write", native_name="Write", kind=ToolKind.EDIT, description="Write a file.",
                    input_schema={**obj, "properties": {"file_path": {"type": "string"},
                                                        "content": {"type": "string"}}},
                    resources=_path_resources),
        BuiltinTool(name="edit", native_name="Edit", kind=ToolKind.EDIT, description="Edit a file.",
                    input_schema={**obj, "properties": {"file_path": {"type": "string"},
                                                        "old_string": {"type": "string"},
                                                        "new_string": {"type": "string"}}},
                    resources=_path_resources),
        BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH, description="Run a shell command.",
                    input_schema={**obj, "properties": {"command": {"type": "string"}}},
                    resources=_command_resources),
        BuiltinTool(name="glob", native_name="glob", kind=ToolKind.READ_ONLY, description="Find files.",
                    input_schema={**obj, "properties": {"pattern": {"type": "string"}}},
                    resources=_glob_resources),
        BuiltinTool(name="NotebookEdit", native_name="NotebookEdit", kind=ToolKind.EDIT,
                    description="Edit a notebook cell."),
    ]


def run_file_tool(tool: str, native_name: str, native: Mapping[str, Any], workspace: Path) -> tuple[str, bool]:
    """Run the file built-in ``tool`` (common name) with its native input in ``workspace``.

    Returns:
        ``(content, is_error)``: the result text the model sees; failures (a path outside
        the workspace, a missing file, an ``old_string`` that does not occur exactly once)
        are error results, never exceptions. Tools it does not know answer
        ``"<native> done"``.
    """
    try:
        if tool in ("read", "write", "edit"):
            path = inside(workspace, str(native.get("file_path", "")))
            if tool == "read":
                return path.read_text(encoding="utf-8"), False
            if tool == "write":
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(str(native.get("content", "")), encoding="utf-8")
                return f"Wrote {path.relative_to(workspace)}", False
            text = path.read_text(encoding="utf-8")
            old, new = str(native.get("old_string", "")), str(native.get("new_string", ""))
            if not old or text.count(old) != 1:
                return f"old_string must occur exactly once in {path.relative_to(workspace)}", True
            path.write_text(text.replace(old, new), encoding="utf-8")
            return f"Edited {path.relative_to(workspace)}", False
        if tool == "glob":
            pattern = str(native.get("pattern", "*"))
            return "\n".join(sorted(str(p.relative_to(workspace)) for p in workspace.glob(pattern))), False
    except (OSError, PermissionError, UnicodeDecodeError) as exc:
        return f"{native_name} failed: {type(exc).__name__}: {exc}", True
    return f"{native_name} done", False


def kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (gone already is fine)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def inside(workspace: Path, path: str) -> Path:
    """``path`` resolved inside ``workspace``; ``PermissionError`` when it leads outside."""
    root = workspace.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise PermissionError(f"{path!r} is outside the workspace")
    return target
