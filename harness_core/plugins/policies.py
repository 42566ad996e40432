"""The core's approval policies, registered as ordinary plugins.

* ``permission-mode``: decides built-in calls from the agent's permission mode and the
  built-in's kind; under ``allow-edits`` / ``allow-reads`` a call whose path resolves
  outside the workspace (links followed, as the OS would) is asked, never allowed. Its decisions are *fallbacks*: an explicit allow from another policy
  (a rules file, say) pre-approves what the mode would have asked.
* ``tool-approval``: decides host tool calls from the agent's ``tool_approval`` settings.

Override or wrap them like any plugin, or register a policy that denies. Each declares
what it enforces with :func:`enforces`; nothing looks them up by name. Blocking one with
``HARNESS_DISABLE_PLUGINS`` is possible, but an agent whose ``tool_approval`` or
``permission_mode`` then has no loaded implementation declaring it enforces that setting
refuses to build (:class:`~harness_core.errors.HarnessConfigurationError`) rather than
ignore the setting. A replacement policy under another name that declares the same is
accepted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final, Literal, TypeVar

from harness_core.approval import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    PermissionMode,
    mode_allows,
    parse_tool_approval,
)
from harness_core.hookspecs import hookimpl
from harness_core.sandbox.confine import paths_outside
from harness_core.tools.definition import BuiltinTool, HarnessTool, ToolCall

__all__ = ["ENFORCES_ATTRIBUTE", "EnforcedSetting", "PermissionModePolicy", "ToolApprovalPolicy", "enforces"]

logger = logging.getLogger("harness_core.approval")

EnforcedSetting = Literal["tool_approval", "permission_mode"]
"""An agent setting an approval policy may declare it enforces."""

ENFORCES_ATTRIBUTE: Final = "harness_enforces"
"""The function attribute :func:`enforces` sets (a frozenset of :data:`EnforcedSetting`)."""

F = TypeVar("F", bound=Callable[..., object])


def enforces(*settings: EnforcedSetting) -> Callable[[F], F]:
    """Declare which agent settings a ``harness_approve_call`` implementation enforces.

    Put it under ``@hookimpl``. The declaration is a promise about behaviour:

    * ``"tool_approval"``: it decides host calls from ``context.tool_approval`` and returns
      ``None`` for built-in calls;
    * ``"permission_mode"``: it decides built-in calls from ``context.permission_mode`` and
      the built-in's kind (:func:`~harness_core.approval.mode_allows`, so under
      ``allow-all`` it approves every built-in; under the other modes it asks for a call
      whose ``resources.paths`` leave ``context.workspace_root``) and returns ``None`` for
      host calls.

    An agent with ``tool_approval`` entries (or a permission mode other than
    ``allow-all``) refuses to build unless some loaded implementation declares the
    matching setting. Under ``allow-all``, built-in calls skip the approval hook only when
    every implementation of it (wrappers included) declares one of these settings, since
    then each would approve or abstain; any other implementation makes every built-in call
    ask the hook.

    Raises:
        ValueError: an unknown setting name.
    """
    unknown = sorted(set(settings) - {"tool_approval", "permission_mode"})
    if unknown or not settings:
        raise ValueError(f"enforces() takes 'tool_approval' and/or 'permission_mode', got {settings!r}")

    def mark(function: F) -> F:
        setattr(function, ENFORCES_ATTRIBUTE, frozenset(settings))
        return function

    return mark


class PermissionModePolicy:
    """Built-in calls: read-only always runs; edits and shell commands per the mode."""

    @hookimpl
    @enforces("permission_mode")
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
            outside = _outside_workspace(context)
            if outside:
                return ApprovalDecision(
                    ApprovalStatus.USER_APPROVAL,
                    f"permission mode {mode.value} covers the workspace only; {label} touches {outside!r}, "
                    "which resolves outside it",
                    fallback=True,
                )
            return ApprovalDecision(
                ApprovalStatus.APPROVED, f"permission mode {mode.value} allows {label}", fallback=True
            )
        return ApprovalDecision(
            ApprovalStatus.USER_APPROVAL,
            f"permission mode {mode.value} asks before {label}",
            fallback=True,
        )


def _outside_workspace(context: ApprovalContext) -> str | None:
    """The first path of the call that leads outside the workspace, under ``allow-edits`` /
    ``allow-reads`` (``allow-all`` covers every path). Resolved as the OS would
    (:func:`~harness_core.sandbox.path_in_workspace`); with no known workspace every path
    counts as outside (fail closed)."""
    resources = context.resources
    if context.permission_mode is PermissionMode.ALLOW_ALL or resources is None or not resources.paths:
        return None
    root = context.workspace_root
    if root is None:
        return resources.paths[0]
    outside = paths_outside(resources.paths, root)
    return outside[0] if outside else None


class ToolApprovalPolicy:
    """Host tool calls: the agent's ``tool_approval`` entry for the tool, if any."""

    @hookimpl
    @enforces("tool_approval")
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.provider_executed or not isinstance(context.tool, HarnessTool):
            return None
        setting = context.tool_approval.get(call.tool_name)
        if setting is None:
            return None
        where = f"tool_approval[{call.tool_name!r}]"
        if callable(setting):
            # The host's function: its errors and wrong values are logged for the host and
            # deny with a fixed message (the model never sees the host's exception text).
            try:
                setting = setting(call, context)
                if setting is None:
                    return None
                status, reason = parse_tool_approval(setting, where=where)
            except Exception:
                logger.exception("%s: the tool_approval function failed or returned an invalid decision; "
                                 "denying call %s", where, call.tool_call_id)
                return ApprovalDecision(ApprovalStatus.DENIED,
                                        f"the approval function for {call.tool_name!r} gave no valid decision")
        else:
            status, reason = parse_tool_approval(setting, where=where)
        if status is ApprovalStatus.NOT_APPLICABLE:
            return None
        return ApprovalDecision(status, reason or f"tool_approval for {call.tool_name!r} is {status.value}")
