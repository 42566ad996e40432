"""Approving one of two pending built-in calls runs it at once (issue 16, item 3), as a host
tool or Claude Code does: its result is in the continued slice, and the other call stays
pending."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


def agent_for(server: Any) -> HarnessAgent:
    return HarnessAgent(harness="builtin", include_plugin_tools=False, permission_mode="allow-reads",
                        harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                         "api_key": "test-key", "max_retries": 0})


async def test_approving_one_of_two_builtin_calls_runs_it_now(scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one > one.txt"}, id="c1"),
                              ToolCallSpec("bash", {"command": "echo two > two.txt"}, id="c2")]),
        "done"))
    agent = agent_for(server)
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    first = await agent.generate(session=session, prompt="go")
    assert first.finish_reason == "awaiting-approval"
    by_call = {r.tool_call.tool_call_id: r for r in first.approval_requests}
    assert sorted(by_call) == ["c1", "c2"]

    second = await agent.continue_stream(session=session, approval_responses=[
        {"approval_id": by_call["c2"].approval_id, "approved": True}]).consume()
    # The approved call ran now, without waiting for the other decision.
    assert (workspace / "two.txt").read_text().strip() == "two"
    assert not (workspace / "one.txt").exists()
    results = [p for p in second.parts if p.type == "tool-result" and not p.dynamic]
    assert [p.tool_call_id for p in results] == ["c2"]
    assert second.finish_reason == "awaiting-approval"
    assert session.state == "awaiting-approval"

    third = await agent.continue_stream(session=session, approval_responses=[
        {"approval_id": by_call["c1"].approval_id, "approved": False, "reason": "no"}]).consume()
    assert not (workspace / "one.txt").exists()
    assert third.finish_reason == "stop"
    assert [p.tool_call_id for p in third.parts if p.type == "tool-output-denied"] == ["c1"]
    # c2 ran once: its result is not repeated.
    assert not [p for p in third.parts if p.type == "tool-result" and p.tool_call_id == "c2"]
    # The model got both results, in call order.
    sent = json.dumps(server.requests[-1].body)
    assert "Execution denied: no" in sent
    await session.destroy()


async def test_a_partly_answered_step_continues_in_another_session(scripted_model_server, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one >> log.txt"}, id="c1"),
                              ToolCallSpec("bash", {"command": "echo two >> log.txt"}, id="c2")]),
        "done"))
    agent = agent_for(server)
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    first = await agent.generate(session=session, prompt="go")
    by_call = {r.tool_call.tool_call_id: r for r in first.approval_requests}
    await agent.continue_generate(session=session, approval_responses=[
        {"approval_id": by_call["c1"].approval_id, "approved": True}])
    assert (workspace / "log.txt").read_text() == "one\n"
    state = json.loads(json.dumps(await session.suspend_turn()))
    later = await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace))
    done = await agent.continue_generate(session=later, approval_responses=[
        {"approval_id": by_call["c2"].approval_id, "approved": True}])
    assert done.finish_reason == "stop"
    # c1 ran once, before the suspension; c2 once, after it.
    assert (workspace / "log.txt").read_text() == "one\ntwo\n"
    assert [p.tool_call_id for p in done.parts if p.type == "tool-result" and not p.dynamic] == ["c2"]
    await later.destroy()
