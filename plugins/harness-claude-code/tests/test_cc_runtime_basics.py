"""The real Claude Code runtime, driven through the adapter protocol (no agent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import PromptRequest, StartRequest
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec, Usage

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]


async def test_bash_runs_in_the_workspace_and_streams_parts(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    server: ScriptedModelServer = scripted_model_server([
        ModelTurn("Running it.", reasoning="Let me check.", tool_calls=[
            ToolCallSpec("bash", {"command": "pwd && echo made > made.txt"}),
        ]),
        ModelTurn("All done.", usage=Usage(input_tokens=50, output_tokens=7, cached_tokens=11, cache_creation_tokens=3)),
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-bash"))
    try:
        turn = await session.prompt(PromptRequest(prompt="Make a file"))
        log = await driver(turn)
    finally:
        await session.destroy()
    assert (workspace / "made.txt").read_text() == "made\n"
    calls = log.of_type("tool-call")
    assert [(c.tool_name, c.provider_executed) for c in calls] == [("bash", True)]
    assert calls[0].provider_metadata == {"claude-code": {"nativeToolName": "Bash"}}
    results = log.of_type("tool-result")
    assert results[0].tool_call_id == calls[0].tool_call_id
    assert str(workspace) in results[0].output
    assert "Running it." in log.text and "All done." in log.text
    assert "".join(p.text for p in log.of_type("reasoning-delta")) == "Let me check."
    assert [p.type for p in log.parts].count("start-step") == 2
    assert log.end is not None and log.end.finish_reason == "stop"
    usage = log.end.usage
    assert usage.output_tokens is not None and usage.output_tokens > 0
    assert usage.cached_input_tokens is not None and usage.cached_input_tokens >= 11
    assert usage.cost_usd is not None and usage.cost_usd > 0
    assert session.claude_session_id is not None


async def test_write_and_edit_change_real_files(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any
) -> None:
    target = workspace / "notes.txt"
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("write", {"file_path": str(target), "content": "hello world\n"})]),
        ModelTurn(tool_calls=[ToolCallSpec("read", {"file_path": str(target)})]),
        ModelTurn(tool_calls=[ToolCallSpec("edit", {"file_path": str(target), "old_string": "world", "new_string": "there"})]),
        "Edited.",
    ])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-files"))
    try:
        log = await driver(await session.prompt(PromptRequest(prompt="write then edit")))
    finally:
        await session.destroy()
    assert target.read_text() == "hello there\n"
    assert [c.tool_name for c in log.of_type("tool-call")] == ["write", "read", "edit"]
    assert [r.tool_name for r in log.of_type("tool-result")] == ["write", "read", "edit"]
    assert log.of_type("tool-error") == []


async def test_a_second_prompt_reuses_the_process_and_the_conversation(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["First answer.", "Second answer."])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-two"))
    try:
        first = await driver(await session.prompt(PromptRequest(prompt="one")))
        pids = session.runtime_pids
        second = await driver(await session.prompt(PromptRequest(prompt="two")))
        assert session.runtime_pids[:1] == pids[:1]
    finally:
        await session.destroy()
    assert first.text == "First answer." and second.text == "Second answer."
    last = server.model_requests[-1]
    assert [m.role for m in last.messages if m.role != "tool"][-3:] == ["user", "assistant", "user"]
