"""OpenTelemetry spans on the real Claude Code CLI (scripted model, the SDK's in-memory exporter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from harness_claude_code import claude_code
from harness_claude_code.testing import CLI_MISSING_REASON
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness_core import HarnessAgent, LocalSandbox, Telemetry, define_harness_tool
from harness_core.testing import ModelTurn, ToolCallSpec

needs_cli = pytest.mark.skipif(CLI_MISSING_REASON is not None, reason=CLI_MISSING_REASON or "")

pytestmark = [pytest.mark.anyio, needs_cli, pytest.mark.requires_runtime("claude-code")]


async def test_spans_for_a_builtin_and_a_host_call(scripted_model_server: Any, adapter_settings: Any,
                                                   workspace: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    server = scripted_model_server([
        ModelTurn(tool_calls=[ToolCallSpec("Bash", {"command": "echo SECRET-OUT"})]),
        ModelTurn(tool_calls=[ToolCallSpec("mcp__harness__lookup", {"q": "SECRET-IN"})]),
        "Done.",
    ])
    tool = define_harness_tool(name="lookup", description="Look up.", input={"type": "object"},
                               execute=lambda input, ctx: "found")
    settings = dict(adapter_settings(server))
    settings.pop("cwd", None)
    agent = HarnessAgent(harness=claude_code(**settings), include_plugin_tools=False, tools=[tool],
                         telemetry=Telemetry(tracer=provider.get_tracer("t")))
    async with await agent.create_session(sandbox=LocalSandbox(workspace)) as session:
        result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop", result.error
    spans = exporter.get_finished_spans()
    [turn] = [s for s in spans if s.name == "harness.turn"]
    tools = {s.attributes["harness.tool.name"]: s for s in spans if s.name == "harness.tool_call" and s.attributes}
    assert turn.attributes and turn.attributes["harness.id"] == "claude-code"
    assert turn.attributes["harness.turn.finish_reason"] == "stop"
    assert set(tools) == {"bash", "lookup"}
    assert tools["bash"].attributes and tools["bash"].attributes["harness.tool.executor"] == "runtime"
    assert tools["lookup"].attributes and tools["lookup"].attributes["harness.tool.executor"] == "host"
    assert all(t.attributes and t.attributes["harness.tool.outcome"] == "result" for t in tools.values())
    assert all(t.context.trace_id == turn.context.trace_id for t in tools.values())
    assert len([s for s in spans if s.name == "harness.step"]) >= 3
    every = repr([dict(s.attributes or {}) for s in spans])
    assert "SECRET-OUT" not in every and "SECRET-IN" not in every
