"""The core's approval policies, registered as ordinary plugins.

* ``permission-mode``: decides built-in calls from the agent's permission mode and the
  built-in's kind. Its decisions are *fallbacks*: an explicit allow from another policy
  (a rules file, say) pre-approves what the mode would have asked.
* ``tool-approval``: decides host tool calls from the agent's ``tool_approval`` settings.

Override or wrap them like any plugin, or register a policy that denies. Blocking one with
``HARNESS_DISABLE_PLUGINS`` is possible, but an agent whose ``tool_approval`` or
``permission_mode`` relies on the blocked policy then refuses to build
(:class:`~harness_core.errors.HarnessConfigurationError`) rather than ignore the setting.
"""

from __future__ import annotations

from harness_core.approval import ApprovalContext, ApprovalDecision, ApprovalStatus, mode_allows
from harness_core.hookspecs import hookimpl
from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall

__all__ = ["PermissionModePolicy", "ToolApprovalPolicy"]


class PermissionModePolicy:
    """Built-in calls: read-only always runs; edits and shell commands per the mode."""

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        tool = context.tool
        if not call.provider_executed:
            return None
        if not isinstance(tool, BuiltinTool):
            # An undeclared native (the runtime reported a tool nobody declared): treat it
            # as an edit, the cautious default.
            from harness_core.tools.definition import ToolKind

            kind = ToolKind.EDIT
            label = f"undeclared built-in {call.native_tool_name or call.tool_name!r}"
        else:
            kind = tool.kind
            label = f"{kind.value} built-in {call.tool_name!r}"
        mode = context.permission_mode
        if mode_allows(mode, kind):
            return ApprovalDecision(
                ApprovalStatus.APPROVED, f"permission mode {mode.value} allows {label}", fallback=True
            )
        return ApprovalDecision(
            ApprovalStatus.USER_APPROVAL,
            f"permission mode {mode.value} asks before {label}",
            fallback=True,
        )


class ToolApprovalPolicy:
    """Host tool calls: the agent's ``tool_approval`` entry for the tool, if any."""

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.provider_executed or not isinstance(context.tool, HarnessTool):
            return None
        setting = context.tool_approval.get(call.tool_name)
        if setting is None:
            return None
        if callable(setting):
            setting = setting(call, context)
            if setting is None:
                return None
        status = ApprovalStatus.parse(setting, where=f"tool_approval[{call.tool_name!r}]")
        if status is ApprovalStatus.NOT_APPLICABLE:
            return None
        return ApprovalDecision(status, f"tool_approval for {call.tool_name!r} is {status.value}")
