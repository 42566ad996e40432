"""External MCP servers on Claude Code: the real CLI, real MCP servers (stdio and streamable
HTTP, harness_core.testing.mcp_servers) and a scripted model server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import (
    ApprovalResponse,
    ErrorPart,
    HarnessAgent,
    HarnessConfigurationError,
    LocalSandbox,
    ToolErrorPart,
    ToolOutputDeniedPart,
    ToolResultPart,
)
from harness_core.testing import HttpMcpServer, ModelTurn, ToolCallSpec, stdio_server_config
from harness_core.testing.conformance import check_stream_shape

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")
pytestmark = [pytest.mark.anyio, needs_cli]

SECRET = "cc-s3cr3t-value-0815"


def _agent(settings: dict[str, Any], servers: dict[str, Any], **kwargs: Any) -> HarnessAgent:
    settings = dict(settings)
    settings.pop("cwd", None)
    return HarnessAgent(harness=claude_code(mcp_servers=servers, **settings), include_plugin_tools=False, **kwargs)


def _output_text(part: ToolResultPart | ToolErrorPart) -> str:
    return json.dumps(part.output if isinstance(part, ToolResultPart) else part.error)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_call_with_result_and_error(scripted_model_server: Any, adapter_settings: Any, workspace: Path,
                                          transport: str) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__echo", {"text": "hi"}, id="toolu_e1")]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__fail", {"message": "boom"}, id="toolu_f1")]),
        "done",
    ])
    with HttpMcpServer(cwd=workspace) as http:
        config = stdio_server_config() if transport == "stdio" else {"type": "http", "url": http.url}
        agent = _agent(adapter_settings(server), {"ctx": config})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="use the tools")
            assert "mcp__ctx__echo" in session.runtime_tools
    assert result.finish_reason == "stop", result.parts
    assert "mcp__ctx__echo" in server.offered_tools(0)
    results = {p.tool_call_id: p for p in result.parts if isinstance(p, ToolResultPart | ToolErrorPart)}
    assert isinstance(results["toolu_e1"], ToolResultPart) and "echo: hi" in _output_text(results["toolu_e1"])
    assert results["toolu_e1"].tool_name == "mcp__ctx__echo"
    assert isinstance(results["toolu_f1"], ToolErrorPart), results
    assert "failed on purpose: boom" in _output_text(results["toolu_f1"])


async def test_read_only_tools_run_in_parallel_without_approval(scripted_model_server: Any, adapter_settings: Any,
                                                                workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__slow_read", {"label": "a", "seconds": 2}, id="toolu_a"),
                              ToolCallSpec("mcp__ctx__slow_read", {"label": "b", "seconds": 2}, id="toolu_b")]),
        "done",
    ])
    agent = _agent(adapter_settings(server), {"ctx": stdio_server_config()}, permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="read twice")
        assert session.runtime_tools["mcp__ctx__slow_read"].read_only
    assert result.finish_reason == "stop", result.parts
    spans = {}
    for part in result.parts:
        if isinstance(part, ToolResultPart):
            text = _output_text(part)
            data = json.loads(json.loads(text)) if text.startswith('"') else part.output
            spans[part.tool_call_id] = data if isinstance(data, dict) else json.loads(str(data))
    assert set(spans) == {"toolu_a", "toolu_b"}, result.parts
    a, b = spans["toolu_a"], spans["toolu_b"]
    assert a["start"] < b["end"] and b["start"] < a["end"], spans


async def test_approval_and_denial_of_mcp_calls(scripted_model_server: Any, adapter_settings: Any,
                                                workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__write_note", {"text": "first"}, id="toolu_w1")]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__write_note", {"text": "second"}, id="toolu_w2")]),
        "done",
    ])
    agent = _agent(adapter_settings(server), {"ctx": stdio_server_config(cwd=str(workspace))},
                   permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="write notes")
        decisions = {"toolu_w1": True, "toolu_w2": False}
        while result.finish_reason == "awaiting-approval":
            responses = [ApprovalResponse(approval_id, decisions[p.tool_call_id], None if decisions[p.tool_call_id]
                                          else "not this one")
                         for approval_id, p in session.pending_approvals.items()]
            result = await agent.continue_generate(session=session, approval_responses=responses)
    assert result.finish_reason == "stop", result.parts
    assert (workspace / "notes.txt").read_text() == "first\n"


async def test_inactive_server_prefix_is_not_offered(scripted_model_server: Any, adapter_settings: Any,
                                                     workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__off__echo", {"text": "x"}, id="toolu_x", unoffered=True)]),
        "done",
    ])
    agent = _agent(adapter_settings(server), {"on": stdio_server_config(), "off": stdio_server_config()},
                   inactive_tools=["mcp__off", "mcp__on__fail"])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="call it")
    offered = set(server.offered_tools(0))
    assert "mcp__on__echo" in offered
    assert "mcp__on__fail" not in offered
    assert not any(name.startswith("mcp__off") for name in offered)
    assert not any(isinstance(p, ToolResultPart) and p.tool_call_id == "toolu_x" for p in result.parts)
    assert any(isinstance(p, ToolErrorPart | ToolOutputDeniedPart) and p.tool_call_id == "toolu_x"
               for p in result.parts), result.parts


async def test_server_that_fails_to_start(scripted_model_server: Any, adapter_settings: Any,
                                          workspace: Path) -> None:
    broken = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ok__echo", {"text": "still here"}, id="toolu_e")]),
        "done",
    ])
    agent = _agent(adapter_settings(server), {"ok": stdio_server_config(), "broken": broken})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop", result.parts
    check_stream_shape(result.parts)
    errors = [p.error for p in result.parts if isinstance(p, ErrorPart)]
    assert any("'broken'" in e and "failed to start" in e for e in errors), errors
    assert any(isinstance(p, ToolResultPart) and p.tool_call_id == "toolu_e" for p in result.parts)


async def test_server_killed_mid_session(scripted_model_server: Any, adapter_settings: Any, workspace: Path) -> None:
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__server_pid", {}, id="toolu_p")]),
        "got it",
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__server_pid", {}, id="toolu_e")]),
        "after the crash",
    ])
    agent = _agent(adapter_settings(server), {"ctx": stdio_server_config()})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="pid?")
        text = next(_output_text(p) for p in first.parts if isinstance(p, ToolResultPart))
        pid = int("".join(ch for ch in text if ch.isdigit()))
        os.kill(pid, signal.SIGKILL)
        await anyio.sleep(0.5)
        second = await agent.generate(session=session, prompt="echo")
    # The session goes on: Claude Code either reports the call as failed or (what the CLI
    # does today for a stdio server) reconnects, starting a new server process.
    assert second.finish_reason == "stop", second.parts
    after = [p for p in second.parts if isinstance(p, ToolResultPart | ToolErrorPart) and p.tool_call_id == "toolu_e"]
    assert after, second.parts
    if isinstance(after[0], ToolResultPart):
        assert int("".join(ch for ch in _output_text(after[0]) if ch.isdigit())) != pid


async def test_secret_in_env_appears_nowhere(scripted_model_server: Any, adapter_settings: Any, workspace: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__env_has", {"key": "TOKEN"}, id="toolu_k")]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__write_note", {"text": "x"}, id="toolu_w")]),
        "done",
    ])
    agent = _agent(adapter_settings(server), {"ctx": stdio_server_config(env={"TOKEN": SECRET}, cwd=str(workspace))},
                   permission_mode="allow-reads")
    assert SECRET not in repr(agent.adapter.mcp_servers)
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    try:
        first = await agent.generate(session=session, prompt="is it set?")
        assert first.finish_reason == "awaiting-approval", first.parts
        assert any(isinstance(p, ToolResultPart) and "set" in _output_text(p) for p in first.parts)
        state = await session.suspend_turn()
    finally:
        await session.destroy()
    dumped = json.dumps(state) + json.dumps([p.model_dump(mode="json") for p in first.parts])
    assert SECRET not in dumped
    assert SECRET not in caplog.text
    with pytest.raises(HarnessConfigurationError) as info:
        claude_code(mcp_servers={"ctx": {"command": "x", "env": {"TOKEN": 12345}}})
    assert "env['TOKEN']" in str(info.value) and "12345" not in str(info.value)


def test_configs_map_to_the_sdk_shapes_and_filters_to_disallowed_tools() -> None:
    from harness_claude_code._external_mcp import disallowed_mcp, sdk_server_config

    from harness_core import BuiltinFilter, BuiltinFilterMode, parse_mcp_servers

    servers = parse_mcp_servers({"a": {"command": "srv", "args": ["-x"], "env": {"K": "v"}, "cwd": "/tmp"},
                                 "b": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"H": "v"}}})
    assert sdk_server_config(servers["a"]) == {"type": "stdio", "command": "/bin/sh", "env": {"K": "v"},
                                               "args": ["-c", 'cd "$0" && exec "$@"', "/tmp", "srv", "-x"]}
    assert sdk_server_config(servers["b"]) == {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"H": "v"}}
    deny = BuiltinFilter(BuiltinFilterMode.INACTIVE, {"mcp__a", "mcp__b__t", "Bash", "mcp__zz"})
    assert disallowed_mcp(servers, deny) == ["mcp__a", "mcp__b__t"]
    allow = BuiltinFilter(BuiltinFilterMode.ACTIVE, {"mcp__b__t", "read"})
    assert disallowed_mcp(servers, allow) == ["mcp__a"]
    assert disallowed_mcp(servers, None) == []
