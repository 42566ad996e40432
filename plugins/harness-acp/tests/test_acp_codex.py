"""codex-acp through HarnessAgent: projection, approvals, MCP servers, lifecycle (real agent, scripted model)."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_acp.testing import eventually, group_gone, processes_with

from harness_core import (
    FILE_CHANGE_TOOL,
    AbortPart,
    ErrorPart,
    HarnessAgent,
    LocalSandbox,
    ReasoningDeltaPart,
    ToolApprovalRequestPart,
    ToolCallPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)
from harness_core.testing import Fault, ModelTurn, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex-acp", "acp")]

MCP_SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "calc", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
        result = {"tools": [{"name": "mul", "description": "Multiply.", "inputSchema": schema}]}
    elif method == "tools/call":
        arguments = params["arguments"]
        result = {"content": [{"type": "text", "text": str(arguments["a"] * arguments["b"])}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def _limited(test: Any) -> Any:
    """Fail (with a traceback) instead of hanging when the agent stops answering."""
    import functools

    @functools.wraps(test)
    async def run(*args: Any, **kwargs: Any) -> None:
        with anyio.fail_after(180):
            await test(*args, **kwargs)

    return run


def _server(script: list[Any], **kwargs: Any) -> ScriptedModelServer:
    return ScriptedModelServer(script, formats=["responses"], **kwargs)


@_limited
async def test_text_reasoning_and_a_builtin_call_project_by_kind(codex_acp: Any, workspace: Path) -> None:
    script = [ModelTurn("Running.", reasoning="Plan first.",
                        tool_calls=[ToolCallSpec("bash", {"command": "echo hi > out.txt && echo from-bash"})]),
              "All done."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server))
        assert agent.builtins["bash"].native_name == "execute"
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
    check_stream_shape(result.parts)
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert call.tool_name == "bash" and call.provider_executed
    # Display paths: the workspace is shown as "." (docs/agent.md, "Display paths").
    assert call.input == {"command": "echo hi > out.txt && echo from-bash", "cwd": "."}
    assert call.provider_metadata["acp"]["nativeToolName"] == "execute"
    assert call.provider_metadata["acp"]["title"] == "echo hi > out.txt && echo from-bash"
    (final,) = [p for p in result.parts if isinstance(p, ToolResultPart)]
    assert final.tool_call_id == call.tool_call_id and "from-bash" in str(final.output)
    assert "Plan first." in "".join(p.text for p in result.parts if isinstance(p, ReasoningDeltaPart))
    assert result.all_text.startswith("Running.") and result.all_text.endswith("All done.")
    assert "Model metadata" not in result.all_text
    assert (workspace / "out.txt").read_text() == "hi\n"
    assert result.finish_reason == "stop" and result.usage.total_tokens


@_limited
async def test_approval_pauses_then_approving_runs_the_command(codex_acp: Any, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo yes > approved.txt"})]), "Approved."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server), permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "bash"
            assert request.tool_call.input["command"] == "echo yes > approved.txt"
            assert not (workspace / "approved.txt").exists()
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
    check_stream_shape(first.parts)
    check_stream_shape(second.parts)
    assert (workspace / "approved.txt").read_text() == "yes\n"
    results = [p for p in second.parts if isinstance(p, ToolResultPart)]
    assert [r.tool_call_id for r in results] == [request.tool_call.tool_call_id]
    assert not [p for p in second.parts if isinstance(p, ToolCallPart)], "the call part is not repeated"
    assert second.finish_reason == "stop" and second.all_text.endswith("Approved.")


@_limited
async def test_a_persons_denial_and_its_reason_reach_the_model(codex_acp: Any, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo no > denied.txt"})]), "Understood."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server), permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            (request,) = first.approval_requests
            second = await agent.continue_generate(session=session, approval_responses=[
                {"approval_id": request.approval_id, "approved": False, "reason": "not on Fridays"}])
            again = await agent.generate(session=session, prompt="still there?")
        bodies = [json.dumps(r.body) for r in server.model_requests]
    check_stream_shape(second.parts)
    (denied,) = [p for p in second.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.reason == "not on Fridays" and denied.tool_name == "bash"
    assert not [p for p in second.parts if isinstance(p, ToolResultPart) and p.tool_call_id == denied.tool_call_id]
    assert not (workspace / "denied.txt").exists()
    assert any("not on Fridays" in body for body in bodies), "the reason never reached the model"
    assert second.finish_reason == "stop", second.error
    assert again.finish_reason == "stop", again.error


@_limited
async def test_external_mcp_servers_reach_the_agent_as_dynamic_tools(codex_acp: Any, workspace: Path,
                                                                      tmp_path: Path) -> None:
    script_path = tmp_path / "calc.py"
    script_path.write_text(MCP_SERVER)
    script = [ModelTurn(tool_calls=[ToolCallSpec("mcp__calc__mul", {"a": 6, "b": 7})]), "Multiplied."]
    with _server(script) as server:
        adapter = codex_acp(server, mcp_servers={"calc": {"command": sys.executable, "args": [str(script_path)],
                                                          "env": {"CALC_SECRET": "s3cret"}}})
        agent = HarnessAgent(harness=adapter)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
        offered = server.offered_tools()
    check_stream_shape(result.parts)
    assert "mcp__calc__mul" in offered
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart)]
    assert call.provider_executed and call.dynamic
    (final,) = [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == call.tool_call_id]
    assert "42" in str(final.output)
    assert "s3cret" not in json.dumps([p.to_json() for p in result.parts])
    assert result.finish_reason == "stop"


@_limited
async def test_abort_cancels_and_leaves_no_command_running(codex_acp: Any, workspace: Path) -> None:
    marker = f"sleep 31.{os.getpid() % 1000}"
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": marker})]), "Recovered.", "Recovered."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server))
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            stream = agent.stream(session=session, prompt="wait")
            parts = []
            async for part in stream.full_stream:
                parts.append(part)
                if isinstance(part, ToolCallPart):
                    await eventually(lambda: bool(processes_with(marker)), what="the command started")
                    stream.abort("test abort")
            assert isinstance(parts[-1], AbortPart)
            await eventually(lambda: not processes_with(marker), what="the command is gone")
            again = await agent.generate(session=session, prompt="again")
    assert again.finish_reason == "stop", again.error
    assert "Recovered." in again.all_text


@_limited
async def test_a_killed_agent_is_a_runtime_crash_and_the_next_prompt_restarts_it(codex_acp: Any,
                                                                                  workspace: Path) -> None:
    marker = f"sleep 32.{os.getpid() % 1000}"
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": marker})]), "after", "Back again."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server))
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            stream = agent.stream(session=session, prompt="wait")
            pid = None
            async for part in stream.full_stream:
                if isinstance(part, ToolCallPart) and pid is None:
                    pid = session.adapter_session.agent_pid
                    assert pid is not None
                    os.killpg(pid, signal.SIGKILL)
            parts = list(stream.parts)
            assert pid is not None
            await eventually(lambda: group_gone(pid), what="the agent's process group is gone")
            again = await agent.generate(session=session, prompt="again")
    check_stream_shape(parts)
    errors = [p for p in parts if isinstance(p, ErrorPart)]
    assert errors and errors[0].error_type == "runtime-crashed", errors
    assert again.finish_reason == "stop", again.error


@_limited
async def test_a_model_500_is_an_error_and_the_session_stays_usable(codex_acp: Any, workspace: Path) -> None:
    with _server(["Recovered."], faults=[Fault(at=0, status=500)]) as server:
        agent = HarnessAgent(harness=codex_acp(server))
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            failed = await agent.generate(session=session, prompt="fail")
            again = await agent.generate(session=session, prompt="again")
    check_stream_shape(failed.parts)
    assert failed.finish_reason == "error", [p.type for p in failed.parts]
    assert [p for p in failed.parts if isinstance(p, ErrorPart)]
    assert again.finish_reason == "stop" and "Recovered." in again.all_text


@_limited
async def test_stop_and_resume_loads_the_acp_session_in_a_new_process(codex_acp: Any, workspace: Path) -> None:
    with _server(["First answer.", "Second answer."]) as server:
        agent = HarnessAgent(harness=codex_acp(server))
        session = await agent.create_session(sandbox=LocalSandbox(workspace))
        first = await agent.generate(session=session, prompt="remember the word kumquat")
        pid = session.adapter_session.agent_pid
        state = await session.stop()
        assert pid is not None
        await eventually(lambda: group_gone(pid), what="the agent's process group is gone")
        resumed = await agent.create_session(sandbox=LocalSandbox(workspace), resume_from=state)
        async with resumed:
            second = await agent.generate(session=resumed, prompt="which word?")
        last = json.dumps(server.model_requests[-1].body)
    assert first.finish_reason == "stop" and second.finish_reason == "stop", second.error
    assert "kumquat" in last, "the loaded session did not carry the earlier conversation"
    assert not [p for p in second.parts if isinstance(p, ToolApprovalRequestPart)]


@_limited
async def test_an_approved_apply_patch_is_an_edit_with_a_file_change(codex_acp: Any, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    # a built-in model slug: Codex then offers apply_patch (a custom freeform tool)
    with _server([ModelTurn("Patching.", tool_calls=[ToolCallSpec("apply_patch", patch)]), "Patched."]) as server:
        agent = HarnessAgent(harness=codex_acp(server, model="gpt-5.5"), permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "edit"
            assert request.tool_call.input["path"] == "a.py"  # display path, relative to the workspace
            assert "call_id" not in request.tool_call.input and "turn_id" not in request.tool_call.input
            assert (workspace / "a.py").read_text() == "x = 1\n"
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
    check_stream_shape(second.parts)
    assert (workspace / "a.py").read_text() == "x = 2\n"
    changes = [p for p in second.parts if isinstance(p, ToolResultPart) and p.tool_name == FILE_CHANGE_TOOL]
    assert [c.output for c in changes] == [{"changes": [{"path": "a.py", "kind": "modified"}],  # display path
                                            "toolCallId": request.tool_call.tool_call_id}]
    edits = [p for p in second.parts if isinstance(p, ToolResultPart) and p.tool_name == "edit"]
    assert len(edits) == 1 and second.finish_reason == "stop"


@_limited
async def test_aborting_a_paused_approval_cancels_the_agents_request(codex_acp: Any, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo no > aborted.txt"})]), "Fine.", "Fine."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server), permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            assert first.finish_reason == "awaiting-approval", first.error
            pid = session.adapter_session.agent_pid
            await session.abort_turn("changed my mind")
            assert not session.has_unfinished_turn()
            again = await agent.generate(session=session, prompt="again")
            still = session.adapter_session.agent_pid
    assert not (workspace / "aborted.txt").exists()
    assert again.finish_reason == "stop", again.error
    assert pid is not None and still == pid, "the agent ended the cancelled prompt itself; no restart needed"


@_limited
async def test_resuming_without_a_home_says_why_it_cannot(workspace: Path) -> None:
    from harness_acp import acp

    from harness_core import HarnessConfigurationError

    with _server(["First answer."]) as server:
        agent = HarnessAgent(harness=acp(agent="codex-acp", base_url=server.openai_base_url, model="fake-model"),
                             include_plugin_tools=False)
        session = await agent.create_session(sandbox=LocalSandbox(workspace))
        await agent.generate(session=session, prompt="hello")
        state = await session.stop()
        with pytest.raises(HarnessConfigurationError, match="give home= to resume them"):
            await agent.create_session(sandbox=LocalSandbox(workspace), resume_from=state)


@_limited
async def test_a_mapped_permission_mode_selects_the_agents_session_mode(codex_acp: Any, workspace: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo x > written.txt"})]), "Tried.", "Tried."]
    with _server(script) as server:
        adapter = codex_acp(server, permission_mode_mapping={"allow-reads": "read-only"})
        agent = HarnessAgent(harness=adapter, permission_mode="allow-reads", include_plugin_tools=False)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
            for request in result.approval_requests:  # Codex's read-only preset may ask to escalate
                result = await agent.continue_generate(session=session, approval_responses=[
                    {"approval_id": request.approval_id, "approved": False, "reason": "read-only session"}])
        modes = [p.raw_value for p in result.parts if p.type == "raw"
                 and isinstance(p.raw_value, dict) and p.raw_value.get("session_update") == "current_mode_update"]
        bodies = " ".join(json.dumps(r.body) for r in server.model_requests)
    assert not (workspace / "written.txt").exists(), "the read-only session mode let a write through"
    assert "read-only" in bodies.lower() or modes, "the agent never learnt it is in read-only mode"


@_limited
async def test_a_policy_can_veto_even_commands_codex_calls_safe(codex_acp: Any, workspace: Path) -> None:
    from harness_core.testing.conformance import DenyShellPolicy

    # a plain echo is on Codex's known-safe list: untrusted alone would run it without asking
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo SECRET-CONTENT-91"})]),
              "No luck.", "No luck."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server), plugins=[DenyShellPolicy()], include_plugin_tools=False)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
        bodies = " ".join(json.dumps(r.body) for r in server.model_requests)
    check_stream_shape(result.parts)
    (denied,) = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert denied.tool_name == "bash" and denied.reason == DenyShellPolicy.REASON
    assert not [p for p in result.parts if isinstance(p, ToolResultPart)], "codex ran a command the host denied"
    assert '"output": "SECRET-CONTENT-91' not in bodies
    assert result.finish_reason == "stop", result.error


@_limited
async def test_a_paused_turn_reports_the_agents_own_pending_request(codex_acp: Any, workspace: Path) -> None:
    """Issue 16: pending_requests() is the agent's session/request_permission call, so the
    core checks a same-process approval against it (ACP cannot suspend: docs/acp.md)."""
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo yes > approved.txt"})]), "Approved."]
    with _server(script) as server:
        agent = HarnessAgent(harness=codex_acp(server), permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            turn = session.control.turn
            assert turn is not None
            (pending,) = turn.adapter_turn.pending_requests()  # type: ignore[attr-defined]
            assert (pending.kind, pending.approval_id) == ("approval", request.approval_id)
            assert pending.call.tool_call_id == request.tool_call.tool_call_id
            assert pending.call.input["command"] == "echo yes > approved.txt"
            await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
            assert turn.adapter_turn.pending_requests() == []  # type: ignore[attr-defined]
    assert (workspace / "approved.txt").read_text() == "yes\n"
