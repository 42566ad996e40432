"""An inactive host tool the model calls anyway gets the spec's execution-denied result
(issue 16, item 4): the core decides it, as for any host call, instead of the built-in
harness repairing it as an unknown tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_core import HarnessAgent, LocalSandbox, define_harness_tool
from harness_core.testing import ModelTurn, Script, ToolCallSpec

pytestmark = pytest.mark.anyio


async def test_a_call_to_an_inactive_host_tool_is_denied(scripted_model_server, workspace: Path) -> None:
    ran: list[Any] = []
    secret = define_harness_tool(name="secret", description="d", input={"type": "object"},
                                 execute=lambda v, c: ran.append(v) or "leaked")
    echo = define_harness_tool(name="echo", description="d", input={"type": "object"}, execute=lambda v, c: "e")
    server = scripted_model_server(Script.of(
        ModelTurn(tool_calls=[ToolCallSpec("secret", {}, id="c1", unoffered=True)]), "ok"))
    agent = HarnessAgent(harness="builtin", include_plugin_tools=False, tools=[secret, echo],
                         inactive_tools=["secret"],
                         harness_options={"model": "anthropic:fake-model", "base_url": server.base_url,
                                          "api_key": "test-key", "max_retries": 0})
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="call it")
    assert "secret" not in server.offered_tools(0)
    assert ran == []
    assert result.finish_reason == "stop"
    [denied] = [p for p in result.parts if p.type == "tool-output-denied"]
    assert denied.tool_call_id == "c1" and "inactive" in (denied.reason or "")
    assert not [p for p in result.parts if p.type == "tool-call" and getattr(p, "invalid", None)]
    # The model is told it was denied, in the result of its call (no repair note).
    sent = json.dumps(server.requests[-1].body)
    assert "Execution denied" in sent and "could not be used" not in sent
