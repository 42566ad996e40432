"""How a tool name Claude Code uses is presented to the host.

Claude Code names its built-ins natively (``Bash``, ``Write``, ``Agent``...), host tools
``mcp__harness__<tool>`` (the in-process MCP server) and tools of external MCP servers
``mcp__<server>__<tool>``. :func:`identify_tool` classifies a name into a
:class:`ToolIdentity`: the harness-facing name, the native name when it differs, and
whether the call is a host call or a dynamic tool.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from harness_core import with_native_tool_name

from ._builtins import builtin_for_native
from ._settings import HARNESS_ID, HOST_PREFIX

__all__ = ["ToolIdentity", "dumps_input", "identify_tool"]


@dataclasses.dataclass(frozen=True)
class ToolIdentity:
    """How a native tool name is presented to the host.

    Attributes:
        tool_name: the harness-facing name (common name, native name or host tool name).
        native_tool_name: the runtime's name when it differs from ``tool_name``.
        host: the call is a host tool call (through the in-process MCP server).
        dynamic: the tool is outside the typed tool set (undeclared native, external MCP).
    """

    tool_name: str
    native_tool_name: str | None
    host: bool
    dynamic: bool

    def metadata(self) -> dict[str, dict[str, Any]] | None:
        """``provider_metadata`` carrying ``nativeToolName`` when the names differ."""
        return with_native_tool_name(None, HARNESS_ID, self.tool_name, self.native_tool_name)


def identify_tool(native_name: str, host_prefix: str = HOST_PREFIX) -> ToolIdentity:
    """Classify a tool name as Claude Code uses it (``Bash``, ``mcp__harness__weather``...)."""
    if native_name.startswith(host_prefix) and len(native_name) > len(host_prefix):
        return ToolIdentity(native_name[len(host_prefix) :], native_name, host=True, dynamic=False)
    builtin = builtin_for_native(native_name)
    if builtin is not None:
        native = native_name if native_name != builtin.name else None
        return ToolIdentity(builtin.name, native, host=False, dynamic=False)
    return ToolIdentity(native_name, None, host=False, dynamic=True)


def dumps_input(value: object) -> str:
    """Canonical JSON of a tool input (sorted keys, no spaces), for comparing calls."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)
