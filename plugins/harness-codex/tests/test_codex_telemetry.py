"""OpenTelemetry spans on the real Codex app-server (scripted Responses model)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from harness_core import HarnessAgent, LocalSandbox, Telemetry, define_harness_tool
from harness_core.testing import ModelTurn, Script, ScriptedModelServer, ToolCallSpec

pytestmark = [pytest.mark.anyio, pytest.mark.requires_runtime("codex")]


async def test_codex_turn_and_host_tool_spans(make_agent: Callable[..., HarnessAgent], tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tool = define_harness_tool(name="lookup", description="Look up.", input={"type": "object"},
                               execute=lambda input, ctx: "SECRET-OUT")
    script = Script.of(ModelTurn(tool_calls=[ToolCallSpec("lookup", {})]), "Done.")
    with ScriptedModelServer(script) as server:
        agent = make_agent(server, tools=[tool], telemetry=Telemetry(tracer=provider.get_tracer("t")))
        async with await agent.create_session(sandbox=LocalSandbox(tmp_path)) as session:
            result = await agent.generate(session=session, prompt="go")
    assert result.finish_reason == "stop"
    spans = exporter.get_finished_spans()
    [turn] = [s for s in spans if s.name == "harness.turn"]
    [call] = [s for s in spans if s.name == "harness.tool_call"]
    assert turn.attributes and turn.attributes["harness.id"] == "codex"
    assert call.attributes and call.attributes["harness.tool.name"] == "lookup"
    assert call.attributes["harness.tool.executor"] == "host" and call.context.trace_id == turn.context.trace_id
    assert "SECRET-OUT" not in repr([dict(s.attributes or {}) for s in spans])
