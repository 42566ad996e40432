"""Claude Code: an inactive host tool the model calls anyway (issue 16, item 4).

The tool is never offered to the CLI, so the CLI refuses the call itself ("No such tool
available"); the stream reports it as ``tool-output-denied`` whose reason says what the
model was told. Nothing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli]


async def test_a_call_to_an_inactive_host_tool_is_denied(
    scripted_model_server: Any, adapter_settings: Any, workspace: Path
) -> None:
    ran: list[Any] = []
    secret = define_harness_tool(name="secret", description="d", input={"type": "object"},
                                 execute=lambda v, c: ran.append(v) or "leaked")
    echo = define_harness_tool(name="echo", description="d", input={"type": "object"}, execute=lambda v, c: "e")
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__secret", {}, id="toolu_s1", unoffered=True)]),
        "ok",
    ])
    settings = adapter_settings(server)
    settings.pop("cwd", None)
    agent = HarnessAgent(harness=claude_code(**settings), tools=[secret, echo], inactive_tools=["secret"],
                         include_plugin_tools=False)
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="call it")
        violations = list(session.contract_violations)
    assert ran == []
    assert violations == []
    assert "mcp__harness__secret" not in server.offered_tools(0) and "mcp__harness__echo" in server.offered_tools(0)
    assert [p.type for p in result.parts if p.type.startswith("tool")] == ["tool-call", "tool-output-denied"]
    [denied] = [p for p in result.parts if p.type == "tool-output-denied"]
    assert denied.tool_call_id == "toolu_s1" and "inactive" in (denied.reason or "")
    # Claude Code never had the tool, so it answers the model itself; the part says what it said.
    told = server.last_tool_result() or ""
    assert "No such tool available: mcp__harness__secret" in told
    assert (denied.reason or "").endswith("told the model: Error: No such tool available: mcp__harness__secret")
    assert result.finish_reason == "stop"
