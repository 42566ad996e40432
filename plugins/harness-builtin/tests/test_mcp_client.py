"""The built-in harness as an MCP client, against real MCP servers (stdio and streamable
HTTP, written with the ``mcp`` SDK in harness_core.testing.mcp_servers) and a scripted model
server on 127.0.0.1."""

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
from harness_core.testing import (
    PNG_1X1,
    HttpMcpServer,
    ModelTurn,
    Script,
    ToolCallSpec,
    stdio_server_config,
)
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio

SECRET = "s3cr3t-value-4711"


def agent_for(server: Any, mcp_servers: dict[str, Any], **options: Any) -> HarnessAgent:
    harness_options = {"model": "anthropic:fake-model", "base_url": server.base_url, "api_key": "test-key",
                       "max_retries": 0, "mcp_servers": mcp_servers}
    return HarnessAgent(harness="builtin", harness_options=harness_options, include_plugin_tools=False, **options)


@pytest.fixture
def http_server(workspace: Path) -> Any:
    with HttpMcpServer(cwd=workspace) as server:
        yield server


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_call_results_text_structured_image_and_error(scripted_model_server, workspace: Path,
                                                            http_server: Any, transport: str) -> None:
    config = stdio_server_config() if transport == "stdio" else {"type": "http", "url": http_server.url}
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__echo", {"text": "hi"}, id="c1"),
                              ToolCallSpec("mcp__ctx__picture", {}, id="c2"),
                              ToolCallSpec("mcp__ctx__fail", {"message": "boom"}, id="c3")]),
        "done",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, {"ctx": config})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        assert "mcp__ctx__echo" in session.runtime_tools
        assert session.runtime_tools["mcp__ctx__slow_read"].read_only
        result = await agent.generate(session=session, prompt="use the tools")
    assert result.finish_reason == "stop", result.parts
    offered = server.offered_tools(0)
    assert {"mcp__ctx__echo", "mcp__ctx__fail", "mcp__ctx__picture", "read"} <= set(offered)
    results = {p.tool_call_id: p for p in result.parts if isinstance(p, ToolResultPart)}
    assert results["c1"].output["content"] == [{"type": "text", "text": "echo: hi"}]
    assert results["c1"].provider_executed
    picture = results["c2"].output["content"]
    assert picture[1] == {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}
    errors = [p for p in result.parts if isinstance(p, ToolErrorPart)]
    assert [e.tool_call_id for e in errors] == ["c3"]
    assert "failed on purpose: boom" in str(errors[0].error)
    # The model saw the text, the image (an Anthropic image block, issue 23) and the error.
    sent = json.dumps(dict(server.model_requests[-1].body))
    assert "echo: hi" in sent and "failed on purpose: boom" in sent and "[image: image/png" not in sent
    images = {r.call_id: r.images for r in server.model_requests[-1].tool_results}
    assert [(i.media_type, i.data) for i in images["c2"]] == [("image/png", PNG_1X1)]


async def test_read_only_mcp_calls_run_in_parallel(scripted_model_server, workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__slow_read", {"label": "a", "seconds": 1.5}, id="a"),
                              ToolCallSpec("mcp__ctx__slow_read", {"label": "b", "seconds": 1.5}, id="b")]),
        "done",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, {"ctx": stdio_server_config()}, permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="read twice")
    assert result.finish_reason == "stop", result.parts
    spans = {p.tool_call_id: p.output["structuredContent"] for p in result.parts if isinstance(p, ToolResultPart)}
    assert set(spans) == {"a", "b"}
    # Overlapping: each started before the other ended (read-only: no approval asked either).
    assert spans["a"]["start"] < spans["b"]["end"] and spans["b"]["start"] < spans["a"]["end"]


async def test_approval_and_denial_of_mcp_calls(scripted_model_server, workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__write_note", {"text": "first"}, id="w1"),
                              ToolCallSpec("mcp__ctx__write_note", {"text": "second"}, id="w2")]),
        "done",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, {"ctx": stdio_server_config()}, permission_mode="allow-reads")
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="write notes")
        assert first.finish_reason == "awaiting-approval", first.parts
        pending = session.pending_approvals
        by_call = {approval.tool_call_id: approval_id for approval_id, approval in pending.items()}
        assert set(by_call) == {"w1", "w2"}
        final = await agent.continue_generate(session=session, approval_responses=[
            ApprovalResponse(by_call["w1"], True), ApprovalResponse(by_call["w2"], False, "not this one")])
    assert final.finish_reason == "stop", final.parts
    assert (workspace / "notes.txt").read_text() == "first\n"
    denied = [p for p in final.parts if isinstance(p, ToolOutputDeniedPart)]
    assert [p.tool_call_id for p in denied] == ["w2"]
    assert any(isinstance(p, ToolResultPart) and p.tool_call_id == "w1" for p in final.parts)


async def test_inactive_server_prefix_is_not_offered_and_a_call_is_denied(scripted_model_server,
                                                                         workspace: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("mcp__off__echo", {"text": "x"}, id="x", unoffered=True)]), "done")
    server = scripted_model_server(script)
    agent = agent_for(server, {"on": stdio_server_config(), "off": stdio_server_config()},
                      inactive_tools=["mcp__off", "mcp__on__fail"])
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="call it")
    offered = set(server.offered_tools(0))
    assert "mcp__on__echo" in offered
    assert "mcp__on__fail" not in offered
    assert not any(name.startswith("mcp__off") for name in offered)
    denied = [p for p in result.parts if isinstance(p, ToolOutputDeniedPart)]
    assert [p.tool_call_id for p in denied] == ["x"], result.parts
    assert not any(isinstance(p, ToolResultPart) and p.tool_call_id == "x" for p in result.parts)


async def test_server_that_fails_to_start_gives_an_error_part(scripted_model_server, workspace: Path) -> None:
    broken = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}
    missing = {"command": str(workspace / "no-such-server")}
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("mcp__ok__echo", {"text": "still here"}, id="e")]),
                       "done")
    server = scripted_model_server(script)
    agent = agent_for(server, {"ok": stdio_server_config(), "broken": broken, "missing": missing})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        assert not any(n.startswith(("mcp__broken", "mcp__missing")) for n in session.runtime_tools)
        result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop", result.parts
    check_stream_shape(result.parts)
    errors = [p.error for p in result.parts if isinstance(p, ErrorPart)]
    assert any("'broken'" in e and "failed to start" in e for e in errors), errors
    assert any("'missing'" in e for e in errors), errors
    assert any(isinstance(p, ToolResultPart) and p.tool_call_id == "e" for p in result.parts)


async def test_server_killed_mid_session(scripted_model_server, workspace: Path) -> None:
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__server_pid", {}, id="p")]),
        "got the pid",
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__echo", {"text": "again"}, id="e")]),
        "after the crash",
    )
    server = scripted_model_server(script)
    agent = agent_for(server, {"ctx": stdio_server_config()})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        first = await agent.generate(session=session, prompt="pid?")
        pid = next(int(p.output["structuredContent"]["result"]) for p in first.parts if isinstance(p, ToolResultPart))
        os.kill(pid, signal.SIGKILL)
        await anyio.sleep(0.5)
        second = await agent.generate(session=session, prompt="echo")
        assert second.finish_reason == "stop", second.parts
        errors = [p.error for p in second.parts if isinstance(p, ErrorPart)]
        failed = [p for p in second.parts if isinstance(p, ToolErrorPart | ToolResultPart) and p.tool_call_id == "e"]
        assert any("'ctx'" in e for e in errors) or (failed and isinstance(failed[0], ToolErrorPart)), second.parts
        assert "mcp__ctx__echo" not in session.runtime_tools


async def test_servers_stop_with_the_session(scripted_model_server, workspace: Path) -> None:
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__server_pid", {}, id="p")]), "ok")
    server = scripted_model_server(script)
    agent = agent_for(server, {"ctx": stdio_server_config()})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="pid?")
        pid = next(int(p.output["structuredContent"]["result"]) for p in result.parts if isinstance(p, ToolResultPart))
        assert _alive(pid)
    with anyio.move_on_after(30):
        while _alive(pid):  # noqa: ASYNC110 - polling another process's state
            await anyio.sleep(0.1)
    assert not _alive(pid)


async def test_secret_in_env_appears_nowhere(scripted_model_server, workspace: Path, http_server: Any,
                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    broken = {"command": sys.executable, "args": ["-c", "import os, sys; sys.exit(os.environ['TOKEN'])"], "env": {"TOKEN": SECRET}}
    script = Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__env_has", {"key": "TOKEN"}, id="k")]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__ctx__write_note", {"text": "x"}, id="w")]),
        "done",
    )
    server = scripted_model_server(script)
    web = {"type": "http", "url": http_server.url, "headers": {"Authorization": f"Bearer {SECRET}"}}
    agent = agent_for(server, {"ctx": stdio_server_config(env={"TOKEN": SECRET}), "bad": broken, "web": web},
                      permission_mode="allow-reads")
    assert SECRET not in repr(agent) and SECRET not in repr(agent.adapter.mcp_servers)
    session = await agent.create_session(sandbox=LocalSandbox(workspace))
    try:
        first = await agent.generate(session=session, prompt="is it set?")
        assert first.finish_reason == "awaiting-approval", first.parts
        assert any(isinstance(p, ToolResultPart) and p.output["content"][0]["text"] == "set" for p in first.parts)
        assert "mcp__web__echo" in session.runtime_tools
        state = await session.suspend_turn()
    finally:
        await session.destroy()
    dumped = json.dumps(state) + json.dumps([p.model_dump(mode="json") for p in first.parts])
    assert SECRET not in dumped
    assert SECRET not in caplog.text
    with pytest.raises(HarnessConfigurationError) as info:
        agent_for(server, {"ctx": {"command": "x", "env": {"TOKEN": 12345}}})
    assert "env['TOKEN']" in str(info.value) and "12345" not in str(info.value)
