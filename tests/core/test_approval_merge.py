"""Approval decisions: merging, and policies called through the hook facade."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    BuiltinTool,
    PermissionMode,
    ToolCall,
    ToolKind,
    create_plugin_manager,
    define_harness_tool,
    hookimpl,
    merge_decisions,
)

A = ApprovalStatus


def d(status: ApprovalStatus, plugin: str, *, fallback: bool = False) -> ApprovalDecision:
    return ApprovalDecision(status, f"{plugin} says {status.value}", plugin=plugin, fallback=fallback)


@pytest.mark.parametrize(
    ("decisions", "winner"),
    [
        ([d(A.APPROVED, "a"), d(A.DENIED, "b"), d(A.USER_APPROVAL, "c")], "b"),
        ([d(A.APPROVED, "a"), d(A.USER_APPROVAL, "c")], "c"),
        ([d(A.NOT_APPLICABLE, "n"), d(A.APPROVED, "a")], "a"),
        ([d(A.DENIED, "mode", fallback=True), d(A.APPROVED, "rules")], "mode"),
        ([d(A.USER_APPROVAL, "mode", fallback=True), d(A.APPROVED, "rules")], "rules"),
        ([d(A.APPROVED, "mode", fallback=True), d(A.USER_APPROVAL, "rules")], "rules"),
        ([d(A.USER_APPROVAL, "mode", fallback=True), d(A.NOT_APPLICABLE, "n")], "mode"),
    ],
)
def test_merge_is_independent_of_plugin_order(decisions: list[ApprovalDecision], winner: str) -> None:
    for order in itertools.permutations(decisions):
        assert merge_decisions(order).plugin == winner


def test_merge_of_nothing_is_not_applicable() -> None:
    assert merge_decisions([None, None]).status is A.NOT_APPLICABLE
    assert merge_decisions([]).status is A.NOT_APPLICABLE


class _Policy:
    def __init__(self, decision: object) -> None:
        self.decision = decision

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> Any:
        if isinstance(self.decision, Exception):
            raise self.decision
        return self.decision


def _host_call() -> tuple[ToolCall, ApprovalContext]:
    tool = define_harness_tool(name="deploy", description="Deploy.", input={"type": "object"})
    return ToolCall(tool_call_id="1", tool_name="deploy"), ApprovalContext(harness_id="builtin", tool=tool)


def test_a_policy_that_raises_counts_as_a_denial_naming_the_plugin() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Policy(ApprovalDecision(A.APPROVED, "fine")), "lenient")
    manager.register(_Policy(RuntimeError("rules file unreadable")), "org-policy")
    decision = manager.hooks.approve_call(*_host_call())
    assert decision.status is A.DENIED
    assert decision.plugin == "org-policy"
    assert decision.reason is not None
    assert "approval policy 'org-policy' failed (RuntimeError: rules file unreadable)" in decision.reason


def test_a_policy_returning_garbage_counts_as_a_denial() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Policy("approved"), "sloppy")
    decision = manager.hooks.approve_call(*_host_call())
    assert decision.status is A.DENIED
    assert decision.plugin == "sloppy"
    assert "returned str, not an ApprovalDecision" in (decision.reason or "")


def test_the_deciding_plugin_is_filled_in() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    manager.register(_Policy(ApprovalDecision(A.USER_APPROVAL, "ask")), "asker")
    assert manager.hooks.approve_call(*_host_call()).plugin == "asker"


def test_tool_approval_core_plugin_decides_host_tools() -> None:
    manager = create_plugin_manager(load_entry_points=False, env={})
    call, context = _host_call()
    context = ApprovalContext(harness_id="builtin", tool=context.tool, tool_approval={"deploy": "user-approval"})
    decision = manager.hooks.approve_call(call, context)
    assert (decision.status, decision.plugin) == (A.USER_APPROVAL, "tool-approval")


def test_permission_mode_core_plugin_yields_to_an_explicit_approval() -> None:
    bash = BuiltinTool(name="bash", native_name="Bash", kind=ToolKind.BASH)
    call = ToolCall(tool_call_id="1", tool_name="bash", provider_executed=True, input={"command": "ls"})
    context = ApprovalContext(harness_id="claude-code", tool=bash, permission_mode=PermissionMode.ALLOW_READS)
    manager = create_plugin_manager(load_entry_points=False, env={})
    asked = manager.hooks.approve_call(call, context)
    assert (asked.status, asked.plugin, asked.fallback) == (A.USER_APPROVAL, "permission-mode", True)
    manager.register(_Policy(ApprovalDecision(A.APPROVED, "ls is safe")), "rules")
    assert manager.hooks.approve_call(call, context).plugin == "rules"
