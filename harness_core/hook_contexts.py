"""Context objects the hooks receive besides their main argument."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from harness_core.approval import PermissionMode
from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolContext

if TYPE_CHECKING:
    from harness_core.tools.output import ToolOutput

__all__ = ["BuiltinExecutionContext", "ExecutionContext", "FilterRequest", "OnError", "ProjectionContext"]

OnError = Literal["return-to-model", "fail"]
"""What a raised tool error does: the model gets an error result, or the turn fails."""


@attrs.frozen(kw_only=True)
class FilterRequest:
    """What ``harness_filter_tools`` knows besides the tool list.

    Attributes:
        harness_id: the adapter's harness id.
        session_id: the session being set up, or ``None`` at agent construction.
        permission_mode: the agent's permission mode.
        active_tools / inactive_tools: the agent's own filter (already applied), if any.
    """

    harness_id: str
    session_id: str | None = None
    permission_mode: PermissionMode = PermissionMode.ALLOW_ALL
    active_tools: frozenset[str] | None = None
    inactive_tools: frozenset[str] | None = None


@attrs.frozen(kw_only=True)
class ExecutionContext:
    """What ``harness_execute_tool`` receives besides the call.

    Attributes:
        tool: the host tool to run (already validated input is in ``call.input``).
        tool_context: the :class:`~harness_core.tools.definition.ToolContext` passed to ``execute``.
        on_error: the tool-execution error policy.
        on_preliminary: called with each preliminary result a generator tool yields.
        timeout: seconds before the call becomes an error result, or ``None``.
    """

    tool: HarnessTool
    tool_context: ToolContext
    on_error: OnError = "return-to-model"
    on_preliminary: Callable[[Any], None] | None = None
    timeout: float | None = None


@attrs.frozen(kw_only=True)
class BuiltinExecutionContext:
    """What ``harness_execute_builtin`` receives besides the call.

    Attributes:
        harness_id: the harness whose built-in this is (``"builtin"``).
        session_id: the harness session id.
        execute: runs the call in the runtime, once, and returns its output (the
            runtime's deadline, error handling and file-change detection included);
            the ``default-executor`` plugin returns ``execute()``.
    """

    harness_id: str
    session_id: str
    execute: Callable[[], Awaitable[ToolOutput]]


@attrs.define(kw_only=True)
class ProjectionContext:
    """What ``harness_project_event`` receives besides the event; one per turn.

    Attributes:
        harness_id: the adapter's harness id.
        session_id: the session id.
        builtins: declared built-ins by native name.
        host_tools: host tools by name.
        state: scratch space a projection keeps across the events of one turn (open text
            blocks, call ids...). Keys should be prefixed with the plugin name.
    """

    harness_id: str
    session_id: str = ""
    builtins: Mapping[str, BuiltinTool] = attrs.field(factory=dict)
    host_tools: Mapping[str, HarnessTool] = attrs.field(factory=dict)
    state: dict[str, Any] = attrs.field(factory=dict)
    _ids: itertools.count[int] = attrs.field(factory=itertools.count, alias="_ids")

    def new_id(self, prefix: str = "p") -> str:
        """A fresh id unique within this turn, e.g. ``"text-3"``."""
        return f"{prefix}-{next(self._ids)}"

    def builtin_by_native(self, native_name: str) -> BuiltinTool | None:
        """The declared built-in with this native name, or ``None``."""
        return self.builtins.get(native_name)
