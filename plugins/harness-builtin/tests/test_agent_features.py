"""Structured output, stop conditions and plan mode on the built-in harness, over a scripted
HTTP model server (both wire formats)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from harness_core import (
    HarnessAgent,
    LocalSandbox,
    Output,
    TextDeltaPart,
    ToolCallPart,
    TurnState,
    step_count_is,
)
from harness_core.testing import ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio


class Plan(pydantic.BaseModel):
    files: list[str]
    risky: bool


def agent_for(server: Any, wire: str, **options: Any) -> HarnessAgent:
    if wire == "anthropic":
        harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url}
    else:
        harness_options = {"model": "openai:fake-model", "base_url": server.openai_base_url}
    harness_options.update(api_key="test-key", max_retries=0)
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_final_answer_tool_gives_the_output(scripted_model_server: Any, workspace: Path, wire: str) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": "a.py"})]),
        ModelTurn(tool_calls=[ToolCallSpec("final_answer", {"files": ["a.py"], "risky": False})]),
    ))
    agent = agent_for(server, wire, output=Plan)
    assert agent.capabilities.supports("structured-output")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        stream = agent.stream(session=session, prompt="Which files?")
        partials = [p async for p in stream.partial_output_stream]
        result = await stream.consume()
    check_stream_shape(result.parts)
    assert result.output == Plan(files=["a.py"], risky=False)
    assert partials[-1] == {"files": ["a.py"], "risky": False}
    assert json.loads(result.text) == {"files": ["a.py"], "risky": False}
    assert [c.tool_name for c in result.all_tool_calls] == ["read"]  # the answer is text, not a call
    requests = server.model_requests
    offered = requests[0].tools
    final = next(t for t in offered if t.name == "final_answer")
    assert final.input_schema is not None and final.input_schema["required"] == ["files", "risky"]
    assert "final_answer" in requests[0].system


async def test_invalid_final_answer_is_repaired_by_the_harness(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("final_answer", {"files": "a.py"})]),
        ModelTurn(tool_calls=[ToolCallSpec("final_answer", {"files": ["a.py"], "risky": True})]),
    ))
    agent = agent_for(server, "anthropic", output=Plan)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Which files?")
    assert result.output == Plan(files=["a.py"], risky=True)
    assert len(server.model_requests) == 2
    assert "final_answer" in (server.model_requests[1].last_user_text or "")


async def test_text_answer_gets_a_core_repair_turn(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        "I think a.py.",
        '{"files": ["a.py"], "risky": false}',
    ))
    agent = agent_for(server, "openai", output=Output.of(Plan, repair_turns=1))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Which files?")
    assert result.output == Plan(files=["a.py"], risky=False)
    assert "did not match" in (server.model_requests[1].last_user_text or "")


async def test_stop_when_suspends_between_steps(scripted_model_server: Any, workspace: Path) -> None:
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one > one.txt"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo two > two.txt"})]),
        "Both written.",
    ))
    agent = agent_for(server, "anthropic", stop_when=step_count_is(1))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="write files")
        check_stream_shape(first.parts)
        assert first.finish_reason == "tool-calls" and session.state is TurnState.STOPPED
        assert (workspace / "one.txt").exists()
        assert len(server.model_requests) == 1  # the loop waits: the second step has not started
        rest = await agent.continue_generate(session=session, stop_when=[])
        check_stream_shape(rest.parts)
    assert rest.finish_reason == "stop" and rest.text == "Both written."
    assert (workspace / "two.txt").exists()


async def test_plan_mode_offers_read_only_tools_and_switches_back(scripted_model_server: Any,
                                                                  workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": "a.py"})]),
        "1. Change x in a.py.",
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": "a.py", "content": "x = 2\n"})]),
        "Done.",
    ))
    agent = agent_for(server, "anthropic")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        plan = await agent.generate(session=session, prompt="plan it", mode="plan")
        assert plan.text == "1. Change x in a.py."
        assert (workspace / "a.py").read_text() == "x = 1\n"
        planned = server.model_requests[0]
        assert "write" not in planned.tool_names and "bash" not in planned.tool_names
        assert "read" in planned.tool_names and "plan mode" in planned.system
        done = await agent.generate(session=session, prompt="do it")
        assert done.text == "Done."
    assert (workspace / "a.py").read_text() == "x = 2\n"
    assert "write" in server.model_requests[2].tool_names and "plan mode" not in server.model_requests[2].system
    assert [p.tool_name for p in plan.parts if isinstance(p, ToolCallPart)] == ["read"]
    assert any(isinstance(p, TextDeltaPart) for p in plan.parts)


async def test_structured_output_survives_suspend_and_continue(scripted_model_server: Any, workspace: Path) -> None:
    from harness_core import OutputValidationError, define_harness_tool

    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("ping", {})]),
        ModelTurn(tool_calls=[ToolCallSpec("final_answer", {"files": ["a.py"], "risky": False}, unoffered=True)]),
        "Done.",
    ))
    ping = define_harness_tool(name="ping", description="p", input={"type": "object"}, execute=lambda i, c: "pong")
    agent = agent_for(server, "anthropic", tools=[ping], tool_approval={"ping": "user-approval"})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="Plan", output=Plan)
        state = json.loads(json.dumps(await session.suspend_turn()))
    [request] = first.approval_requests
    async with await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
        second = await agent.continue_generate(session=resumed, output=Plan, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    assert state["output"]["json_schema"]["required"] == ["files", "risky"]
    assert "final_answer" in server.model_requests[1].tool_names
    try:
        output = second.output
    except OutputValidationError:
        return  # at least not silent
    assert output == Plan(files=["a.py"], risky=False)


async def test_output_from_suspended_state_without_the_model(scripted_model_server: Any, workspace: Path) -> None:
    # the state carries the JSON Schema: without output= the continued answer is validated into
    # a dict; an agent whose output= has that schema gives its model; another schema is refused
    from harness_core import HarnessConfigurationError, define_harness_tool

    def server_for(answer: dict[str, Any]) -> Any:
        return scripted_model_server(Script.of(ModelTurn(tool_calls=[ToolCallSpec("ping", {})]),
                                               ModelTurn(tool_calls=[ToolCallSpec("final_answer", answer)])))

    ping = define_harness_tool(name="ping", description="p", input={"type": "object"}, execute=lambda i, c: "pong")

    async def suspended(agent: HarnessAgent) -> tuple[Any, str]:
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="Plan", output=Plan)
            return json.loads(json.dumps(await session.suspend_turn())), first.approval_requests[0].approval_id

    plain = agent_for(server_for({"files": ["a.py"], "risky": True}), "anthropic", tools=[ping],
                      tool_approval={"ping": "user-approval"})
    state, approval_id = await suspended(plain)
    answer = [{"approval_id": approval_id, "approved": True}]
    async with await plain.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
        with pytest.raises(HarnessConfigurationError, match="turn's JSON Schema"):
            plain.continue_stream(session=resumed, approval_responses=answer, output={"type": "object"})
        second = await plain.continue_generate(session=resumed, approval_responses=answer)
    assert second.output == {"files": ["a.py"], "risky": True}
    typed = agent_for(server_for({"files": ["b.py"], "risky": False}), "anthropic", tools=[ping],
                      tool_approval={"ping": "user-approval"}, output=Plan)
    state, approval_id = await suspended(typed)
    async with await typed.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
        third = await typed.continue_generate(session=resumed, approval_responses=[
            {"approval_id": approval_id, "approved": True}])
    assert third.output == Plan(files=["b.py"], risky=False)  # the agent's model, same schema


async def test_plan_mode_survives_suspend_and_continue(scripted_model_server: Any, workspace: Path) -> None:
    # fail closed: a plan-mode turn continued in another session stays read-only (it used to
    # offer write/edit/bash again, and a write ran)
    from harness_core import define_harness_tool

    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("ping", {})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": "x.txt", "content": "hi"}, unoffered=True)]),
        "Planned.",
    ))
    ping = define_harness_tool(name="ping", description="p", input={"type": "object"}, read_only=True,
                               execute=lambda i, c: "pong")
    agent = agent_for(server, "anthropic", tools=[ping], tool_approval={"ping": "user-approval"},
                      permission_mode="allow-all")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="Plan", mode="plan")
        state = json.loads(json.dumps(await session.suspend_turn()))
    [request] = first.approval_requests
    async with await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
        second = await agent.continue_generate(session=resumed, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    assert second.finish_reason == "stop"
    assert set(server.model_requests[1].tool_names) == {"read", "grep", "glob", "ls", "ping"}
    assert not (workspace / "x.txt").exists()
