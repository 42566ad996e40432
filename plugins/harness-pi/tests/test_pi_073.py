"""pi 0.73 (the line that runs on node 20): a turn, the approval gate and a host tool still work."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harness_pi import pi

from harness_core import (
    ApprovalResponse,
    HarnessAgent,
    HarnessCapabilityUnsupportedError,
    LocalSandbox,
    ToolResultPart,
    define_harness_tool,
)
from harness_core.testing import ModelTurn, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.requires_runtime("pi"), pytest.mark.anyio]


def _cli_073() -> Path | None:
    found = shutil.which("pi")
    if found is None:
        return None
    cli = Path(found).parent.parent / "@mariozechner" / "pi-coding-agent" / "dist" / "cli.js"
    return cli if cli.is_file() else None


CLI = _cli_073()
needs_073 = pytest.mark.skipif(CLI is None, reason="pi 0.73 (npm @mariozechner/pi-coding-agent) is not installed")


@needs_073
async def test_pi_073_turn_gate_and_host_tool(workspace: Path) -> None:
    echo = define_harness_tool(name="echo_back", description="Echo text.", read_only=True,
                               input={"type": "object", "properties": {"text": {"type": "string"}}},
                               execute=lambda input, ctx: f"echo:{input['text']}")
    script = [ModelTurn(tool_calls=[ToolCallSpec("bash", {"command": "echo old > old.txt"}, id="b1"),
                                    ToolCallSpec("echo_back", {"text": "x"}, id="e1")]), "Done."]
    with ScriptedModelServer(script) as server:
        adapter = pi(model="fake-model", base_url=server.openai_base_url, cwd=workspace, pi_path=CLI)
        assert adapter.version()[:2] == (0, 73)
        agent = HarnessAgent(harness=adapter, tools=[echo], permission_mode="allow-reads")
        async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
            first = await agent.generate(session=session, prompt="go")
            assert first.finish_reason == "awaiting-approval", first.error
            second = await agent.continue_generate(session=session, approval_responses=[
                ApprovalResponse(approval_id=r.approval_id, approved=True) for r in first.approval_requests])
        last = server.model_requests[-1]
    assert second.finish_reason == "stop", second.error
    assert (workspace / "old.txt").read_text().strip() == "old"
    assert {p.tool_call_id for p in second.parts if isinstance(p, ToolResultPart)} == {"b1", "e1"}
    assert any("echo:x" in r.text for m in last.messages for r in m.tool_results)


@needs_073
async def test_pi_073_refuses_mcp_servers(workspace: Path) -> None:
    adapter = pi(model="m", base_url="http://127.0.0.1:9/v1", pi_path=CLI, mcp_servers={"x": {"command": "true"}})
    with pytest.raises(HarnessCapabilityUnsupportedError, match="mcp_servers"):
        await HarnessAgent(harness=adapter).create_session(sandbox=LocalSandbox(workspace))
