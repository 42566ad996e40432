"""Claude Code through HarnessAgent: the parts an application sees."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON, eventually

from harness_core import (
    ErrorPart,
    HarnessAgent,
    LocalSandbox,
    ToolApprovalRequestPart,
    ToolCallPart,
    define_harness_tool,
)
from harness_core.testing import Fault, ModelRequest, ModelTurn, Script, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]


def _agent(settings: dict[str, Any], **kwargs: Any) -> HarnessAgent:
    settings = dict(settings)
    settings.pop("cwd", None)
    return HarnessAgent(harness=claude_code(**settings), **kwargs)


async def test_builtin_parts_carry_native_names_and_usage(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    server = scripted_model_server([
        ModelTurn("Listing.", reasoning="Think first.", tool_calls=[ToolCallSpec("bash", {"command": "ls"})]),
        ModelTurn(tool_calls=[ToolCallSpec("glob", {"pattern": "*.md"})]),
        "There is one file.",
    ])
    (workspace / "README.md").write_text("# hi\n")
    agent = _agent(adapter_settings(server))
    assert agent.builtins["bash"].native_name == "Bash" and "WebFetch" in agent.builtins
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="What is here?")
    check_stream_shape(result.parts)
    calls = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert [(c.tool_name, c.provider_executed) for c in calls] == [("bash", True), ("glob", True)]
    assert [c.provider_metadata for c in calls] == [{"claude-code": {"nativeToolName": "Bash"}},
                                                    {"claude-code": {"nativeToolName": "Glob"}}]
    assert "README.md" in str(result.all_tool_results[0].output)
    assert result.steps[0].reasoning_text == "Think first." and result.steps[0].text == "Listing."
    assert result.all_text.endswith("There is one file.")
    assert result.finish_reason == "stop"
    assert len(result.steps) == 3
    assert result.usage.cost_usd is not None and result.usage.output_tokens


async def test_approval_request_carries_native_name_and_approving_writes_the_file(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    target = workspace / "approved.md"
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(target), "content": "yes"})]),
        "Written.",
    ])
    agent = _agent(adapter_settings(server), permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="write it")
        check_stream_shape(first.parts)
        assert first.finish_reason == "awaiting-approval"
        [request] = [p for p in first.parts if isinstance(p, ToolApprovalRequestPart)]
        assert request.tool_call.tool_name == "write"
        assert request.tool_call.provider_metadata == {"claude-code": {"nativeToolName": "Write"}}
        assert not target.exists()
        second = await agent.continue_generate(
            session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
    check_stream_shape(second.parts)
    assert target.read_text() == "yes"
    assert second.finish_reason == "stop" and second.all_text == "Written."


async def test_api_error_is_one_error_part(scripted_model_server: Any, adapter_settings: Any, workspace: Path) -> None:
    server = scripted_model_server(["fine"], faults=[Fault.http_error(529, at=[0, 1, 2], message="overloaded now")])
    agent = _agent(adapter_settings(server))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="hi")
    check_stream_shape(result.parts)
    errors = [p for p in result.parts if isinstance(p, ErrorPart)]
    assert len(errors) == 1 and "overloaded now" in errors[0].error
    assert result.finish_reason == "error"


async def test_session_compact_yields_a_compaction_part(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    def respond(request: ModelRequest) -> ModelTurn | None:
        if "TEXT ONLY" in (request.last_user_text or ""):
            return ModelTurn("<summary>Said hello.</summary>")
        return None

    server = scripted_model_server(Script(turns=("Hello.",), respond=respond))
    agent = _agent(adapter_settings(server))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        await agent.generate(session=session, prompt="hi")
        compacted = await session.compact().consume()
    check_stream_shape(compacted.parts)
    [call] = [p for p in compacted.parts if isinstance(p, ToolCallPart)]
    assert call.tool_name == "compaction" and call.dynamic and call.provider_executed
    assert compacted.finish_reason == "stop"


async def test_abort_through_the_agent_leaves_no_process(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, no_leftover_processes: Any
) -> None:
    command = f"touch started && {sys.executable} -c 'import time; time.sleep(120)'"
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command})]), "x"])
    agent = _agent(adapter_settings(server))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = agent.stream(session=session, prompt="sleep")
        pids: list[int] = []
        adapter_session: Any = session.adapter_session

        def tool_running() -> bool:
            return (workspace / "started").exists() and len(adapter_session.runtime_pids) >= 3

        async for part in result.full_stream:
            if isinstance(part, ToolCallPart):
                await eventually(tool_running)
                pids = adapter_session.runtime_pids
                result.abort("enough")
        assert await result.finish_reason == "aborted"
        await eventually(lambda: not any(Path(f"/proc/{pid}").exists() and _live(pid) for pid in pids))
        no_leftover_processes(pids)


def _live(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


async def test_host_tool_with_execute_runs_in_the_host(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    def weather(input: dict[str, Any], ctx: Any) -> dict[str, Any]:
        return {"city": input["city"], "celsius": 12, "call": ctx.tool_call_id}

    tool = define_harness_tool(name="weather", description="Temperature of a city.",
                               input={"type": "object", "properties": {"city": {"type": "string"}},
                                      "required": ["city"]}, execute=weather)
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__weather", {"city": "Oslo"}, id="toolu_w1")]),
        "Cold.",
    ])
    agent = _agent(adapter_settings(server), tools=[tool])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="weather")
    check_stream_shape(result.parts)
    [call] = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert call.tool_name == "weather" and not call.provider_executed
    assert result.all_tool_results[0].output == {"city": "Oslo", "celsius": 12, "call": "toolu_w1"}
    assert '"celsius": 12' in (server.last_tool_result() or "")


async def test_calls_claude_code_decides_alone_reach_the_stream_once_without_violations(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo no > rule.txt"}, id="toolu_rule")]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(workspace / "ok.txt"), "content": "ok"},
                                           id="toolu_write")]),
        "Done.",
    ])
    rules = json.dumps({"permissions": {"deny": ["Bash(echo:*)"]}})
    agent = _agent(adapter_settings(server, extra_options={"settings": rules}), permission_mode="allow-edits")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")
        assert session.contract_violations == ()
    check_stream_shape(result.parts)
    tool_parts = [(p.type, p.tool_call_id) for p in result.parts
                  if p.type in ("tool-call", "tool-result", "tool-error", "tool-output-denied",
                                "tool-approval-request")]
    assert tool_parts == [("tool-call", "toolu_rule"), ("tool-output-denied", "toolu_rule"),
                          ("tool-call", "toolu_write"), ("tool-result", "toolu_write")]
    assert not (workspace / "rule.txt").exists() and (workspace / "ok.txt").read_text() == "ok"
    assert result.finish_reason == "stop"
