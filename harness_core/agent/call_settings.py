"""Per-session settings shared by the host-call and built-in-call paths (a frozen value)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping
from typing import Any

import attrs

from harness_core.agent.tool_context import OnToolExecutionEnd, ToolExecutionEnd
from harness_core.approval import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    PermissionMode,
    ToolApprovalSetting,
)
from harness_core.hook_contexts import OnError
from harness_core.mcp import mcp_name_matches
from harness_core.plugins.manager import HookFacade
from harness_core.sandbox import SandboxView
from harness_core.tools.content import TEXT_ONLY
from harness_core.tools.definition import BuiltinTool, HarnessTool

__all__ = ["CallSettings", "result_content_of", "unknown_resources"]

logger = logging.getLogger("harness_core")


def unknown_resources(what: str, exc: Exception) -> ApprovalDecision:
    """The denial for a call whose ``resources`` mapping raised: unknown reach is unsafe."""
    return ApprovalDecision(
        ApprovalStatus.DENIED,
        f"could not tell what {what} touches ({type(exc).__name__}: {exc}); denied for safety",
        plugin="harness-core",
    )


@attrs.frozen(kw_only=True)
class CallSettings:
    """Everything the call paths of one session need, decided when the session opened.

    Attributes:
        hooks: the agent's hook facade.
        harness_id / session_id / permission_mode / workspace_root: for approval contexts.
        builtins: the runtime's built-ins by harness-facing name.
        tools: host tools by name (active and inactive).
        inactive: inactive host tool names, each with the reason (which filter).
        inactive_builtins: built-ins denied through approvals, each with the reason.
        builtin_allowlist: with ``active_tools`` filtering built-ins through approvals, the
            built-ins that may run; else ``None``.
        tool_approval: the agent's ``tool_approval`` settings.
        on_error / timeout: execution policy for host tools.
        sandbox: the restricted sandbox view handed to host tools, or ``None``.
        on_end: the ``on_tool_execution_end`` callback, or ``None``.
        display_root: the workspace root stripped from display paths in parts (the sandbox
            root, else the adapter session's ``workspace_root``), or ``None`` with
            ``display_paths="absolute"`` or no known workspace.
        result_content: the content kinds of a rich host tool result the runtime passes
            to the model (the adapter session's optional ``tool_result_content``, else
            text only); ``tool-result`` parts warn about the others.
    """

    hooks: HookFacade
    harness_id: str
    session_id: str
    permission_mode: PermissionMode
    workspace_root: str | None
    builtins: Mapping[str, BuiltinTool]
    tools: Mapping[str, HarnessTool]
    inactive: Mapping[str, str]
    inactive_builtins: Mapping[str, str] = attrs.field(factory=dict)
    builtin_allowlist: frozenset[str] | None = None
    tool_approval: Mapping[str, ToolApprovalSetting] = attrs.field(factory=dict)
    on_error: OnError = "return-to-model"
    timeout: float | None = None
    sandbox: SandboxView | None = None
    on_end: OnToolExecutionEnd | None = None
    display_root: str | None = None
    result_content: frozenset[str] = TEXT_ONLY

    def approval_context(self, tool: HarnessTool | BuiltinTool | None, resources: Any) -> ApprovalContext:
        """The :class:`ApprovalContext` for one call."""
        return ApprovalContext(
            harness_id=self.harness_id,
            session_id=self.session_id,
            permission_mode=self.permission_mode,
            tool=tool,
            resources=resources,
            workspace_root=self.workspace_root,
            tool_approval=self.tool_approval,
        )

    def builtin_inactive_reason(self, name: str) -> str | None:
        """Why the built-in ``name`` may not run in this session, or ``None`` when it may."""
        if name in self.inactive_builtins:
            return self.inactive_builtins[name]
        for entry, reason in self.inactive_builtins.items():
            if mcp_name_matches(entry, name):
                return f"{reason}, as {entry!r}"
        if self.builtin_allowlist is not None and not any(
                mcp_name_matches(entry, name) for entry in self.builtin_allowlist):
            return "not in active_tools"
        return None

    async def notify_end(self, event: ToolExecutionEnd) -> None:
        """Call ``on_tool_execution_end``; a failing callback is logged, never fatal."""
        if self.on_end is None:
            return
        try:
            result = self.on_end(event)
            if inspect.isawaitable(result):
                await result
        except Exception:
            logger.exception("on_tool_execution_end raised for tool %r (call %s)", event.tool.name,
                             event.call.tool_call_id)


def result_content_of(adapter_session: object) -> frozenset[str]:
    """The adapter session's ``tool_result_content`` (the kinds of rich result items its
    runtime carries: ``text``, ``image``, ``other``), text only when absent or malformed."""
    kinds = getattr(adapter_session, "tool_result_content", None)
    if isinstance(kinds, frozenset | set | tuple | list) and all(isinstance(k, str) for k in kinds):
        return frozenset(kinds) | TEXT_ONLY
    return TEXT_ONLY
