"""Structured output, stop conditions and plan mode on the real Claude Code CLI (scripted model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import (
    HarnessAgent,
    LocalSandbox,
    ToolCallPart,
    ToolOutputDeniedPart,
    TurnState,
    has_tool_call,
)
from harness_core.testing import ModelTurn, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]


class Weather(pydantic.BaseModel):
    city: str
    celsius: int


def _agent(settings: dict[str, Any], **kwargs: Any) -> HarnessAgent:
    settings = dict(settings)
    settings.pop("cwd", None)
    return HarnessAgent(harness=claude_code(**settings), include_plugin_tools=False, **kwargs)


async def test_json_schema_answer_becomes_the_output(scripted_model_server: Any, adapter_settings: Any,
                                                     workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("StructuredOutput", {"city": "Paris", "celsius": 12})]),
    ])
    agent = _agent(adapter_settings(server), output=Weather)
    assert agent.capabilities.supports("structured-output")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        stream = agent.stream(session=session, prompt="Weather in Paris?")
        partials = [p async for p in stream.partial_output_stream]
        result = await stream.consume()
    check_stream_shape(result.parts)
    assert result.output == Weather(city="Paris", celsius=12)
    assert partials[-1] == {"city": "Paris", "celsius": 12} and len(partials) >= 2
    assert not [p for p in result.parts if isinstance(p, ToolCallPart)]  # the answer is text, not a call
    [request] = server.model_requests
    offered = next(t for t in request.tools if t.name == "StructuredOutput")
    assert offered.input_schema is not None and offered.input_schema["required"] == ["city", "celsius"]


async def test_output_per_call_under_approvals(scripted_model_server: Any, adapter_settings: Any,
                                               workspace: Path) -> None:
    server = scripted_model_server([
        "plain answer",
        ModelTurn(tool_calls=[ToolCallSpec("StructuredOutput", {"city": "Oslo", "celsius": -3})]),
    ])
    agent = _agent(adapter_settings(server), permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        plain = await agent.generate(session=session, prompt="hi")
        assert plain.output is None and plain.text == "plain answer"
        result = await agent.generate(session=session, prompt="Weather in Oslo?", output=Weather)
    assert result.finish_reason == "stop" and not result.approval_requests
    assert result.output == Weather(city="Oslo", celsius=-3)
    assert "StructuredOutput" not in server.model_requests[0].tool_names


async def test_stop_when_suspends_and_continues(scripted_model_server: Any, adapter_settings: Any,
                                                workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo one > one.txt"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo two > two.txt"})]),
        "Both written.",
    ])
    agent = _agent(adapter_settings(server), stop_when=has_tool_call("bash"))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="write two files")
        check_stream_shape(first.parts)
        assert first.finish_reason == "tool-calls" and session.state is TurnState.STOPPED
        assert [c.tool_name for c in first.all_tool_calls] == ["bash"]
        rest = await agent.continue_generate(session=session, stop_when=[])
        check_stream_shape(rest.parts)
        assert rest.finish_reason == "stop" and rest.text == "Both written."
        assert session.state is TurnState.IDLE
    assert (workspace / "one.txt").exists() and (workspace / "two.txt").exists()
    assert not session.contract_violations


@pytest.mark.parametrize("permission_mode", ["allow-all", "allow-reads"])
async def test_plan_mode_refuses_edits_then_default_mode_edits(scripted_model_server: Any, adapter_settings: Any,
                                                               workspace: Path, permission_mode: str) -> None:
    (workspace / "a.txt").write_text("one\n")
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": str(workspace / "a.txt")})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "a.txt"), "content": "two\n"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "touch made.txt"})]),
        "1. Replace one with two in a.txt.",
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "a.txt"), "content": "two\n"})]),
        "Done.",
    ])
    agent = _agent(adapter_settings(server), permission_mode=permission_mode)
    assert agent.capabilities.supports("plan-mode")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        plan = await agent.generate(session=session, prompt="plan the change", mode="plan")
        check_stream_shape(plan.parts)
        assert plan.finish_reason == "stop" and plan.text == "1. Replace one with two in a.txt."
        denied = [p for p in plan.parts if isinstance(p, ToolOutputDeniedPart)]
        assert [d.tool_name for d in denied] == ["write", "bash"]
        assert all("Plan mode" in (d.reason or "") for d in denied)
        assert "one" in str([r.output for r in plan.all_tool_results])  # the read ran
        assert (workspace / "a.txt").read_text() == "one\n" and not (workspace / "made.txt").exists()
        done = await agent.generate(session=session, prompt="now do it")
        if done.finish_reason == "awaiting-approval":
            [request] = done.approval_requests
            done = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
        assert done.text == "Done."
    assert (workspace / "a.txt").read_text() == "two\n"


async def test_plan_mode_runs_a_read_only_host_tool(scripted_model_server: Any, adapter_settings: Any,
                                                    workspace: Path) -> None:
    from harness_core import ToolResultPart, define_harness_tool

    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__ping", {})]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__poke", {}, unoffered=True)]),
        "Planned.",
    ])
    ran: list[str] = []
    ping = define_harness_tool(name="ping", description="p", input={"type": "object"}, read_only=True,
                               execute=lambda i, c: "pong")
    poke = define_harness_tool(name="poke", description="changes things", input={"type": "object"},
                               execute=lambda i, c: ran.append("poke") or "poked")
    agent = _agent(adapter_settings(server), tools=[ping, poke], tool_approval={"ping": "approved", "poke": "approved"},
                   permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Plan", mode="plan")
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Planned."
    assert [p.output for p in result.parts if isinstance(p, ToolResultPart)] == ["pong"]
    assert not ran  # the host tool that is not read-only is not offered in plan mode, and never runs
    offered = server.model_requests[0].tool_names
    assert "mcp__harness__ping" in offered and "mcp__harness__poke" not in offered
    assert not session.contract_violations


async def test_plan_mode_runs_a_read_only_mcp_tool_and_refuses_a_writing_one(scripted_model_server: Any,
                                                                             adapter_settings: Any,
                                                                             workspace: Path) -> None:
    # external MCP tools follow the same rule: readOnlyHint runs, anything else is refused
    from harness_core import ToolResultPart
    from harness_core.testing import stdio_server_config

    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__env_has", {"key": "HOME"})]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__write_note", {"text": "x"})]),
        "Planned.",
    ])
    settings = dict(adapter_settings(server))
    settings.pop("cwd", None)
    agent = HarnessAgent(harness=claude_code(mcp_servers={"ctx": stdio_server_config()}, **settings),
                         include_plugin_tools=False, permission_mode="allow-all")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="Plan", mode="plan")
    check_stream_shape(result.parts)
    assert result.finish_reason == "stop" and result.text == "Planned."
    ran = [p for p in result.parts if isinstance(p, ToolResultPart)]
    assert [p.tool_name for p in ran] == ["mcp__ctx__env_has"], result.parts
    denied = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert [d.tool_name for d in denied] == ["mcp__ctx__write_note"] and "Plan mode" in (denied[0].reason or "")


async def test_plan_mode_and_output_survive_suspend_and_continue(scripted_model_server: Any, adapter_settings: Any,
                                                                 workspace: Path) -> None:
    # fail closed: a plan-mode turn continued from suspended state stays read-only, and its
    # structured output is asked of the continued CLI and validated again
    import json

    from harness_core import define_harness_tool

    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__ping", {})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "x.txt"), "content": "hi"})]),
        ModelTurn(tool_calls=[ToolCallSpec("StructuredOutput", {"city": "Rome", "celsius": 20})]),
    ])
    ping = define_harness_tool(name="ping", description="p", input={"type": "object"}, read_only=True,
                               execute=lambda i, c: "pong")
    agent = _agent(adapter_settings(server), tools=[ping], tool_approval={"ping": "user-approval"},
                   permission_mode="allow-all")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="Plan", mode="plan", output=Weather)
        state = json.loads(json.dumps(await session.suspend_turn()))
    [request] = first.approval_requests
    assert state["adapter"]["plan"] is True and state["output"]["name"] == "Weather"
    async with await agent.create_session(continue_from=state, sandbox=LocalSandbox(workspace)) as resumed:
        second = await agent.continue_generate(session=resumed, output=Weather, approval_responses=[
            {"approval_id": request.approval_id, "approved": True}])
    check_stream_shape(second.parts)
    denied = [p for p in second.parts if isinstance(p, ToolOutputDeniedPart)]
    assert [d.tool_name for d in denied] == ["write"] and "Plan mode" in (denied[0].reason or "")
    assert not (workspace / "x.txt").exists()
    assert second.output == Weather(city="Rome", celsius=20)
    assert "StructuredOutput" in server.model_requests[-1].tool_names
