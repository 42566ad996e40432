"""pi-acp through HarnessAgent (real pi 1.6.0 behind pi-acp 0.0.34, scripted model), and its limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_core import (
    FILE_CHANGE_TOOL,
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    HarnessConfigurationError,
    LocalSandbox,
    ToolCallPart,
    ToolResultPart,
    define_harness_tool,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec
from harness_core.testing.conformance import check_stream_shape

pytestmark = pytest.mark.anyio

ADD = define_harness_tool(name="add", description="Add.", input={"type": "object", "properties": {}},
                          execute=lambda tool_input, ctx: "0")


@pytest.mark.requires_runtime("pi-acp", "pi", "acp")
async def test_a_pi_turn_projects_bash_write_and_read_with_a_file_change(pi_acp: Any, workspace: Path) -> None:
    target = workspace / "w.txt"
    script = [
        ModelTurn("Working.", tool_calls=[ToolCallSpec("bash", {"command": "echo from-pi"})]),
        ModelTurn(tool_calls=[ToolCallSpec("write", {"path": str(target), "content": "hi"})]),
        ModelTurn(tool_calls=[ToolCallSpec("read", {"path": str(target)})]),
        "All done.",
    ]
    with ScriptedModelServer(script) as server, anyio.fail_after(180):
        agent = HarnessAgent(harness=pi_acp(server), include_plugin_tools=False)
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            result = await agent.generate(session=session, prompt="go")
    check_stream_shape(result.parts)
    calls = [p for p in result.parts if isinstance(p, ToolCallPart)]
    names = [c.tool_name for c in calls]
    # The file change follows its edit; pi-acp may report it after the next call has started.
    assert names in (["bash", "edit", FILE_CHANGE_TOOL, "read"], ["bash", "edit", "read", FILE_CHANGE_TOOL]), names
    bash, edit, read = (calls[names.index(name)] for name in ("bash", "edit", "read"))
    change = calls[names.index(FILE_CHANGE_TOOL)]
    # Display paths: relative to the workspace (docs/agent.md, "Display paths").
    assert change.input == {"changes": [{"path": target.name, "kind": "created"}], "toolCallId": edit.tool_call_id}
    assert bash.input["command"] == "echo from-pi"
    assert edit.provider_metadata["acp"]["title"] == "write"
    results = {p.tool_call_id: p for p in result.parts if isinstance(p, ToolResultPart)}
    assert "from-pi" in str(results[bash.tool_call_id].output)
    assert results[read.tool_call_id].output == "hi"
    assert target.read_text() == "hi"
    assert result.all_text.startswith("Working.") and result.all_text.endswith("All done.")
    assert "pi v" not in result.all_text, "the startup banner is not the model's text"
    assert result.finish_reason == "stop"


@pytest.mark.requires_runtime("pi-acp", "pi", "acp")
async def test_host_tools_reach_pi_through_its_mcp_config_and_approvals_through_an_extension(
        pi_acp: Any, workspace: Path) -> None:
    add = define_harness_tool(
        name="add", description="Add two numbers.",
        input={"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        execute=lambda tool_input, ctx: str(tool_input["a"] + tool_input["b"]))
    script = [
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__add", {"a": 2, "b": 3})]),
        ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo approved > approved.txt"})]),
        "Both done.",
    ]
    with ScriptedModelServer(script) as server, anyio.fail_after(180):
        agent = HarnessAgent(harness=pi_acp(server), tools=[add], include_plugin_tools=False,
                             permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            assert first.finish_reason == "awaiting-approval", first.error
            (request,) = first.approval_requests
            assert request.tool_call.tool_name == "bash"
            assert request.tool_call.input["command"] == "echo approved > approved.txt"
            assert not (workspace / "approved.txt").exists()
            second = await agent.continue_generate(
                session=session, approval_responses=[{"approval_id": request.approval_id, "approved": True}])
    check_stream_shape(first.parts)
    check_stream_shape(second.parts)
    host = [p for p in first.parts if isinstance(p, ToolResultPart) and p.tool_name == "add"]
    assert [str(p.output) for p in host] == ["5"]
    assert "mcp__harness__add" in server.offered_tools()
    assert (workspace / "approved.txt").read_text().strip() == "approved"
    finals = [p for p in second.parts if isinstance(p, ToolResultPart)]
    assert [p.tool_call_id for p in finals] == [request.tool_call.tool_call_id]
    assert second.finish_reason == "stop" and second.all_text.endswith("Both done.")


@pytest.mark.requires_runtime("acp")
async def test_host_tools_on_pi_acp_with_its_own_config_raise_a_clear_capability_error(workspace: Path) -> None:
    from harness_acp import acp

    agent = HarnessAgent(harness=acp(agent="pi-acp"), tools=[ADD], include_plugin_tools=False)
    with pytest.raises(HarnessCapabilityUnsupportedError, match="pi-acp ignores the MCP servers of session/new"):
        await agent.create_session(sandbox=LocalSandbox(workspace))


def test_pi_acp_cannot_take_mcp_servers_or_approvals_or_mode_mappings(tmp_path: Path) -> None:
    from harness_acp import acp

    with pytest.raises(HarnessCapabilityUnsupportedError, match="mcp_servers on agent 'pi-acp'"):
        acp(agent="pi-acp", mcp_servers={"calc": {"command": "calc"}})
    with pytest.raises(HarnessCapabilityUnsupportedError, match="permission mode 'allow-reads' on agent 'pi-acp'"):
        acp(agent="pi-acp", permission_mode_mapping={"allow-reads": "read-only"})
    assert acp(agent="pi-acp", base_url="http://127.0.0.1:9/v1").supports_builtin_approvals is True
    adapter = acp(agent="pi-acp")
    assert adapter.supports_builtin_approvals is False
    with pytest.raises(HarnessConfigurationError, match="needs built-in approvals"):
        HarnessAgent(harness=adapter, permission_mode="allow-reads", include_plugin_tools=False)
