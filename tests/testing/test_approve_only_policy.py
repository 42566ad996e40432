"""ApproveOnlyPolicy: the adversarial approval tests' host policy denies every built-in call
but the ones it was told to approve, and has no opinion on host-tool calls."""

from __future__ import annotations

from harness_core import ApprovalStatus, ToolCall
from harness_core.testing.conformance import ApproveOnlyPolicy


def _builtin(call_id: str, tool: str, **tool_input: object) -> ToolCall:
    return ToolCall(tool_call_id=call_id, tool_name=tool, input=dict(tool_input), provider_executed=True)


def test_it_approves_only_the_named_bash_command_and_records_what_it_was_asked() -> None:
    policy = ApproveOnlyPolicy.bash("echo ok")
    decisions = [policy.harness_approve_call(call, None) for call in (  # type: ignore[arg-type]
        _builtin("1", "bash", command="echo ok"), _builtin("2", "bash", command="echo ok; rm x"),
        _builtin("3", "write", command="echo ok"))]
    assert [d.status if d else None for d in decisions] == [
        ApprovalStatus.APPROVED, ApprovalStatus.DENIED, ApprovalStatus.DENIED]
    assert decisions[1] is not None and decisions[1].reason == ApproveOnlyPolicy.REASON
    assert [c.tool_call_id for c in policy.seen] == ["1", "2", "3"]


def test_without_a_predicate_it_denies_every_builtin_and_ignores_host_calls() -> None:
    policy = ApproveOnlyPolicy()
    host = ToolCall(tool_call_id="h", tool_name="lookup", input={}, provider_executed=False)
    assert policy.harness_approve_call(host, None) is None  # type: ignore[arg-type]
    denied = policy.harness_approve_call(_builtin("b", "bash", command="true"), None)  # type: ignore[arg-type]
    assert denied is not None and denied.status is ApprovalStatus.DENIED
    assert [c.tool_call_id for c in policy.seen] == ["b"]
