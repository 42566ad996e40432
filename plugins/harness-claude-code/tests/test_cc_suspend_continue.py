"""Pausing a turn for the host, and continuing it in the same and in a new process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import (
    BuiltinApprovalRequest,
    HostToolCall,
    HostToolSpec,
    ProjectionContext,
    PromptRequest,
    StartRequest,
    TurnStateError,
)
from harness_core.testing import ModelRequest, ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]

PICK = HostToolSpec(
    name="pick_color",
    description="Ask the user to pick a color (answered by the client).",
    input_schema={"type": "object", "properties": {"prompt": {"type": "string"}}},
)

CHILD = textwrap.dedent(
    """
    import json, sys
    import anyio
    from harness_core import BuiltinApprovalRequest, HostToolSpec, ProjectionContext, StartRequest, ToolOutput, TurnEnd
    from harness_core import Part
    from harness_claude_code import ClaudeCodeEvent, claude_code
    from harness_claude_code._projection import project

    config = json.loads(open(sys.argv[1]).read())

    async def main():
        settings = config["settings"]
        adapter = claude_code(**settings)
        session = await adapter.start(StartRequest(
            session_id="continued", builtin_approvals=True,
            host_tools=[HostToolSpec(**spec) for spec in config["host_tools"]],
            continue_from=config["state"],
        ))
        turn = await session.resume_turn()
        for answer in config["answers"]:
            if answer["kind"] == "approval":
                await turn.submit_approval(answer["id"], answer["approved"], answer.get("reason"))
            else:
                await turn.submit_tool_result(answer["id"], ToolOutput(answer["content"]))
        context = ProjectionContext(harness_id="claude-code")
        parts, end = [], None
        async for event in turn.events():
            if isinstance(event, BuiltinApprovalRequest) and config.get("auto_approve"):
                parts.append({"type": "control", "kind": "BuiltinApprovalRequest",
                              "tool_call_id": event.call.tool_call_id})
                await turn.submit_approval(event.approval_id, True)
            elif isinstance(event, ClaudeCodeEvent):
                parts.extend(p.to_json() for p in project(event, context))
            elif isinstance(event, Part):
                parts.append(event.to_json())
            elif isinstance(event, TurnEnd):
                end = {"finish_reason": event.finish_reason, "error": event.error}
            else:
                parts.append({"type": "control", "kind": type(event).__name__})
        pids = session.runtime_pids
        await session.destroy()
        print(json.dumps({"parts": parts, "end": end, "pids": pids}))

    anyio.run(main)
    """
)


def _continue_in_new_process(tmp_path: Path, settings: dict[str, Any], state: dict[str, Any],
                             answers: list[dict[str, Any]], host_tools: Sequence[HostToolSpec] = (),
                             auto_approve: bool = False) -> dict[str, Any]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    config = tmp_path / "child.json"
    jsonable = {k: str(v) if isinstance(v, Path) else v for k, v in settings.items()}
    config.write_text(json.dumps({
        "settings": jsonable, "state": json.loads(json.dumps(state)), "answers": answers,
        "auto_approve": auto_approve,
        "host_tools": [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
                       for t in host_tools],
    }))
    done = subprocess.run([sys.executable, str(script), str(config)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _types(parts: list[dict[str, Any]]) -> list[str]:
    return [p["type"] for p in parts]


async def test_pause_for_approval_then_approve_in_the_same_process(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    target = workspace / "later.txt"
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(target), "content": "later"})]),
        "Written.",
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-pause", builtin_approvals=True))
    try:
        turn = await session.prompt(PromptRequest(prompt="write"))
        context = ProjectionContext(harness_id="claude-code")
        first = await driver(turn, approve=lambda request: "pause", context=context)
        assert isinstance(first.paused_on, BuiltinApprovalRequest)
        with pytest.raises(TurnStateError):
            await session.prompt(PromptRequest(prompt="too early"))
        assert not target.exists()
        await turn.submit_approval(first.paused_on.approval_id, True)
        rest = await driver(turn, context=context)
    finally:
        await session.destroy()
    assert target.read_text() == "later"
    assert [r.tool_name for r in rest.of_type("tool-result")] == ["write"]
    assert rest.end is not None and rest.end.finish_reason == "stop" and rest.text == "Written."
    assert server.model_calls == 2


async def test_client_side_tool_result_continues_losslessly_in_a_new_process(
    scripted_model_server: Any, adapter_settings: Any, tmp_path: Path, driver: Any, no_leftover_processes: Any
) -> None:
    server = scripted_model_server([
        ModelTurn("Let me ask.", tool_calls=[ToolCallSpec("mcp__harness__pick_color", {"prompt": "Favourite?"})]),
        "You picked teal.",
    ])
    settings = adapter_settings(server)
    adapter = claude_code(**settings)
    session = await adapter.start(StartRequest(session_id="s-client", host_tools=[PICK], builtin_approvals=True))
    turn = await session.prompt(PromptRequest(prompt="pick"))
    first = await driver(turn, tool_result=lambda call: "pause")
    assert isinstance(first.paused_on, HostToolCall)
    pids = session.runtime_pids
    state = await session.suspend_turn()
    no_leftover_processes(pids)
    call_id = first.paused_on.call.tool_call_id
    assert state["calls"][call_id]["kind"] == "host"
    assert json.loads(json.dumps(state)) == state

    result = _continue_in_new_process(tmp_path, settings, state, [
        {"kind": "result", "id": call_id, "content": "teal"},
    ], host_tools=[PICK])
    assert result["end"]["finish_reason"] == "stop"
    text = "".join(p["text"] for p in result["parts"] if p["type"] == "text-delta")
    assert text == "You picked teal."
    assert server.model_calls == 2, "no model call is repeated"
    last: ModelRequest = server.model_requests[-1]
    assert [(r.call_id, r.text) for r in last.tool_results] == [(call_id, "teal")]
    assert sum(1 for m in last.messages if m.role == "assistant") == 1
    no_leftover_processes(result["pids"])


async def test_denial_continues_losslessly_in_a_new_process(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, tmp_path: Path, driver: Any
) -> None:
    target = workspace / "never.txt"
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(target), "content": "x"})]),
        "Understood, I will not write it.",
    ])
    settings = adapter_settings(server)
    session = await claude_code(**settings).start(StartRequest(session_id="s-deny", builtin_approvals=True))
    first = await driver(await session.prompt(PromptRequest(prompt="write")), approve=lambda r: "pause")
    request = first.paused_on
    assert isinstance(request, BuiltinApprovalRequest)
    state = await session.suspend_turn()
    await session.destroy()

    result = _continue_in_new_process(tmp_path, settings, state, [
        {"kind": "approval", "id": request.approval_id, "approved": False, "reason": "Not today."},
    ])
    assert not target.exists()
    tool_parts = [p for p in result["parts"] if p["type"].startswith("tool-")]
    assert tool_parts == [], "the core emitted the denial when it answered; the adapter adds nothing"
    assert server.model_calls == 2
    [sent] = server.model_requests[-1].tool_results
    assert sent.is_error and sent.text == "Not today."
    assert result["end"]["finish_reason"] == "stop"


async def test_approval_continues_in_a_new_process_by_rerunning_the_request(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, tmp_path: Path, driver: Any
) -> None:
    target = workspace / "approved.txt"
    write = {"file_path": str(target), "content": "approved"}

    def respond(request: ModelRequest) -> ModelTurn | None:
        if request.turn_index == 0:
            # A real model would answer the re-run with a new call id; the adapter matches
            # the repeat by name and input and reports it under the original id.
            call_id = "toolu_first" if request.index == 0 else "toolu_repeat"
            return ModelTurn(tool_calls=[ToolCallSpec("write", write, id=call_id)])
        return ModelTurn("Saved.")

    server = scripted_model_server(respond)
    settings = adapter_settings(server)
    session = await claude_code(**settings).start(StartRequest(session_id="s-rerun", builtin_approvals=True))
    first = await driver(await session.prompt(PromptRequest(prompt="write")), approve=lambda r: "pause")
    request = first.paused_on
    assert isinstance(request, BuiltinApprovalRequest) and request.call.tool_call_id == "toolu_first"
    state = await session.suspend_turn()
    await session.destroy()

    result = _continue_in_new_process(tmp_path, settings, state, [
        {"kind": "approval", "id": request.approval_id, "approved": True},
    ])
    assert target.read_text() == "approved"
    assert [p for p in result["parts"] if p["type"] == "control"] == [], "the repeat is not asked again"
    results = [p for p in result["parts"] if p["type"] == "tool-result"]
    assert [(p["toolCallId"], p["toolName"]) for p in results] == [("toolu_first", "write")]
    assert [p for p in result["parts"] if p["type"] == "tool-call"] == [], "the call is not reported twice"
    assert result["end"]["finish_reason"] == "stop"
    assert server.model_calls == 3, "the interrupted model request was re-run once"


async def test_suspend_needs_a_waiting_turn(scripted_model_server: Any, adapter_settings: Any, driver: Any) -> None:
    server = scripted_model_server(["hi"])
    session = await claude_code(**adapter_settings(server)).start(StartRequest(session_id="s-nosuspend"))
    try:
        with pytest.raises(TurnStateError, match="only a turn waiting"):
            await session.suspend_turn()
        await driver(await session.prompt(PromptRequest(prompt="hi")))
        with pytest.raises(TurnStateError, match="only a turn waiting"):
            await session.suspend_turn()
        with pytest.raises(TurnStateError, match="no suspended turn"):
            await session.resume_turn()
    finally:
        await session.destroy()


async def test_parallel_calls_not_yet_asked_are_asked_again_after_continuing(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, tmp_path: Path, driver: Any
) -> None:
    first_file, second_file = workspace / "one.txt", workspace / "two.txt"
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(first_file), "content": "1"}),
                              ToolCallSpec("write", {"file_path": str(second_file), "content": "2"})]),
        "Both written.",
    ])
    settings = adapter_settings(server)
    session = await claude_code(**settings).start(StartRequest(session_id="s-parallel", builtin_approvals=True))
    first = await driver(await session.prompt(PromptRequest(prompt="two files")), approve=lambda r: "pause")
    request = first.paused_on
    assert isinstance(request, BuiltinApprovalRequest) and request.call.tool_call_id == "toolu_t0_0"
    state = await session.suspend_turn()
    await session.destroy()
    assert state["calls"]["toolu_t0_0"]["asked"] and not state["calls"]["toolu_t0_1"]["asked"]

    result = _continue_in_new_process(tmp_path, settings, state, [
        {"kind": "approval", "id": request.approval_id, "approved": True},
    ], auto_approve=True)
    assert first_file.read_text() == "1" and second_file.read_text() == "2"
    asked_again = [p["tool_call_id"] for p in result["parts"] if p["type"] == "control"]
    assert asked_again == ["toolu_t0_1"], "only the call never asked about is asked"
    results = sorted(p["toolCallId"] for p in result["parts"] if p["type"] == "tool-result")
    assert results == ["toolu_t0_0", "toolu_t0_1"]
    assert result["end"]["finish_reason"] == "stop"
