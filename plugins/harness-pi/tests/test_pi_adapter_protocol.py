"""The adapter protocol on real pi, without HarnessAgent: control events, answers, process reuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_pi import PiRecord, PiToolResult, pi
from harness_pi.testing import alive

from harness_core import (
    AwaitingAnswers,
    BuiltinApprovalRequest,
    HostToolCall,
    HostToolSpec,
    PromptRequest,
    StartRequest,
    ToolOutput,
    TurnEnd,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]

ADD = HostToolSpec(name="add", description="Add two numbers.",
                   input_schema={"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}})
MUL = HostToolSpec(name="mul", description="Multiply two numbers.", input_schema=ADD.input_schema)


async def _until(events: Any, kind: type) -> list[object]:
    seen = []
    async for event in events:
        seen.append(event)
        if isinstance(event, kind):
            return seen
    raise AssertionError(f"no {kind.__name__} in {seen}")


async def test_control_events_answers_and_unknown_ids(workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo gated > gated.txt"}, id="b1"),
                                    ToolCallSpec("add", {"a": 2, "b": 3}, id="h1")]), "Done."]
    with ScriptedModelServer(script) as server:
        adapter = pi(model="fake-model", base_url=server.openai_base_url, cwd=workspace)
        session = await adapter.start(StartRequest(session_id="p-1", builtin_approvals=True, host_tools=[ADD]))
        try:
            turn = await session.prompt(PromptRequest(prompt="go"))
            events = turn.events()
            seen = await _until(events, BuiltinApprovalRequest)
            request = seen[-1]
            assert isinstance(request, BuiltinApprovalRequest)
            assert request.call.tool_name == "bash" and request.call.tool_call_id == "b1"
            assert isinstance(await events.__anext__(), AwaitingAnswers)
            assert not (workspace / "gated.txt").exists(), "nothing runs before the answer"
            with pytest.raises(KeyError, match="no pending approval"):
                await turn.submit_approval("approval-nope", True)
            with pytest.raises(KeyError, match="waits for a result"):
                await turn.submit_tool_result("nope", ToolOutput("x"))
            await turn.submit_approval(request.approval_id, True)
            seen = await _until(events, HostToolCall)
            host = seen[-1]
            assert isinstance(host, HostToolCall) and host.call.tool_name == "add" and host.call.input == {"a": 2, "b": 3}
            await turn.submit_tool_result("h1", ToolOutput("5"))
            rest = await _until(events, TurnEnd)
        finally:
            await session.destroy()
            await session.destroy()  # idempotent
        assert not session.temp_dir.exists()
    end = rest[-1]
    assert isinstance(end, TurnEnd) and end.finish_reason == "stop" and end.usage.output_tokens
    results = [e for e in rest if isinstance(e, PiToolResult)]
    assert [r.call_id for r in results] == ["b1"], "host results are the agent's to project"
    assert any(isinstance(e, PiRecord) for e in rest)
    assert (workspace / "gated.txt").read_text().strip() == "gated"
    assert "5" in (server.model_requests[-1].last_tool_result or "")


async def test_other_host_tools_restart_pi_on_the_same_session(workspace: Path) -> None:
    script = ["First.", ModelTurn(tool_calls=[ToolCallSpec("mul", {"a": 2, "b": 4}, id="m1")]), "Eight."]
    with ScriptedModelServer(script) as server:
        adapter = pi(model="fake-model", base_url=server.openai_base_url, cwd=workspace)
        session = await adapter.start(StartRequest(session_id="p-2", host_tools=[ADD]))
        try:
            await _until((await session.prompt(PromptRequest(prompt="one"))).events(), TurnEnd)
            first_pid = session.pi_pid
            turn = await session.prompt(PromptRequest(prompt="two", host_tools=[MUL]))
            events = turn.events()
            host = (await _until(events, HostToolCall))[-1]
            assert isinstance(host, HostToolCall) and host.call.tool_name == "mul"
            await turn.submit_tool_result("m1", ToolOutput("8"))
            await _until(events, TurnEnd)
            second_pid = session.pi_pid
        finally:
            await session.destroy()
        offered = server.model_requests[-1].tool_names
    assert first_pid is not None and second_pid is not None and first_pid != second_pid
    assert not alive(first_pid) and not alive(second_pid)
    assert "mul" in offered and "add" not in offered
    assert "one" in [m.text for m in server.model_requests[-1].messages], "the conversation survived the restart"
