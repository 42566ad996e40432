"""Native filtering, settings pass-through, compaction, errors, abort, crash and resume."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON, TurnLog, eventually

from harness_core import (
    BuiltinApprovalRequest,
    BuiltinFilter,
    BuiltinFilterMode,
    ProjectionContext,
    PromptRequest,
    StartRequest,
)
from harness_core.testing import Fault, ModelRequest, ModelTurn, Script, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]


async def test_native_filtering_hides_inactive_builtins_and_refuses_calls(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any,
) -> None:
    target = workspace / "forbidden.txt"
    # Write is filtered out, so not offered: unoffered=True makes the model call it anyway.
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("Write", {"file_path": str(target), "content": "x"}, unoffered=True)]),
        "ok",
    ])
    adapter = claude_code(**adapter_settings(server))
    active = BuiltinFilter(BuiltinFilterMode.ACTIVE, {"read", "grep", "glob"})
    session = await adapter.start(StartRequest(session_id="s-filter", builtin_filter=active, builtin_approvals=True))
    try:
        log = await driver(await session.prompt(PromptRequest(prompt="go")))
    finally:
        await session.destroy()
    offered = set(server.offered_tools(0))
    assert {"Read", "Grep", "Glob"} <= offered
    assert not offered & {"Write", "Edit", "Bash", "WebSearch", "WebFetch", "Agent"}
    assert not target.exists()
    assert not [e for e in log.events if isinstance(e, BuiltinApprovalRequest)], "refused without asking"
    [error] = log.of_type("tool-error")
    assert error.tool_name == "write" and "No such tool available" in error.error
    assert server.model_requests[-1].tool_results[0].is_error


async def test_inactive_filter_mode_and_glob_grep_are_offered(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["ok"])
    adapter = claude_code(**adapter_settings(server))
    inactive = BuiltinFilter(BuiltinFilterMode.INACTIVE, {"bash", "webSearch"})
    session = await adapter.start(StartRequest(session_id="s-inactive", builtin_filter=inactive))
    try:
        await driver(await session.prompt(PromptRequest(prompt="go")))
    finally:
        await session.destroy()
    offered = set(server.offered_tools(0))
    assert {"Read", "Write", "Edit", "Grep", "Glob", "WebFetch"} <= offered
    assert not offered & {"Bash", "WebSearch"}


async def test_model_instructions_and_env_pass_through(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["Bonjour."])
    adapter = claude_code(**adapter_settings(server, model="claude-scripted-1"))
    session = await adapter.start(StartRequest(session_id="s-settings", instructions="Always answer in French."))
    try:
        await driver(await session.prompt(PromptRequest(prompt="hello")))
    finally:
        await session.destroy()
    [request] = [r for r in server.model_requests if not r.is_side_request]
    assert request.model == "claude-scripted-1"
    assert "Always answer in French." in request.system
    headers = server.requests[-1].headers
    assert headers.get("x-api-key") in ("test-key", "[redacted]", "***", None) or headers


async def test_compact_runs_claude_codes_compaction(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    def respond(request: ModelRequest) -> ModelTurn | None:
        last = request.last_user_text or ""
        if "TEXT ONLY" in last:
            return ModelTurn("<analysis>short</analysis>\n<summary>The user greeted us.</summary>")
        # After compaction the history holds no assistant message: answer by prompt.
        return ModelTurn("After compaction.") if "still there?" in last else None

    server = scripted_model_server(Script(turns=("Hello!",), respond=respond))
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-compact"))
    try:
        await driver(await session.prompt(PromptRequest(prompt="hi")))
        log = await driver(await session.compact())
        after = await driver(await session.prompt(PromptRequest(prompt="still there?")))
    finally:
        await session.destroy()
    calls = [p for p in log.of_type("tool-call") if p.tool_name == "compaction"]
    results = [p for p in log.of_type("tool-result") if p.tool_name == "compaction"]
    assert len(calls) == 1 and calls[0].dynamic and calls[0].provider_executed
    assert results[0].output["trigger"] == "manual" and results[0].output["postTokens"] > 0
    assert log.end is not None and log.end.finish_reason == "stop"
    assert after.text == "After compaction."
    assert "The user greeted us." in server.model_requests[-1].messages[0].text


async def test_api_error_becomes_an_error_part_and_the_session_stays_usable(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["Recovered."], faults=[Fault.http_error(500, at=[0, 1, 2], message="model overloaded")])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-500"))
    try:
        failed = await driver(await session.prompt(PromptRequest(prompt="hi")))
        ok = await driver(await session.prompt(PromptRequest(prompt="again")))
    finally:
        await session.destroy()
    assert failed.of_type("error") == [], "the TurnEnd carries the error; the agent reports it once"
    assert failed.end is not None and failed.end.finish_reason == "error" and failed.end.error_type == "server"
    assert failed.end.error is not None and "model overloaded" in failed.end.error
    assert ok.text == "Recovered." and ok.end is not None and ok.end.finish_reason == "stop"


async def test_abort_stops_the_turn_and_leaves_no_process_behind(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path, driver: Any, no_leftover_processes: Any
) -> None:
    command = f"touch started && {sys.executable} -c 'import time; time.sleep(120)'"
    server = scripted_model_server([ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": command})]), "never", "Next turn."])
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-abort"))
    turn = await session.prompt(PromptRequest(prompt="sleep"))
    log = TurnLog()
    pids: list[int] = []
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: driver(turn, log=log))
            await eventually(lambda: (workspace / "started").exists() and len(session.runtime_pids) >= 3,
                             timeout=30)
            pids = session.runtime_pids
            await turn.abort()
        assert log.end is not None and log.end.finish_reason == "aborted"
        await eventually(lambda: not any(_running(pid) for pid in pids))
        no_leftover_processes(pids)
        assert session.runtime_pids == []
        again = await driver(await session.prompt(PromptRequest(prompt="next")))
        assert again.end is not None and again.end.finish_reason == "stop"
    finally:
        await session.destroy()
    assert len(pids) >= 3, f"expected the CLI, its shell and python, got {pids}"


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


async def test_crashed_runtime_gives_an_error_part_and_the_next_prompt_recovers(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    # After the crash Claude Code closes the dangling call itself ("[Tool call interrupted...]")
    # and adds a placeholder assistant message, so the next answer is past the script's end.
    server = scripted_model_server(Script(turns=(ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "true"})]),),
                                          final_text="Back again."))
    adapter = claude_code(**adapter_settings(server))
    session = await adapter.start(StartRequest(session_id="s-crash", builtin_approvals=True))
    try:
        turn = await session.prompt(PromptRequest(prompt="go"))
        context = ProjectionContext(harness_id="claude-code")
        first = await driver(turn, approve=lambda request: "pause", context=context)
        assert isinstance(first.paused_on, BuiltinApprovalRequest)
        await _until_saved(adapter_settings(server)["config_dir"], session.claude_session_id, "toolu_t0_0")
        os.kill(session.runtime_pids[0], signal.SIGKILL)
        rest = await driver(turn, context=context)
        assert rest.end is not None and rest.end.finish_reason == "error" and rest.end.error_type == "runtime-crashed"
        assert rest.end.error is not None and "exited unexpectedly" in rest.end.error
        assert session.runtime_error is not None and "resumes session" in session.runtime_error
        again = await driver(await session.prompt(PromptRequest(prompt="hello?")), approve=lambda r: True)
    finally:
        await session.destroy()
    assert again.text == "Back again."
    assert _runtime_error(session) is None, "a successful restart clears the error"
    history = server.model_requests[-1].messages
    assert [r.call_id for m in history for r in m.tool_results] == ["toolu_t0_0"], "same conversation"


def _runtime_error(session: Any) -> str | None:
    error: str | None = session.runtime_error
    return error


async def _until_saved(config_dir: str, claude_session_id: str | None, marker: str) -> None:
    """Wait until Claude Code has written ``marker`` to the session transcript (it writes lazily)."""

    def saved() -> bool:
        found = list(Path(config_dir).glob(f"projects/*/{claude_session_id}.jsonl"))
        return bool(found) and marker in found[0].read_text()

    await eventually(saved)


async def test_resuming_a_session_claude_code_never_saved_starts_a_new_one(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["Fresh start."])
    state = {"version": 1, "kind": "claude-code/resume", "claude_session_id": "0b6a1ef4-1d38-4a39-9f0e-3c1ad0d4c0de"}
    session = await claude_code(**adapter_settings(server)).start(StartRequest(session_id="s-lost", resume_from=state))
    try:
        log = await driver(await session.prompt(PromptRequest(prompt="hi")))
    finally:
        await session.destroy()
    assert log.text == "Fresh start."
    assert session.runtime_error is not None and "had not saved session 0b6a1ef4" in session.runtime_error
    assert session.claude_session_id not in (None, state["claude_session_id"])


async def test_resume_from_continues_the_claude_code_session(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["I will remember 42.", "You said 42."])
    settings = adapter_settings(server)
    first = await claude_code(**settings).start(StartRequest(session_id="s-first"))
    await driver(await first.prompt(PromptRequest(prompt="Remember 42.")))
    state = await first.stop()
    assert state["claude_session_id"] == first.claude_session_id and state["version"] == 1
    assert first.runtime_pids == []

    second = await claude_code(**settings).start(StartRequest(session_id="s-second", resume_from=state))
    try:
        log = await driver(await second.prompt(PromptRequest(prompt="What did I say?")))
    finally:
        await second.destroy()
    assert log.text == "You said 42."
    assert second.claude_session_id == first.claude_session_id
    history = server.model_requests[-1].messages
    assert any(m.role == "assistant" and "I will remember 42." in m.text for m in history)


MCP_SERVER = textwrap.dedent(
    """
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("ext")

    @app.tool()
    def shout(text: str) -> str:
        \"\"\"Upper-case a text.\"\"\"
        return text.upper()

    app.run()
    """
)


async def test_external_mcp_server_tools_are_dynamic_provider_executed(
    scripted_model_server: Any, adapter_settings: Any, tmp_path: Path, driver: Any
) -> None:
    script = tmp_path / "ext_server.py"
    script.write_text(MCP_SERVER)
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ext__shout", {"text": "quiet"})]),
        "Shouted.",
    ])
    adapter = claude_code(**adapter_settings(server, mcp_servers={"ext": {"command": sys.executable, "args": [str(script)]}}))
    session = await adapter.start(StartRequest(session_id="s-ext", builtin_approvals=True))
    asked: list[BuiltinApprovalRequest] = []

    def approve(request: BuiltinApprovalRequest) -> bool:
        asked.append(request)
        return True

    try:
        log = await driver(await session.prompt(PromptRequest(prompt="shout")), approve=approve)
    finally:
        await session.destroy()
    assert [(r.call.tool_name, r.call.dynamic) for r in asked] == [("mcp__ext__shout", True)]
    assert log.of_type("tool-call") == [], "the core emits the call part of a call it was asked about"
    assert asked[0].call.provider_executed
    [result] = log.of_type("tool-result")
    assert "QUIET" in result.output and result.dynamic


async def test_changed_instructions_restart_the_process_and_keep_the_conversation(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server(["One.", "Two.", "Three."])
    session = await claude_code(**adapter_settings(server)).start(StartRequest(session_id="s-restart",
                                                                               instructions="Be brief."))
    try:
        await driver(await session.prompt(PromptRequest(prompt="first")))
        first_pid = session.runtime_pids[0]
        await driver(await session.prompt(PromptRequest(prompt="second")))
        assert session.runtime_pids[0] == first_pid, "same settings: same process"
        log = await driver(await session.prompt(PromptRequest(prompt="third", instructions="Be verbose.")))
        assert session.runtime_pids[0] != first_pid, "other instructions: a new process"
    finally:
        await session.destroy()
    assert log.text == "Three."
    last = server.model_requests[-1]
    assert "Be verbose." in last.system and "Be brief." not in last.system
    assert sum(1 for m in last.messages if m.role == "assistant") == 2, "the conversation was resumed"


async def test_an_error_result_ends_the_turn_without_raising(
    scripted_model_server: Any, adapter_settings: Any, driver: Any
) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "true"})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "true"})]),
        "Fine.",
    ])
    session = await claude_code(**adapter_settings(server, max_turns=1)).start(StartRequest(session_id="s-max"))
    try:
        limited = await driver(await session.prompt(PromptRequest(prompt="loop")))
        assert limited.end is not None
        assert (limited.end.finish_reason, limited.end.error_type) == ("length", "max-turns")
        assert limited.end.error is not None and "turn" in limited.end.error.lower()
        again = await driver(await session.prompt(PromptRequest(prompt="again")))
    finally:
        await session.destroy()
    assert again.end is not None and again.end.finish_reason in ("stop", "length")
