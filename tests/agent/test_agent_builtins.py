"""Built-in tools: permission modes, approval policies, native and approval-based filtering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    BuiltinFilter,
    BuiltinFilterMode,
    FilterRequest,
    ToolCall,
    TurnState,
    hookimpl,
)
from harness_core.parts.models import (
    ToolCallPart,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)
from harness_core.testing import CallBuiltin, EchoResults, ScriptedAdapter


def script(*calls: CallBuiltin) -> list[Any]:
    return [[list(calls), [EchoResults("saw")]]]


WRITE = CallBuiltin("write", {"file_path": "w.txt", "content": "W"}, id="w")
BASH = CallBuiltin("bash", {"command": "echo B > b.txt"}, id="b")
READ = CallBuiltin("read", {"file_path": "r.txt"}, id="r")


class AllowShellPolicy:
    """An explicit allow for shell commands (pre-approves what the mode would ask)."""

    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.tool_name == "bash":
            return ApprovalDecision(ApprovalStatus.APPROVED, "shell allowed by test policy")
        return None


class DenyWritesPolicy:
    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.provider_executed and context.resources is not None and "w.txt" in context.resources.paths:
            return ApprovalDecision(ApprovalStatus.DENIED, "w.txt is protected")
        return None


@pytest.mark.anyio
async def test_allow_all_runs_builtins_without_approvals(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(WRITE, BASH), workspace=workspace)
    agent = adapter.agent()
    session = await agent.create_session()
    result = await agent.generate(session=session, prompt="go")
    assert adapter.starts[0].builtin_approvals is False and not session.builtin_approvals
    assert adapter.approvals == {} and result.finish_reason == "stop"
    assert (workspace / "w.txt").read_text() == "W" and (workspace / "b.txt").read_text() == "B\n"


@pytest.mark.parametrize(("mode", "asked"), [("allow-edits", ["bash"]), ("allow-reads", ["write", "bash"])])
@pytest.mark.anyio
async def test_permission_modes_ask_by_kind(workspace: Path, mode: str, asked: list[str]) -> None:
    (workspace / "r.txt").write_text("R")
    adapter = ScriptedAdapter(script(READ, WRITE, BASH), workspace=workspace)
    agent = adapter.agent(permission_mode=mode)
    session = await agent.create_session()
    first = await agent.generate(session=session, prompt="go")
    assert adapter.starts[0].builtin_approvals is True
    assert first.finish_reason == "awaiting-approval" and session.state is TurnState.AWAITING_APPROVAL
    assert [r.tool_call.tool_name for r in first.approval_requests] == asked
    for request in first.approval_requests:
        assert request.tool_call.provider_executed
        native = agent.builtins[request.tool_call.tool_name].native_name
        assert request.tool_call.provider_metadata == {"scripted": {"nativeToolName": native}}
    answers = [{"approval_id": r.approval_id, "approved": True} for r in first.approval_requests]
    done = await agent.continue_generate(session=session, approval_responses=answers)
    assert done.finish_reason == "stop"
    assert (workspace / "w.txt").exists() and (workspace / "b.txt").exists()
    assert sorted(adapter.executed) == ["b", "r", "w"]


@pytest.mark.anyio
async def test_a_user_denial_of_a_builtin_reaches_the_runtime_and_nothing_runs(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(BASH), workspace=workspace)
    agent = adapter.agent(permission_mode="allow-edits")
    session = await agent.create_session()
    (request,) = (await agent.generate(session=session, prompt="go")).approval_requests
    done = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": request.approval_id, "approved": False, "reason": "no shell today"}])
    (denied,) = [p for p in done.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.provider_executed and denied.reason == "no shell today"
    assert not [p for p in done.parts if isinstance(p, ToolErrorPart)]  # the runtime's echo is not a 2nd result
    assert adapter.approvals[request.approval_id] == [(False, "no shell today")]
    assert not (workspace / "b.txt").exists() and adapter.executed == []
    assert "no shell today" in done.text


@pytest.mark.anyio
async def test_policies_deny_without_approval_parts_and_explicit_allows_preapprove(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(WRITE, BASH), workspace=workspace)
    agent = adapter.agent(permission_mode="allow-reads", plugins=[DenyWritesPolicy(), AllowShellPolicy()])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    assert not result.approval_requests and result.finish_reason == "stop"
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert (denied.tool_name, denied.reason) == ("write", "w.txt is protected")
    assert not (workspace / "w.txt").exists()
    assert (workspace / "b.txt").read_text() == "B\n"  # the mode would have asked; the policy allowed


@pytest.mark.anyio
async def test_an_extra_approval_policy_turns_builtin_approvals_on(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(WRITE), workspace=workspace)
    agent = adapter.agent(plugins=[DenyWritesPolicy()])
    session = await agent.create_session()
    assert session.builtin_approvals and adapter.starts[0].builtin_approvals
    await agent.generate(session=session, prompt="go")
    assert not (workspace / "w.txt").exists()


@pytest.mark.anyio
async def test_filtering_through_approvals_denies_silently(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(BASH, WRITE), workspace=workspace)
    agent = adapter.agent(inactive_tools=["bash"])
    session = await agent.create_session()
    assert adapter.starts[0].builtin_filter is None and adapter.starts[0].builtin_approvals
    result = await agent.generate(session=session, prompt="go")
    assert not result.approval_requests
    assert not [p for p in result.parts if p.type in ("tool-approval-request", "tool-approval-response")]
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "bash"
    assert denied.reason == "built-in tool 'bash' is inactive (listed in inactive_tools) and may not be called"
    assert not (workspace / "b.txt").exists() and (workspace / "w.txt").exists()


@pytest.mark.anyio
async def test_an_allowlist_denies_undeclared_natives_too(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(CallBuiltin("Telepathy", {}, id="t", output="read minds"), READ),
                              workspace=workspace)
    (workspace / "r.txt").write_text("R")
    agent = adapter.agent(active_tools=["read"])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    call = next(p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_call_id == "t")
    assert call.dynamic and call.provider_executed and call.tool_name == "Telepathy"
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_call_id == "t" and "not in active_tools" in (denied.reason or "")
    assert adapter.executed == ["r"]


@pytest.mark.anyio
async def test_native_filtering_passes_the_filter_at_start(workspace: Path) -> None:
    adapter = ScriptedAdapter(script(BASH), workspace=workspace, supports_builtin_filtering=True)
    agent = adapter.agent(inactive_tools=["bash"])
    session = await agent.create_session()
    start = adapter.starts[0]
    assert start.builtin_filter == BuiltinFilter(BuiltinFilterMode.INACTIVE, {"bash"})
    assert start.builtin_approvals is False and session.builtin_filter == start.builtin_filter
    result = await agent.generate(session=session, prompt="go")
    (refused,) = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert refused.error == "No such tool available: Bash"
    assert not (workspace / "b.txt").exists()

    allow = ScriptedAdapter(script(READ), workspace=workspace, supports_builtin_filtering=True)
    await allow.agent(active_tools=["read", "glob"]).create_session()
    assert allow.starts[0].builtin_filter == BuiltinFilter(BuiltinFilterMode.ACTIVE, {"read", "glob"})


@pytest.mark.anyio
async def test_filter_policies_reach_builtins(workspace: Path) -> None:
    class NoShell:
        @hookimpl
        def harness_filter_tools(self, tools: Any, request: FilterRequest) -> list[str]:
            return ["bash"]

    native = ScriptedAdapter(script(BASH), workspace=workspace, supports_builtin_filtering=True)
    await native.agent(plugins=[NoShell()]).create_session()
    assert native.starts[0].builtin_filter == BuiltinFilter(BuiltinFilterMode.INACTIVE, {"bash"})

    by_approval = ScriptedAdapter(script(BASH), workspace=workspace)
    agent = by_approval.agent(plugins=[NoShell()])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "removed by a harness_filter_tools policy" in (denied.reason or "")

    from harness_core import HarnessConfigurationError

    bare = ScriptedAdapter(script(BASH), supports_builtin_approvals=False)
    with pytest.raises(HarnessConfigurationError, match="a harness_filter_tools policy removed built-ins bash"):
        await bare.agent(plugins=[NoShell()]).create_session()


@pytest.mark.anyio
async def test_a_failing_policy_denies_for_safety(workspace: Path) -> None:
    class Broken:
        @hookimpl
        def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision:
            raise RuntimeError("policy bug")

    adapter = ScriptedAdapter(script(BASH), workspace=workspace)
    agent = adapter.agent(plugins=[Broken()])
    result = await agent.generate(session=await agent.create_session(), prompt="go")
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "failed (RuntimeError: policy bug); denied for safety" in (denied.reason or "")
    assert not (workspace / "b.txt").exists()
    assert not [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == "b"]
