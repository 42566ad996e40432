"""The built-in harness reports its pending step, so a tampered continuation state cannot
run a call other than the one shown for approval."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox, PendingRequestsTurn, TurnStateError
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


def agent_for(server: Any) -> HarnessAgent:
    return HarnessAgent(harness="builtin", include_plugin_tools=False, permission_mode="allow-reads",
                        harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                         "api_key": "test-key", "max_retries": 0})


async def test_a_swapped_command_in_the_adapter_state_is_refused(scripted_model_server, workspace: Path) -> None:
    (workspace / "victim").write_text("keep me")
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "ls"}, id="c1")]), "done"))
    agent = agent_for(server)
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    first = await agent.generate(session=session, prompt="go")
    [request] = first.approval_requests
    assert request.tool_call.input == {"command": "ls"}
    state: dict[str, Any] = json.loads(json.dumps(await session.suspend_turn()))
    tampered = copy.deepcopy(state)
    [call] = tampered["adapter"]["pending"]["calls"]
    assert call["arguments"] == {"command": "ls"}
    call["arguments"] = {"command": "rm -f victim"}
    forged = await agent.create_session(continue_from=tampered, sandbox=LocalSandbox(workspace))
    with pytest.raises(TurnStateError, match="input that differs"):
        agent.continue_stream(session=forged, approval_responses=[{"approval_id": request.approval_id,
                                                                   "approved": True}])
    await forged.destroy()
    assert (workspace / "victim").read_text() == "keep me"
    honest = await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace))
    done = await agent.continue_generate(session=honest, approval_responses=[{"approval_id": request.approval_id,
                                                                              "approved": True}])
    assert done.finish_reason == "stop" and (workspace / "victim").exists()
    await honest.destroy()


async def test_the_turn_reports_its_pending_step(scripted_model_server, workspace: Path) -> None:
    from harness_builtin import create_builtin_adapter

    from harness_core import PromptRequest, StartRequest
    from harness_core.adapter import AwaitingAnswers

    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "ls"}, id="c1")]), "done"))
    adapter = create_builtin_adapter(model="anthropic:fake-model", base_url=server.base_url, api_key="k")
    session = await adapter.start(StartRequest(session_id="s", sandbox=LocalSandbox(workspace),
                                               builtin_approvals=True))
    turn = await session.prompt(PromptRequest(prompt="go"))
    assert isinstance(turn, PendingRequestsTurn)
    async for event in turn.events():
        if isinstance(event, AwaitingAnswers):
            break
    [pending] = turn.pending_requests()
    assert (pending.kind, pending.call.tool_call_id, pending.call.tool_name, pending.call.input) == (
        "approval", "c1", "bash", {"command": "ls"})
    assert pending.approval_id
    await turn.abort()
    await session.destroy()


async def test_suspended_and_stopped_state_hold_no_secret(scripted_model_server, workspace: Path) -> None:
    import pydantic

    from harness_core import define_harness_tool

    class Who(pydantic.BaseModel):
        token: str

    api_key = "sk-BUILTIN-API-KEY-9f8e7d"
    context_secret = "CONTEXT-SECRET-1a2b3c"
    tool = define_harness_tool(name="who", description="who", input={"type": "object"},
                               execute=lambda input, ctx: "me", context_schema=Who)
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("who", {}, id="w1"), ToolCallSpec("bash", {"command": "ls"}, id="c1")]),
        "done", "again"))
    agent = HarnessAgent(harness="builtin", include_plugin_tools=False, permission_mode="allow-reads", tools=[tool],
                         tool_approval={"who": "user-approval"}, tools_context={"who": {"token": context_secret}},
                         harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                          "api_key": api_key, "max_retries": 0})
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    first = await agent.generate(session=session, prompt="go")
    assert len(first.approval_requests) == 2
    suspended = json.dumps(await session.suspend_turn())
    again = await agent.create_session(continue_from=suspended, sandbox=LocalSandbox(workspace))
    done = await agent.continue_generate(session=again, approval_responses=[
        {"approval_id": r.approval_id, "approved": True} for r in first.approval_requests])
    assert done.finish_reason == "stop"
    stopped = json.dumps(await again.stop())
    for text in (suspended, stopped):
        assert api_key not in text and context_secret not in text
