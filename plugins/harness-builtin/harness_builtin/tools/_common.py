"""What every built-in tool shares: its context lookups, expected errors, text cutting."""

from __future__ import annotations

import errno
from typing import Any, Final

from harness_core import HarnessError, Sandbox, ToolContext

from ..settings import DEFAULT_TOOL_SETTINGS, ToolSettings
from ..workspace import Workspace

__all__ = [
    "BINARY_PROBE_BYTES",
    "cut_line",
    "SETTINGS_KEY",
    "WORKSPACE_KEY",
    "ToolError",
    "cut_middle",
    "describe_os_error",
    "settings_of",
    "workspace_of",
]

WORKSPACE_KEY: Final = "harness_builtin.workspace"
"""``ToolContext.metadata`` key of the :class:`~harness_builtin.workspace.Workspace`."""
SETTINGS_KEY: Final = "harness_builtin.tool_settings"
"""``ToolContext.metadata`` key of the :class:`~harness_builtin.settings.ToolSettings`."""
BINARY_PROBE_BYTES: Final = 8192
"""A file whose first this-many bytes hold a NUL byte is treated as binary."""


class ToolError(HarnessError):
    """An expected tool failure (missing file, ambiguous edit, bad pattern...).

    The message goes to the model as the call's error result; it never fails the turn.
    """


def workspace_of(context: ToolContext) -> Workspace:
    """The workspace a built-in call works in: from the context metadata, else built from
    the context's sandbox.

    Raises:
        ToolError: there is no sandbox with ``resolve`` (path confinement is mandatory).
    """
    workspace = context.metadata.get(WORKSPACE_KEY)
    if isinstance(workspace, Workspace):
        return workspace
    sandbox: Any = context.sandbox
    if isinstance(sandbox, Sandbox):
        return Workspace(sandbox)
    raise ToolError(
        f"tool {context.tool_name!r} needs a workspace sandbox with resolve() (a LocalSandbox); "
        "this session has none"
    )


def settings_of(context: ToolContext) -> ToolSettings:
    """The tool settings from the context metadata, else the defaults."""
    settings = context.metadata.get(SETTINGS_KEY)
    return settings if isinstance(settings, ToolSettings) else DEFAULT_TOOL_SETTINGS


def describe_os_error(exc: OSError, path: str) -> str:
    """A one-line message for an OS error on ``path``, for the model."""
    if isinstance(exc, PermissionError) and exc.strerror and "workspace" in exc.strerror:
        return exc.strerror
    if isinstance(exc, FileNotFoundError):
        return f"{path!r} does not exist"
    if isinstance(exc, IsADirectoryError):
        return f"{path!r} is a directory"
    if isinstance(exc, NotADirectoryError):
        if exc.strerror and "component of the path" in exc.strerror:
            return exc.strerror  # LocalSandbox names the component
        return f"{path!r}: a component of the path is not a directory"
    if exc.errno == errno.ELOOP:
        return exc.strerror if exc.strerror and "loop" in exc.strerror else f"{path!r}: symbolic-link loop"
    return f"{path!r}: {exc.strerror or exc}"


def cut_line(line: str, cap: int) -> str:
    """``line`` cut to ``cap`` characters, with ``" [line cut]"`` appended when it was longer."""
    return line if len(line) <= cap else line[:cap] + " [line cut]"


def cut_middle(text: str, limit: int) -> str:
    """Keep the head and the tail of ``text`` within ``limit`` characters, with a marker
    in the middle saying how many characters were left out."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    omitted = len(text) - limit
    return f"{text[:head]}\n\n[... {omitted} characters cut ...]\n\n{text[len(text) - tail:]}"
