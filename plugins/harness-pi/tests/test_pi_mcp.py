"""MCP servers on pi 1.x: a real stdio server (the ``mcp`` SDK) reached through pi's mcp.json."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness_core import LocalSandbox, ToolApprovalRequestPart, ToolCallPart, ToolResultPart
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

from .conftest import PiAgentFactory

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]

SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("calc")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    with open("mcp-calls.txt", "a") as log:
        log.write(f"{a}+{b}\\n")
    return str(a + b)


server.run("stdio")
'''


def _server(tmp_path: Path) -> dict[str, object]:
    script = tmp_path / "calc_server.py"
    script.write_text(SERVER)
    return {"command": sys.executable, "args": [str(script)], "env": {"CALC_SECRET": "s3cret"}}


async def test_mcp_tools_are_offered_directly_and_run(pi_agent: PiAgentFactory, workspace: Path,
                                                      tmp_path: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("mcp__calc__add", {"a": 2, "b": 3}, id="m1")]), "It is 5."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, pi_settings={"mcp_servers": {"calc": _server(tmp_path)}})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Add 2 and 3")
        offered = server.offered_tools()
        last = server.model_requests[-1]
    assert "mcp__calc__add" in offered
    assert result.finish_reason == "stop", result.error
    (call,) = [p for p in result.parts if isinstance(p, ToolCallPart) and p.tool_call_id == "m1"]
    assert call.tool_name == "mcp__calc__add" and call.dynamic and call.provider_executed
    (done,) = [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == "m1"]
    assert done.output == "5" and "5" in (last.last_tool_result or "")
    assert (workspace / "mcp-calls.txt").read_text() == "2+3\n"
    assert "s3cret" not in repr(result.parts)


async def test_mcp_calls_pass_through_the_approval_gate(pi_agent: PiAgentFactory, workspace: Path,
                                                        tmp_path: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("mcp__calc__add", {"a": 1, "b": 1}, id="m2")]), "Stopped."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, permission_mode="allow-reads",
                         pi_settings={"mcp_servers": {"calc": _server(tmp_path)}})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="Add 1 and 1")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = [p for p in first.parts if isinstance(p, ToolApprovalRequestPart)]
            assert request.tool_call.tool_name == "mcp__calc__add" and request.tool_call.dynamic
            assert not (workspace / "mcp-calls.txt").exists()


async def test_inactive_mcp_servers_are_not_offered(pi_agent: PiAgentFactory, workspace: Path,
                                                    tmp_path: Path) -> None:
    with ScriptedModelServer(["Nothing."]) as server:
        agent = pi_agent(server, inactive_tools=["mcp__calc"], pi_settings={"mcp_servers": {"calc": _server(tmp_path)}})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Hi")
        offered = set(server.offered_tools())
    assert result.finish_reason == "stop", result.error
    assert "mcp__calc__add" not in offered and "read" in offered


async def test_an_allowlist_blocks_mcp_tools_it_does_not_name(pi_agent: PiAgentFactory, workspace: Path,
                                                              tmp_path: Path) -> None:
    script = [ModelTurn(tool_calls=[ToolCallSpec("mcp__calc__add", {"a": 1, "b": 2}, id="m3")]), "Blocked."]
    with ScriptedModelServer(script) as server:
        agent = pi_agent(server, active_tools=["read"], pi_settings={"mcp_servers": {"calc": _server(tmp_path)}})
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="Add")
        last = server.model_requests[-1]
    assert result.finish_reason == "stop", result.error
    assert not (workspace / "mcp-calls.txt").exists()
    assert not [p for p in result.parts if isinstance(p, ToolResultPart) and p.tool_call_id == "m3"]
    assert not [p for p in result.parts if isinstance(p, ToolApprovalRequestPart)]
    assert "not active" in (last.last_tool_result or "")
