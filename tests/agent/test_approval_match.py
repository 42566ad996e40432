"""An approval runs exactly the call that was shown: tampered continuation state is refused
against what the runtime holds pending, and the approval policies run again on approval."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import (
    ApprovalContext,
    ApprovalDecision,
    ApprovalStatus,
    HarnessAgent,
    PendingRequest,
    PendingRequestsTurn,
    ToolCall,
    TurnStateError,
    define_harness_tool,
    hookimpl,
)
from harness_core.parts.models import ToolApprovalResponsePart, ToolOutputDeniedPart, ToolResultPart
from harness_core.testing import CallBuiltin, CallHost, EchoResults, ScriptedAdapter

pytestmark = pytest.mark.anyio


class DenyShellPolicy:
    @hookimpl
    def harness_approve_call(self, call: ToolCall, context: ApprovalContext) -> ApprovalDecision | None:
        if call.tool_name == "bash":
            return ApprovalDecision(ApprovalStatus.DENIED, "no shell today")
        return None


def recorder(name: str, ran: list[str]) -> Any:
    def execute(input: Any, ctx: Any) -> str:
        ran.append(f"{name}:{json.dumps(input, sort_keys=True)}")
        return "ok"

    return define_harness_tool(name=name, description=name, input={"type": "object"}, execute=execute)


async def suspended(adapter: ScriptedAdapter, agent: HarnessAgent) -> dict[str, Any]:
    session = await agent.create_session(session_id="s1")
    first = await agent.generate(session=session, prompt="go")
    assert first.finish_reason == "awaiting-approval"
    state: dict[str, Any] = json.loads(json.dumps(await session.suspend_turn()))
    return state


def adapter_calls(state: dict[str, Any]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = state["adapter"]["turn"]["calls"]
    return calls


async def test_scripted_turn_reports_what_it_holds_pending(workspace: Path) -> None:
    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "ls"}, id="b1"), CallHost("rec", {"a": 1}, id="h1")],
                                [EchoResults()]]])
    ran: list[str] = []
    agent = adapter.agent(tools=[recorder("rec", ran)], tool_approval={"rec": "user-approval"},
                          permission_mode="allow-reads")
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    turn = adapter.sessions[-1].current
    assert isinstance(turn, PendingRequestsTurn)
    requests = turn.pending_requests()
    assert [(r.kind, r.approval_id, r.call.tool_call_id, r.call.input) for r in requests] == [
        ("approval", "approval-b1", "b1", {"command": "ls"}), ("tool-result", None, "h1", {"a": 1})]
    assert all(isinstance(r, PendingRequest) for r in requests)


async def test_a_builtin_input_swapped_in_the_adapter_state_is_refused(workspace: Path) -> None:
    (workspace / "victim").write_text("keep me")
    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "ls"}, id="b1")], [EchoResults()]]], workspace=workspace)
    agent = adapter.agent(permission_mode="allow-reads")
    state = await suspended(adapter, agent)
    assert state["pending_approvals"]["approval-b1"]["input"] == {"command": "ls"}
    tampered = copy.deepcopy(state)
    [call] = adapter_calls(tampered)
    assert call["input"] == {"command": "ls"}
    call["input"] = {"command": "rm -f victim"}
    session = await agent.create_session(continue_from=tampered)
    with pytest.raises(TurnStateError, match="input that differs"):
        agent.continue_stream(session=session, approval_responses=[{"approval_id": "approval-b1", "approved": True}])
    assert (workspace / "victim").read_text() == "keep me"
    assert adapter.approvals == {}
    # The untampered state still continues and runs exactly what was shown.
    honest = await agent.create_session(continue_from=state)
    done = await agent.continue_generate(session=honest, approval_responses=[
        {"approval_id": "approval-b1", "approved": True}])
    assert done.finish_reason == "stop" and (workspace / "victim").exists()


async def test_host_call_tampering_is_refused_field_by_field(workspace: Path) -> None:
    ran: list[str] = []
    adapter = ScriptedAdapter([[[CallHost("rec", {"path": "a.txt"}, id="h1")], [EchoResults()]]])
    agent = adapter.agent(tools=[recorder("rec", ran), recorder("wipe", ran)], tool_approval={"rec": "user-approval"})
    state = await suspended(adapter, agent)

    def runtime_input(s: dict[str, Any]) -> None:
        adapter_calls(s)[0]["input"] = {"path": "/etc/passwd"}

    def core_name(s: dict[str, Any]) -> None:
        s["pending_approvals"]["approval-h1"]["tool_name"] = "wipe"

    def core_call_id(s: dict[str, Any]) -> None:
        s["pending_approvals"]["approval-h1"]["tool_call_id"] = "h2"

    for tamper, match in [(runtime_input, "input that differs"), (core_name, "tool 'rec' instead of 'wipe'"),
                          (core_call_id, "not pending in harness")]:
        tampered = copy.deepcopy(state)
        tamper(tampered)
        session = await agent.create_session(continue_from=tampered)
        with pytest.raises(TurnStateError, match=match):
            agent.continue_stream(session=session, approval_responses=[{"approval_id": "approval-h1", "approved": True}])
        await session.destroy()
    assert ran == [] and adapter.tool_results == {}


async def test_a_tool_name_swapped_to_a_denied_tool_is_denied_after_approval(workspace: Path) -> None:
    ran: list[str] = []
    adapter = ScriptedAdapter([[[CallHost("rec", {"x": 1}, id="h1")], [EchoResults()]]])
    agent = adapter.agent(tools=[recorder("rec", ran), recorder("wipe", ran)],
                          tool_approval={"rec": "user-approval", "wipe": "denied"})
    state = await suspended(adapter, agent)
    # A consistent forgery: both the core's record and the runtime's say "wipe".
    state["pending_approvals"]["approval-h1"]["tool_name"] = "wipe"
    adapter_calls(state)[0]["tool"] = "wipe"
    adapter_calls(state)[0]["native"] = "wipe"
    session = await agent.create_session(continue_from=state)
    done = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-h1", "approved": True}])
    assert ran == []
    [response] = [p for p in done.parts if isinstance(p, ToolApprovalResponsePart)]
    assert response.approved is False and "approval policies" in (response.reason or "")
    [denied] = [p for p in done.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "wipe"
    assert not [p for p in done.parts if isinstance(p, ToolResultPart)]


async def test_an_approval_never_overrides_a_denying_policy_on_a_builtin(workspace: Path) -> None:
    (workspace / "victim").write_text("keep me")
    adapter = ScriptedAdapter([[[CallBuiltin("bash", {"command": "rm -f victim"}, id="b1")], [EchoResults()]]], workspace=workspace)
    asking = adapter.agent(permission_mode="allow-reads")
    state = await suspended(adapter, asking)
    # The policy changed since the request was shown: bash is now denied.
    strict = adapter.agent(permission_mode="allow-reads", plugins=[DenyShellPolicy()])
    session = await strict.create_session(continue_from=state)
    done = await strict.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-b1", "approved": True}])
    assert (workspace / "victim").exists()
    assert adapter.approvals["approval-b1"][0][0] is False
    [denied] = [p for p in done.parts if isinstance(p, ToolOutputDeniedPart)]
    assert "no shell today" in (denied.reason or "")


async def test_a_person_still_answers_ask(workspace: Path) -> None:
    ran: list[str] = []
    adapter = ScriptedAdapter([[[CallHost("rec", {"x": 1}, id="h1")], [EchoResults()]]])
    agent = adapter.agent(tools=[recorder("rec", ran)], tool_approval={"rec": "user-approval"})
    session = await agent.create_session()
    await agent.generate(session=session, prompt="go")
    done = await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": "approval-h1", "approved": True}])
    assert done.finish_reason == "stop" and ran == ['rec:{"x": 1}']
