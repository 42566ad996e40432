"""An approval policy can never fail open: a string status is a status, an invalid one a
denial naming the policy, and a denial without a reason still says who denied."""

from __future__ import annotations

from typing import Any

import pytest

from harness_core import ApprovalDecision, ApprovalStatus, create_plugin_manager, hookimpl
from harness_core.approval import ApprovalContext, merge_decisions
from harness_core.parts.models import ToolOutputDeniedPart
from harness_core.testing import CallHost, EchoResults, ScriptedAdapter
from harness_core.tools.definition import ToolCall, define_harness_tool

pytestmark = pytest.mark.anyio


class StatusPolicy:
    def __init__(self, status: Any, reason: str | None = "policy says no") -> None:
        self.status = status
        self.reason = reason

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
        return ApprovalDecision(status=self.status, reason=self.reason)


def test_a_string_status_is_converted() -> None:
    assert ApprovalDecision("denied").status is ApprovalStatus.DENIED
    merged = merge_decisions([ApprovalDecision("approved"), ApprovalDecision("denied", "no")])
    assert merged.status is ApprovalStatus.DENIED and merged.reason == "no"


def test_an_invalid_status_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="'nope' is not an approval status"):
        ApprovalDecision("nope")


@pytest.mark.parametrize("status", ["denied", "nope", 3])
async def test_a_policy_returning_a_bad_or_string_denial_never_runs_the_tool(status: Any) -> None:
    ran: list[str] = []
    note = define_harness_tool(
        name="note", description="Record a note.", input={"type": "object", "properties": {}},
        execute=lambda input, ctx: ran.append("ran") or "noted",
    )
    runtime = ScriptedAdapter([[[CallHost("note", {})], [EchoResults("Saw:")]]])
    agent = runtime.agent(tools=[note], plugins=[StatusPolicy(status)])
    result = await agent.run("note it")
    assert ran == []
    [denied] = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.reason is not None
    if status != "denied":
        assert "StatusPolicy" in denied.reason or "failed" in denied.reason


async def test_a_denial_without_a_reason_names_the_policy() -> None:
    manager = create_plugin_manager(load_entry_points=False, plugins=[StatusPolicy(ApprovalStatus.DENIED, None)])
    decision = manager.hooks.approve_call(ToolCall(tool_call_id="c1", tool_name="x"), ApprovalContext(harness_id="h"))
    assert decision.status is ApprovalStatus.DENIED
    assert decision.reason is not None and "denied by approval policy" in decision.reason
    assert decision.plugin in decision.reason
